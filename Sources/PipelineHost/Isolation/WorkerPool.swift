#if canImport(Glibc)
import Glibc
#endif

/// A pool of sandboxed worker processes that decode for the host, so that a coder which crashes, hangs or eats
/// memory costs one request, not the process (GNOME glycin's model; the plugin ABI is plain C data precisely so
/// the same `.so` runs in or out of process).
///
/// Workers start on demand up to `size` and then stay warm: a request costs a round trip (its input copied into a
/// memfd, the result mapped from the worker's sealed memfd), not a process start. A worker that crashes, passes
/// the request's deadline, hits its memory cap, misbehaves or whose request is cancelled is killed, reaped and
/// replaced at once, and the request fails with a typed error (`decoderCrashed`, `timedOut`,
/// `memoryLimitExceeded`, `cancelled`); other requests carry on in the other workers.
///
/// The deadline covers the time a worker spends on the request, not the wait for a free worker.
public final class WorkerPool: Sendable {
    public struct Configuration: Sendable {
        /// The program that serves worker mode (the imagepipe CLI: `/proc/self/exe` when the CLI is the host).
        public var executable: String
        /// Arguments that select worker mode. Default `["__worker"]`.
        public var arguments: [String]
        /// Where workers find plugins: the host's search path, in order.
        public var pluginDirectories: [String]
        /// The registry cache workers read (so they open plugins lazily); nil = none. Default: the host's default.
        public var registryCachePath: String?
        /// Most workers alive at once. Default: the number of processors.
        public var size: Int
        /// Address-space cap per worker (RLIMIT_AS), in bytes. Default 2 GiB.
        public var memoryLimit: Int
        /// Default per-request deadline in seconds. Default 30.
        public var timeout: Double
        /// CPU seconds per request (RLIMIT_CPU), a backstop should the host stop enforcing deadlines. Default 120.
        public var cpuSecondsPerRequest: Int
        /// How long a new worker may take to become ready. Default 10 s.
        public var startupTimeout: Double
        /// Retire a worker after this many requests (bounds slow leaks in coders); 0 = never. Default 10000.
        public var maxRequestsPerWorker: Int
        /// Largest input copied into a worker's reusable input arena (its pages stay resident at the high-water
        /// mark); larger inputs travel in one-shot memfds. 0 = always one-shot. Default 64 MiB.
        public var inputArenaLimit: Int
        /// Install the seccomp filter in workers (see `SeccompFilter`). Default true.
        public var seccomp: Bool
        /// Let workers write to the host's standard error (coder warnings, panics). Default false: a crashing
        /// decoder's noise would otherwise follow the host's one-line error.
        public var inheritStandardError: Bool
        /// Plugin files each worker opens as it starts, before its first request (a hint: a one-shot program that
        /// can guess its coder from the file name overlaps that plugin's load with its own reading of the input).
        public var preload: [String] = []
        /// A guess at the plugin each worker opens as it starts, which the worker resolves against its registry
        /// cache (see `PreloadHint`): for a host that wants its workers started before its own registry is read.
        public var preloadHint: PreloadHint?
        /// A worker forked at start-up that this pool's first worker adopts instead of spawning one (see
        /// `PreforkedWorker`); nil = spawn every worker. Only a pool running this very program in worker mode adopts it.
        public var preforked: PreforkedWorker?

        public init(executable: String, arguments: [String] = [WorkerServer.subcommand], pluginDirectories: [String],
                    registryCachePath: String? = PluginRegistry.defaultCachePath, size: Int = WorkerPool.defaultSize,
                    memoryLimit: Int = 2 << 30, timeout: Double = 30, cpuSecondsPerRequest: Int = 120,
                    startupTimeout: Double = 10, maxRequestsPerWorker: Int = 10_000, inputArenaLimit: Int = 64 << 20,
                    seccomp: Bool = true,
                    inheritStandardError: Bool = false) {
            self.executable = executable
            self.arguments = arguments
            self.pluginDirectories = pluginDirectories
            self.registryCachePath = registryCachePath
            self.size = max(1, size)
            self.memoryLimit = memoryLimit
            self.timeout = timeout
            self.cpuSecondsPerRequest = cpuSecondsPerRequest
            self.startupTimeout = startupTimeout
            self.maxRequestsPerWorker = maxRequestsPerWorker
            self.inputArenaLimit = inputArenaLimit
            self.seccomp = seccomp
            self.inheritStandardError = inheritStandardError
        }
    }

