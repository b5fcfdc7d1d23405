import PipelineHost
import PluginAPI

/// What a check body works with inside its child process: the settings the parent chose, the plugin (opened on
/// demand), and the findings it collects. Every problem is recorded, not just the first.
final class CheckContext {
    struct Settings: Sendable {
        var pluginPath: String
        var strictness: Int
        var seed: UInt64
        /// Index of the coder, loader or cache under test (component checks).
        var component: Int
        var samples: [String]
        /// Inputs a coder must reject or survive (the corpus's bad/ files of its formats).
        var hostileSamples: [String]
        /// Seconds one plugin call may take.
        var callLimit: Double
        /// The HTTP test server script for loader checks, when present.
        var serverScript: String?
        /// What cache checks open the store with (nil: the plugin's default configuration).
        var cacheConfiguration: String? = nil
    }

    let settings: Settings
    private(set) var failures: [String] = []
    private(set) var warnings: [String] = []
    private(set) var notes: [String] = []
    private var skipReason: String?
    private var openedPlugin: PluginUnderTest?

    init(settings: Settings) { self.settings = settings }

    var strictness: Int { settings.strictness }

    func fail(_ text: String) { if !failures.contains(text) { failures.append(text) } }
    func warn(_ text: String) { if !warnings.contains(text) { warnings.append(text) } }
    func note(_ text: String) { notes.append(text) }
    /// The check does not apply (nothing to test); ends the check.
    func skip(_ reason: String) -> CheckSkipped { skipReason = reason; return CheckSkipped() }

    func fail(_ problems: [String], _ context: String) { for problem in problems { fail("\(context): \(problem)") } }

    /// The plugin, opened and initialised with the host's minor (once per child).
    func plugin() throws -> PluginUnderTest {
        if let openedPlugin { return openedPlugin }
        let plugin = try PluginUnderTest.openAndInitialize(settings.pluginPath)
        openedPlugin = plugin
        return plugin
    }

    /// The coder under test with its description.
    func coder() throws -> CoderUnderTest {
        let plugin = try plugin()
        let tables = try plugin.coders()
        guard tables.indices.contains(settings.component) else { throw PluginUnderTest.Failure("no coder #\(settings.component)") }
        let description = try PluginDescription(plugin: plugin)
        return CoderUnderTest(table: tables[settings.component], info: description.coders[settings.component],
                              callLimit: settings.callLimit)
    }

    func loader() throws -> LoaderUnderTest {
        let plugin = try plugin()
        let tables = try plugin.loaders()
        guard tables.indices.contains(settings.component) else { throw PluginUnderTest.Failure("no loader #\(settings.component)") }
        return LoaderUnderTest(table: tables[settings.component], info: try PluginDescription(plugin: plugin).loaders[settings.component],
                               callLimit: settings.callLimit)
    }

    func cache() throws -> CacheUnderTest {
        let plugin = try plugin()
        let tables = try plugin.caches()
        guard tables.indices.contains(settings.component) else { throw PluginUnderTest.Failure("no cache #\(settings.component)") }
        return CacheUnderTest(table: tables[settings.component], info: try PluginDescription(plugin: plugin).caches[settings.component],
                              callLimit: settings.callLimit)
    }

    /// Plugin-wide checks get one sample per coder as "<coder index>:<path>".
    var samplesByCoder: [Int: String] {
        var result: [Int: String] = [:]
        for entry in settings.samples {
            guard let colon = entry.firstIndex(of: ":"), let index = Int(entry[..<colon]) else { continue }
            result[index] = String(entry[entry.index(after: colon)...])
        }
        return result
    }

    /// The result of the findings.
    func result() -> CheckResult {
        if let first = failures.first {
            return CheckResult(status: .failed, message: first, details: Array(failures.dropFirst()) + warnings.map { "warning: \($0)" })
        }
        if let first = warnings.first {
            return CheckResult(status: .warning, message: first, details: Array(warnings.dropFirst()) + notes)
        }
        if let skipReason, notes.isEmpty { return CheckResult(status: .skipped, message: skipReason) }
        return CheckResult(status: .passed, message: notes.first ?? "ok", details: Array(notes.dropFirst()))
    }
}

/// Thrown by a check body that has nothing to test (`throw context.skip("...")`).
struct CheckSkipped: Error {}

/// One check: an ID for `--only` and the report, a title, where it applies, and its body (run in the child).
struct CheckDefinition: Sendable {
    enum Scope: String, Sendable { case plugin, coder, loader, cache }

    let id: String
    let title: String
    let scope: Scope
    /// Crashes and hangs on hostile input are tolerated (as warnings) for coders that declare
    /// IP_CODER_RECOMMENDS_ISOLATION: the host runs those in a child process.
    var hostileInput = false
    /// nil when the check applies to this component, else why it is skipped (decided in the parent).
    var applies: @Sendable (PluginDescription, Int) -> String? = { _, _ in nil }
    /// Parent-side timeout in seconds at a strictness.
    var timeout: @Sendable (Int) -> Double = { _ in 60 }
    let run: @Sendable (CheckContext) throws -> Void
}

/// A deterministic generator (SplitMix64): the same seed gives the same inputs, so a failure can be replayed.
struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
