import PipelineHost
import Synchronization

/// `--isolation` and `--timeout` of `render` and `info`: which coders run in a sandboxed worker process (a
/// crashing or hanging decoder then costs the request, not the CLI) and how long a worker may take. The download
/// options (`LoadArguments`) come with them, so every command that decodes also takes them.
enum IsolationSetup {
    /// Address space a worker uses before it decodes anything, added to the memory budget for its cap.
    static let workerAddressSpaceOverhead = 320 << 20

    /// What the CLI owns until it exits: the worker forked at start-up (until an isolator adopts it) and the
    /// isolators it configured, ended by `endWorkers` (never by an orderly retire, which polls for a polite exit:
    /// about 2 ms per run). Written before any request.
    private struct Owned {
        var preforked: PreforkedWorker?
        var isolators: [Isolator] = []
        /// The isolator `startWorkerEarly` made, and the plugin folders its worker was given, until `configure`.
        var early: (isolator: Isolator, directories: [String])?
    }
    private static let owned = Mutex(Owned())

    /// Whether this command line may use a worker forked before the program starts a thread: only the one-shot
    /// commands that decode (a batch or a service spawns its workers), and not when isolation is off.
    ///
    /// Nor when the source (the argument after the command) names a raster format this project's coders decode in
    /// process, unless every coder is isolated (`--isolation isolated`): the fork, and the kill and reap of the
    /// unused child at exit, cost a one-shot PNG or JPEG render about 3 ms of its ~30. A wrong guess (an SVG named
    /// .png, a third-party coder that asks for isolation) only means the worker is spawned when needed instead.
    static func wantsPreforkedWorker(_ arguments: [String]) -> Bool {
        guard ["render", "info"].contains(arguments.first), !arguments.contains("in-process"), !arguments.contains("--help") else { return false }
        if !arguments.contains("isolated"), arguments.count > 1, !arguments[1].hasPrefix("-"), let dot = arguments[1].lastIndex(of: "."),
           !arguments[1][dot...].contains("/"), inProcessRasterExtensions.contains(arguments[1][arguments[1].index(after: dot)...].lowercased()) {
            return false
        }
        return true
    }

    /// The extensions of the raster formats the bundled coders decode in this process (none asks for isolation).
    static let inProcessRasterExtensions: Set<String> = ["png", "jpg", "jpeg", "jpe", "gif", "webp", "avif", "avifs", "heic", "heif", "hif",
                                                         "jxl", "tif", "tiff", "qoi"]

    /// Forks the start-up worker (see PreforkedWorker); the CLI's entry calls it before anything starts a thread.
    static func prepareWorker(_ arguments: [String]) {
        let preforked = PreforkedWorker.prepare { preloadGuess(arguments) }
        owned.withLock { $0.preforked = preforked }
    }

    /// Kills and reaps the CLI's workers and an unused start-up fork, so that none outlives the CLI: an orphan is
    /// reparented to PID 1, and a container's PID 1 often reaps nothing (a zombie per run). A worker holds nothing
    /// worth a graceful exit. The CLI calls it before exiting; after `endingWorkers(during:)` it is a no-op.
    static func endWorkers() {
        let (preforked, isolators) = owned.withLock { owned in
            defer { owned = Owned() }
            return (owned.preforked, owned.isolators)
        }
        preforked?.discard()
        for isolator in isolators { isolator.shutdown(grace: 0) }
    }

    /// Runs `body` (work that needs no worker any more, such as encoding the decoded image) while the workers are
    /// ended on another core, and returns once both are done, whether `body` throws or not: so the exit that
    /// follows never races a reap still in progress.
    static func endingWorkers<T>(during body: () throws -> T) async throws -> T {
        let ending = Task.detached { endWorkers() }
        let result = Result { try body() }
        await ending.value
        return try result.get()
    }

    /// `--isolation`, `--timeout` and the download options under them.
    static let section = OptionSection("Isolation options:", column: 21, [
        .option(Option("isolation", value: "MODE", help: """
            in-process, isolated (every coder in a sandboxed worker process) or auto (default:
            coders that ask for it, such as SVG and PDF, run in a worker)
            """)),
        .option(Option("timeout", value: "SECONDS", help: """
            deadline of the whole request, in-process decoders included (without it: an isolated
            decode is stopped after 30 s, a download after 60 s)
            """)),
    ] + LoadArguments.rows)

    /// Hands the start-up worker its settings as soon as the command line is parsed, before the host reads its
    /// registry: the worker's sandbox, its look-up of the plugin the source's extension names (`PreloadHint`) and
    /// that plugin's load (librsvg's library tree: 5-7 ms) then overlap the host's own scan on the other core,
    /// instead of waiting for it. `configure` adopts what is made here when the host's search path is the one
    /// assumed. An option `configure` would reject starts nothing here; `configure` then reports it as before.
    static func startWorkerEarly(_ arguments: Arguments) {
        guard owned.withLock({ $0.preforked?.isAvailable == true }), let (isolation, configuration) = earlyWorker(arguments) else { return }
        let isolator = adopt(policy: isolation, configuration: configuration)
        owned.withLock { $0.early = (isolator, configuration.pluginDirectories) }
        try? isolator.pool?.prewarm()
    }