    /// Counters since the pool was made.
    public struct Statistics: Sendable, Equatable {
        public var requests = 0
        public var workersStarted = 0
        public var crashes = 0
        public var timeouts = 0
        public var memoryLimitHits = 0
        public var cancellations = 0
        /// Every worker pid the pool started, in order (so tests can check that none is left behind).
        public var workerPIDs: [Int32] = []
        /// Workers alive now.
        public var liveWorkers = 0
    }

    public let configuration: Configuration

    /// The default number of workers: one per online processor.
    public static var defaultSize: Int { LinuxSystem.processorCount }

    private struct State {
        var idle: [WorkerProcess] = []
        /// Workers alive or starting, idle or busy.
        var count = 0
        var closed = false
        var statistics = Statistics()
    }

    private let state = Monitor(State())

    public init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// A pool whose workers run `executable` with the host's plugin search path.
    public convenience init(host: PluginHost, executable: String, size: Int = WorkerPool.defaultSize,
                            timeout: Double = 30, memoryLimit: Int = 2 << 30) {
        self.init(configuration: Configuration(
            executable: executable, pluginDirectories: host.registry.searchPath.entries.map(\.directory), size: size,
            memoryLimit: memoryLimit, timeout: timeout))
    }

    deinit { shutdown() }

    public var statistics: Statistics {
        state.withLock { state in
            var statistics = state.statistics
            statistics.liveWorkers = state.count
            return statistics
        }
    }

    /// Starts every worker now (a server warming up), instead of on first use.
    public func prewarm() throws {
        let missing = state.withLock { state -> Int in
            let missing = max(0, configuration.size - state.count)
            state.count += missing
            return missing
        }
        for _ in 0..<missing {
            do {
                let worker = try start()
                state.update { $0.idle.append(worker) }
            } catch {
                state.update { $0.count -= 1 }
                throw error
            }
        }
    }

    /// Stops every idle worker now and every busy one when its request ends, and reaps them. Later requests fail.
    /// `grace`: how long a worker may take to exit on its own once its socket closes before it is killed; 0 kills
    /// at once (a one-shot program that must not leave a zombie behind, yet should not wait for a polite exit).
    public func shutdown(grace: Double = 1) {
        let idle = state.update { state -> [WorkerProcess] in
            state.closed = true
            defer { state.idle = [] }
            return state.idle
        }
        for worker in idle { worker.retire(grace: grace) }
        state.update { state in
            state.count -= idle.count
            state.statistics.liveWorkers = state.count
        }
    }

    // MARK: Requests

    /// Decodes `data` with the coder `coderID` in a worker (the same result as `CodersManager.decode` in process).
    public func decode(data: [UInt8], coderID: String, options: DecodeOptions = DecodeOptions(), timeout: Double? = nil) throws -> Image {
        try data.withUnsafeBytes { try decode($0, coderID: coderID, options: options, timeout: timeout, cancellation: nil) }
    }

    /// Probes `data` with the coder `coderID` in a worker.
    public func probe(data: [UInt8], coderID: String, options: DecodeOptions = DecodeOptions(), timeout: Double? = nil) throws -> ImageInfo {
        try data.withUnsafeBytes { try probe($0, coderID: coderID, options: options, timeout: timeout, cancellation: nil) }
    }

    func decode(_ data: UnsafeRawBufferPointer, coderID: String, options: DecodeOptions, timeout: Double?,
                cancellation: CallContext?, confirmWithSniff: Bool = false, pluginPath: String? = nil) throws -> Image {
        try run(.decode, data, coderID: coderID, options: options, timeout: timeout, cancellation: cancellation,
                confirmWithSniff: confirmWithSniff, pluginPath: pluginPath) { reply in
            guard reply.kind == .image, reply.descriptor >= 0 else { throw WorkerProtocolError("a decode was answered with \(reply.kind)") }
            var descriptor = reply.descriptor
            defer { LinuxSystem.closeDescriptor(descriptor) }
            let header = try reply.decodeBody(WorkerImageHeader.self)
            guard header.byteCount > 0, header.byteCount <= Int(Int32.max) * 64 else { throw WorkerProtocolError("implausible image size \(header.byteCount)") }
            descriptor = -1  // adoptOutput closes it
            let storage = try SharedMemory.adoptOutput(reply.descriptor, byteCount: header.byteCount)
            return try header.image(storage: storage)
        }
    }

