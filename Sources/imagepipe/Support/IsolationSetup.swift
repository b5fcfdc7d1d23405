import PipelineHost

/// `--isolation` and `--timeout` of `render` and `info`: which coders run in a sandboxed worker process (a
/// crashing or hanging decoder then costs the request, not the CLI) and how long a worker may take.
enum IsolationSetup {
    static let valued: Set<String> = ["isolation", "timeout"]

    /// The CLI's pools live until the process exits and are never shut down in order: the worker dies with the CLI
    /// (PR_SET_PDEATHSIG, and its socket closes), so an orderly retire would only add its wait for the worker's
    /// exit (about 2 ms) to every run. Written once per run, before any request.
    nonisolated(unsafe) private static var keptUntilExit: [WorkerPool] = []

    static let helpText = """
        Isolation options:
          --isolation MODE   in-process, isolated (every coder in a sandboxed worker process) or auto (default:
                             coders that ask for it, such as SVG and PDF, run in a worker)
          --timeout SECONDS  deadline of an isolated decode (default 30); the worker is killed when it passes
        """

    /// Sets the host's isolation policy and, unless everything runs in process, a one-worker pool that runs this
    /// executable's worker mode with the host's plugin search path.
    static func configure(_ arguments: Arguments, host: PluginHost) throws {
        let isolation: Isolation
        switch arguments.value("isolation") ?? "auto" {
        case "in-process": isolation = .inProcess
        case "isolated": isolation = .isolated
        case "auto", "automatic": isolation = .automatic
        case let other: throw UsageError("--isolation must be in-process, isolated or auto, not '\(other)'")
        }
        var timeout = 30.0
        if let text = arguments.value("timeout") {
            guard let value = Double(text), value > 0, value <= 86_400 else {
                throw UsageError("--timeout must be a number of seconds above 0, not '\(text)'")
            }
            timeout = value
        }
        host.coders.defaultIsolation = isolation
        guard isolation != .inProcess, let executable = PluginSearchPath.currentExecutablePath() else { return }
        // One request per CLI run: one worker, started only if a request is isolated.
        let pool = WorkerPool(host: host, executable: executable, size: 1, timeout: timeout)
        host.coders.workerPool = pool
        keptUntilExit.append(pool)
        // A worker forked at start-up costs nothing to start now, and reads the registry while this process reads
        // the input on the other core. Without one, a worker is spawned only if a request is isolated.
        if PreforkedWorker.isAvailable { try? pool.prewarm() }
    }
}