    /// The policy and one-worker pool `startWorkerEarly` starts, with the preload hint of the source's extension;
    /// nil when nothing would run isolated or an option is one `configure` would reject.
    private static func earlyWorker(_ arguments: Arguments) -> (Isolation, WorkerPool.Configuration)? {
        let folders = arguments.all("plugin-dir")
        guard folders.allSatisfy({ $0.hasPrefix("/") }), let executable = PluginSearchPath.currentExecutablePath() else { return nil }
        let directories = PluginSearchPath.standard(flags: folders, defaults: !arguments.flag("no-default-plugins")).entries.map(\.directory)
        guard let (isolation, configuration) = try? workerConfiguration(arguments, executable: executable, directories: directories, workers: 1),
              var configuration else { return nil }
        configuration.preloadHint = arguments.positionals.first.flatMap { PreloadHint(source: $0, policy: isolation) }
        return (isolation, configuration)
    }

    /// What `startWorkerEarly` will send, read from the same command line in the start-up child while it waits for it
    /// (see `PreforkedWorker.prepare(guess:)`). A quick reading (the source right after the command, the options
    /// that choose isolation and plugin folders) rather than the full parse, which took about 1 ms cold in the child,
    /// as long as the look-up it precedes: a misreading costs only that look-up, since the child uses its answer
    /// only when the settings then carry the same hint and folders.
    private static func preloadGuess(_ arguments: [String]) -> (hint: PreloadHint, directories: [String])? {
        guard [RenderCommand.name, InfoCommand.name].contains(arguments.first), arguments.count > 1, !arguments[1].hasPrefix("-") else { return nil }
        var isolation = Isolation.automatic
        var folders: [String] = []
        var defaults = true
        var index = 2
        while index < arguments.count {
            let value = index + 1 < arguments.count ? arguments[index + 1] : nil
            switch arguments[index] {
            case "--isolation":
                guard let value, let chosen = value == "automatic" ? .automatic : Isolation(rawValue: value) else { return nil }
                isolation = chosen
                index += 1
            case "--plugin-dir":
                guard let value else { return nil }
                folders.append(value)
                index += 1
            case "--no-default-plugins": defaults = false
            default: break
            }
            index += 1
        }
        guard folders.allSatisfy({ $0.hasPrefix("/") }), let hint = PreloadHint(source: arguments[1], policy: isolation) else { return nil }
        return (hint, PluginSearchPath.standard(flags: folders, defaults: defaults).entries.map(\.directory))
    }

    /// Sets the host's isolation policy and, unless everything runs in process, a one-worker pool that runs this
    /// executable's worker mode with the host's plugin search path.
    /// `workers`: how many isolated decodes may run at once (a batch's lanes; one for a one-shot command).
    static func configure(_ arguments: Arguments, host: PluginHost, workers: Int = 1) throws {
        let directories = host.registry.searchPath.entries.map(\.directory)
        if let early = owned.withLock({ owned in defer { owned.early = nil }; return owned.early }) {
            if workers == 1, early.directories == directories {
                host.coders.isolator = early.isolator
                return
            }
            early.isolator.shutdown(grace: 0)
        }
        guard let executable = PluginSearchPath.currentExecutablePath() else {
            host.coders.isolator = Isolator(policy: try policy(arguments))
            return
        }
        let (isolation, found) = try workerConfiguration(arguments, executable: executable, directories: directories, workers: workers)
        guard var configuration = found else {
            host.coders.isolator = Isolator(policy: isolation)
            return
        }
        // The plugin of the isolated coder the source's extension names, if exactly one claims it: the worker opens it
        // while this process reads the input.
        if let source = arguments.positionals.first, let path = PreloadHint(source: source, policy: isolation)?.pluginPath(among: host.coders.coders) {
            configuration.preload = [path]
        }
        let isolator = adopt(policy: isolation, configuration: configuration)
        host.coders.isolator = isolator
        // A worker forked at start-up costs nothing to start now, and opens the preloaded plugin while this process
        // reads the input on the other core. Without one, a worker is spawned only if a request is isolated.
        if let pool = isolator.pool, pool.configuration.preforked?.isAvailable == true { try? pool.prewarm() }
    }

    /// `--isolation`.
    private static func policy(_ arguments: Arguments) throws -> Isolation {
        switch arguments.value("isolation") ?? "auto" {
        case "in-process": .inProcess
        case "isolated": .isolated
        case "auto", "automatic": .automatic
        case let other: throw UsageError("--isolation must be in-process, isolated or auto, not '\(other)'")
        }
    }

    /// The policy and, unless everything runs in process, the pool of `workers` that runs this executable's worker
    /// mode with the plugin folders `directories`, capped by the request's memory budget.
    private static func workerConfiguration(_ arguments: Arguments, executable: String, directories: [String],
                                            workers: Int) throws -> (Isolation, WorkerPool.Configuration?) {
        let isolation = try policy(arguments)
        let timeout = try arguments.seconds("timeout") ?? 30
        guard isolation != .inProcess else { return (isolation, nil) }
        // One worker per request the command runs at once, each started only when a request is isolated.
        var configuration = WorkerPool.Configuration(executable: executable, pluginDirectories: directories, size: workers, timeout: timeout)
        // The request's memory budget caps the worker too: its pixels plus what a worker maps before decoding
        // anything (libraries, thread stacks: about 260 MiB of address space measured with librsvg and poppler).
        let budget = try DecodeArguments.memorySize(arguments) ?? DecodeLimits().maxMemoryBytes
        configuration.memoryLimit = budget + workerAddressSpaceOverhead
        return (isolation, configuration)
    }

    /// A new isolator, which adopts the start-up worker if it is still there (then it is the isolator's to end).
    private static func adopt(policy: Isolation, configuration: WorkerPool.Configuration) -> Isolator {
        owned.withLock { owned in
            defer { owned.preforked = nil }
            let isolator = Isolator(policy: policy, workers: configuration, preforked: owned.preforked)
            owned.isolators.append(isolator)
            return isolator
        }
    }
}