    /// Every frame of an animation, decoded in a worker (copied out of the worker's one output, one image each).
    func animation(_ data: UnsafeRawBufferPointer, coderID: String, options: DecodeOptions, timeout: Double?,
                   cancellation: CallContext?, confirmWithSniff: Bool = false, pluginPath: String? = nil) throws -> Animation {
        try run(.frames, data, coderID: coderID, options: options, timeout: timeout, cancellation: cancellation,
                confirmWithSniff: confirmWithSniff, pluginPath: pluginPath) { reply in
            guard reply.kind == .frameSet, reply.descriptor >= 0 else { throw WorkerProtocolError("an animation was answered with \(reply.kind)") }
            var descriptor = reply.descriptor
            defer { if descriptor >= 0 { LinuxSystem.closeDescriptor(descriptor) } }
            let set = try reply.decodeBody(WorkerFrameSet.self)
            let total = set.frames.reduce(0) { $0 + max(0, $1.byteCount) }
            guard !set.frames.isEmpty, total > 0, total <= Int(Int32.max) * 64 else { throw WorkerProtocolError("implausible frame set of \(total) bytes") }
            descriptor = -1  // adoptOutput closes it
            let storage = try SharedMemory.adoptOutput(reply.descriptor, byteCount: total)
            var offset = 0
            let frames = try set.frames.map { header -> Image in
                guard header.byteCount > 0 else { throw WorkerProtocolError("an empty frame") }
                let frame = try header.image(bytes: UnsafeRawBufferPointer(start: storage.pointer + offset, count: header.byteCount))
                offset += header.byteCount
                return frame.with(color: set.color)
            }
            return Animation(frames: frames, loopCount: set.loopCount)
        }
    }

    func probe(_ data: UnsafeRawBufferPointer, coderID: String, options: DecodeOptions, timeout: Double?,
               cancellation: CallContext?, confirmWithSniff: Bool = false, pluginPath: String? = nil) throws -> ImageInfo {
        try run(.probe, data, coderID: coderID, options: options, timeout: timeout, cancellation: cancellation,
                confirmWithSniff: confirmWithSniff, pluginPath: pluginPath) { reply in
            LinuxSystem.closeDescriptor(reply.descriptor)
            guard reply.kind == .info else { throw WorkerProtocolError("a probe was answered with \(reply.kind)") }
            return try reply.decodeBody(ImageInfo.self)
        }
    }

    /// One request on one worker: the worker is returned to the pool only if it answered normally.
    private func run<T>(_ kind: WorkerMessage.Kind, _ data: UnsafeRawBufferPointer, coderID: String, options: DecodeOptions,
                        timeout: Double?, cancellation: CallContext?, confirmWithSniff: Bool, pluginPath: String?,
                        interpret: (WorkerMessage) throws -> T) throws -> T {
        let worker = try acquire()
        var healthy = false
        defer { release(worker, healthy: healthy) }
        let limit = timeout ?? configuration.timeout
        let job = WorkerJob(coderID: coderID, options: options, inputSize: data.count, cpuSeconds: configuration.cpuSecondsPerRequest,
                            confirmWithSniff: confirmWithSniff, pluginPath: pluginPath)
        let reply: WorkerMessage
        do {
            reply = try worker.perform(kind, job: job, input: data, deadline: LinuxSystem.now() + limit,
                                       startupTimeout: configuration.startupTimeout,
                                       isCancelled: { cancellation?.isCancelled == true || Task.isCancelled })
        } catch let end as WorkerProcess.End {
            throw record(end, coderID: coderID, timeout: limit)
        } catch {
            healthy = true  // the host failed (e.g. no memory for the input); the worker is fine
            throw error
        }
        if reply.kind == .failure {
            LinuxSystem.closeDescriptor(reply.descriptor)
            guard let failure = try? reply.decodeBody(WorkerFailure.self) else {
                throw PipelineError.pluginMisbehaved(plugin: "imagepipe-worker", message: "worker \(worker.pid) sent a malformed failure")
            }
            if failure.isOutOfMemory {
                // The worker exits after this reply (its heap is spent); it is reaped and replaced.
                state.withLock { $0.statistics.memoryLimitHits += 1 }
                throw PipelineError.memoryLimitExceeded(limit: configuration.memoryLimit)
            }
            healthy = true
            throw failure.error
        }
        do {
            let value = try interpret(reply)
            healthy = true
            return value
        } catch {
            throw PipelineError.pluginMisbehaved(plugin: "imagepipe-worker", message: "worker \(worker.pid): \(error)")
        }
    }

