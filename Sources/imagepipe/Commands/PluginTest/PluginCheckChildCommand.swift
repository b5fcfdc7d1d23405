import Dispatch
import PipelineHost
import PluginTester
#if canImport(Glibc)
import Glibc
#endif

/// `imagepipe __plugin-check <check-id> <file.so> [settings]`: runs ONE check in this (fresh, child) process and
/// reports on the line protocol of `CheckChannel`. Hidden: only `imagepipe plugin test` starts it.

enum PluginCheckChildCommand: Command {
    static let name = "__plugin-check"
    static let summary = "run one plugin check in this process (internal)"
    static let help = "Usage: imagepipe __plugin-check <check-id> <file.so> [--component N] [--strictness N] [--seed N] "
        + "[--call-timeout S] [--deadline S] [--sample FILE]... [--hostile FILE]... [--server-script FILE] (internal)"

    /// What the parent passes (PluginTester's CheckChannel); never printed, the command is hidden.
    static let sections = [OptionSection(nil, column: 0, [
        "component", "strictness", "seed", "call-timeout", "deadline", "sample", "hostile", "server-script", "cache-config",
    ].map { .option(Option($0, value: "VALUE", help: "")) })]

    static func run(_ arguments: [String]) async throws {
        PluginTester.prepareCheckChild()
        let args = try Arguments(arguments, sections: sections)
        guard args.positionals.count == 2 else { throw UsageError("expected <check-id> <file.so>") }
        // Last resort should the parent be gone: the process cannot outlive its deadline by much.
        alarm(UInt32(try args.int("deadline", range: 1...86_400) ?? 600) + 30)
        PluginTester.runCheck(args.positionals[0], settings: PluginTester.CheckSettings(
            pluginPath: args.positionals[1],
            strictness: try args.int("strictness", range: 1...10) ?? 5,
            seed: UInt64(args.value("seed") ?? "") ?? 1,
            component: try args.int("component", range: 0...255) ?? 0,
            samples: args.all("sample"), hostileSamples: args.all("hostile"),
            callLimit: Double(args.value("call-timeout") ?? "") ?? 10,
            serverScript: args.value("server-script"),
            cacheConfiguration: args.value("cache-config")))
    }
}

/// `imagepipe __scan <file.so>...`: the registry's scanner child (see PluginScanner). Hidden.
enum ScanChildCommand: Command {
    static let name = "__scan"
    static let summary = "inspect plugin files for the registry (internal)"
    static let help = "Usage: imagepipe __scan <file.so>... (internal: prints one inspection per file for the parent)"

    static func run(_ arguments: [String]) async throws {
        let status = PluginScanner.serve(paths: arguments)
        if status != 0 { exit(status) }
    }
}
