import Dispatch
import PipelineHost
#if canImport(Glibc)
import Glibc
#endif

/// The plugin tester, as a module of its own (as clap-validator stands beside CLAP): it tests one plugin file in
/// isolation, every check in a child process of the calling executable, so a crashing or hanging plugin becomes a
/// failed check instead of a dead tool. The CLI's `plugin test` parses arguments and calls `run`; its hidden
/// `__plugin-check` command calls `runCheck` in the child.
public enum PluginTester {
    /// What to test and how hard.
    public struct Configuration {
        /// Absolute path of the plugin file.
        public var file: String
        /// Sample files matched to coders by extension (with a manifest.tsv, its expected outcomes decide).
        public var samplesRoot: String?
        /// 1...10: how many samples, truncations, bit flips and random inputs.
        public var strictness = 5
        /// The seed of the random inputs (the report prints it for replay).
        public var seed: UInt64
        /// Checks run in parallel (cache checks one at a time: they share one store).
        public var jobs = 1
        /// One plugin call longer than this (seconds) is a hang.
        public var callTimeout = 10.0
        /// Overrides each check's own whole-check timeout.
        public var timeout: Double?
        /// The configuration cache checks open a store with (nil: the plugin's default).
        public var cacheConfiguration: String?
        /// Only checks whose ID matches run.
        public var only: Regex<AnyRegexOutput>?

        public init(file: String, samplesRoot: String?, seed: UInt64) {
            self.file = file
            self.samplesRoot = samplesRoot
            self.seed = seed
        }
    }

    /// Runs every check that applies to the plugin as child processes of `executable` (which must answer
    /// `__plugin-check` by calling `runCheck`). `progress` is called as each check finishes (done, total, line).
    public static func run(_ configuration: Configuration, executable: String,
                           progress: (@Sendable (Int, Int, String) -> Void)? = nil) -> TestReport {
        let plan = TestPlan(
            strictness: configuration.strictness, seed: configuration.seed,
            samples: SampleFinder(root: configuration.samplesRoot), callTimeout: configuration.callTimeout,
            timeout: configuration.timeout,
            serverScript: SampleFinder.repositoryRoot().map { $0 + "/Tests/HTTPTestServer/http_test_server.py" }
                .flatMap { access($0, R_OK) == 0 ? $0 : nil },
            cacheConfiguration: configuration.cacheConfiguration,
            only: configuration.only)
        let started = ChildProcess.now()
        let runner = CheckRunner(executable: executable, pluginPath: configuration.file)
        // First the load check, which also describes the plugin; the plan for the rest follows from it.
        let (loadOutcome, description) = runner.run(plan.loadTask())
        let (tasks, skipped) = plan.tasks(for: description, load: loadOutcome)
        let total = tasks.count
        let outcomes = runner.runAll(tasks, jobs: configuration.jobs) { done, outcome in
            progress?(done, total, "\(outcome.id) \(outcome.result.status.rawValue)")
        }
        var all = (plan.includes(loadOutcome.id) ? [loadOutcome] : []) + outcomes + skipped
        all.sort { plan.order(of: $0) < plan.order(of: $1) }
        return TestReport(file: configuration.file, strictness: plan.strictness, seed: configuration.seed,
                          samples: configuration.samplesRoot, plugin: description, checks: all,
                          seconds: ChildProcess.now() - started)
    }

    /// The default samples folder: ../shared/corpus beside the source tree, when it exists.
    public static func defaultSamplesRoot() -> String? { SampleFinder.defaultRoot() }

    public static func isDirectory(_ path: String) -> Bool { SampleFinder.isDirectory(path) }

    /// What one check child runs with (the parent passes it on the command line).
    public struct CheckSettings: Sendable {
        public var pluginPath: String
        public var strictness: Int
        public var seed: UInt64
        public var component: Int
        public var samples: [String]
        public var hostileSamples: [String]
        public var callLimit: Double
        public var serverScript: String?
        public var cacheConfiguration: String?

        public init(pluginPath: String, strictness: Int, seed: UInt64, component: Int, samples: [String],
                    hostileSamples: [String], callLimit: Double, serverScript: String?, cacheConfiguration: String?) {
            self.pluginPath = pluginPath
            self.strictness = strictness
            self.seed = seed
            self.component = component
            self.samples = samples
            self.hostileSamples = hostileSamples
            self.callLimit = callLimit
            self.serverScript = serverScript
            self.cacheConfiguration = cacheConfiguration
        }
    }

    /// Set-up of a check child, before its arguments are even parsed: the protocol channel, the fault handler and
    /// the watchdog thread exist before any check takes its baseline of process state, so none of them is mistaken
    /// for something the plugin did.
    public static func prepareCheckChild() {
        CheckChannel.open()
        GuardedMemory.installFaultHandler()
        Watchdog.start()
        settleDispatch()
    }

    /// Runs ONE check in this (fresh, child) process and reports on the line protocol of `CheckChannel`.
    public static func runCheck(_ id: String, settings given: CheckSettings) {
        let settings = CheckContext.Settings(
            pluginPath: given.pluginPath, strictness: given.strictness, seed: given.seed, component: given.component,
            samples: given.samples, hostileSamples: given.hostileSamples, callLimit: given.callLimit,
            serverScript: given.serverScript, cacheConfiguration: given.cacheConfiguration)
        Watchdog.callLimit = settings.callLimit
        guard let definition = CheckCatalog.definition(id) else {
            CheckChannel.send("result", CheckResult(status: .failed, message: "unknown check \(id)").json)
            return
        }
        let context = CheckContext(settings: settings)
        do {
            try definition.run(context)
        } catch is CheckSkipped {
        } catch {
            context.fail("\(error)")
        }
        // Every check also checks the 1.0 host rule: each service is called with the host table the plugin was given.
        for service in TestHost.foreignHostCalls.withLock({ $0 }) {
            context.fail("called the host's \(service) with a host pointer other than the one init received "
                         + "(every service takes the plugin's own ip_host)")
        }
        CheckChannel.send("result", context.result().json)
    }

    /// Lets libdispatch set up its timer descriptor (a timerfd its manager thread opens lazily, the first time any
    /// timer is armed) now, before a check takes its baseline, so that it is not counted against the plugin.
    private static func settleDispatch() {
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(1)) { done.signal() }
        done.wait()
    }
}