    /// Counts a worker's end and turns it into the request's error.
    private func record(_ end: WorkerProcess.End, coderID: String, timeout: Double) -> PipelineError {
        let error: PipelineError
        switch end {
        case .timedOut:
            error = .timedOut(after: timeout)
        case .cancelled:
            error = .cancelled
        case .died(let status):
            if WorkerProcess.exitCode(status) == WorkerExit.memoryExhausted {
                error = .memoryLimitExceeded(limit: configuration.memoryLimit)
            } else if WorkerProcess.signal(status) == SIGXCPU {
                error = .timedOut(after: Double(configuration.cpuSecondsPerRequest))
            } else {
                error = .decoderCrashed(coder: coderID, signal: WorkerProcess.signal(status) ?? 0)
            }
        case .misbehaved(let message):
            error = .pluginMisbehaved(plugin: "imagepipe-worker", message: message)
        case .failedToStart(let message):
            error = .pluginMisbehaved(plugin: "imagepipe-worker", message: "\(configuration.executable): \(message)")
        }
        state.withLock { state in
            switch error {
            case .timedOut: state.statistics.timeouts += 1
            case .cancelled: state.statistics.cancellations += 1
            case .memoryLimitExceeded: state.statistics.memoryLimitHits += 1
            case .decoderCrashed: state.statistics.crashes += 1
            default: break
            }
        }
        return error
    }

    // MARK: Workers

    private enum Acquired {
        case worker(WorkerProcess)
        case stale(WorkerProcess)
        case start
    }

    /// An idle worker, a new one if the pool is below its size, or the next one released.
    private func acquire() throws -> WorkerProcess {
        while true {
            let acquired = try state.wait { state -> Acquired? in
                if state.closed { throw PipelineError.invalidArgument("the worker pool has been shut down") }
                if let worker = state.idle.popLast() {
                    if worker.isGone {
                        state.count -= 1
                        return .stale(worker)
                    }
                    state.statistics.requests += 1
                    return .worker(worker)
                }
                if state.count < configuration.size {
                    state.count += 1
                    state.statistics.requests += 1
                    return .start
                }
                return nil
            }
            switch acquired {
            case .worker(let worker): return worker
            case .stale(let worker): worker.terminate()
            case .start:
                do {
                    return try start()
                } catch {
                    state.update { $0.count -= 1 }
                    throw error
                }
            }
        }
    }

    private func start() throws -> WorkerProcess {
        let worker = try WorkerProcess.start(configuration)
        state.withLock { state in
            state.statistics.workersStarted += 1
            state.statistics.workerPIDs.append(worker.pid)
            state.statistics.liveWorkers = state.count
        }
        return worker
    }

    /// Back to the idle list, or (failed, worn out, or pool closed) ended and replaced by a fresh worker.
    private func release(_ worker: WorkerProcess, healthy: Bool) {
        let wornOut = configuration.maxRequestsPerWorker > 0 && worker.requestsServed >= configuration.maxRequestsPerWorker
        let keep = state.update { state -> Bool in
            guard healthy, !wornOut, !state.closed else { return false }
            state.idle.append(worker)
            return true
        }
        if keep { return }
        if healthy { worker.retire() } else { worker.terminate() }
        let replace = state.update { state -> Bool in
            state.count -= 1
            state.statistics.liveWorkers = state.count
            guard !state.closed else { return false }
            state.count += 1  // the replacement's slot, taken now so that no request starts a second one
            return true
        }
        guard replace else { return }
        do {
            let fresh = try start()
            state.update { $0.idle.append(fresh) }
        } catch {
            state.update { $0.count -= 1 }
        }
    }
}
