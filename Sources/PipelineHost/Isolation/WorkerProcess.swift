import PluginAPI
#if canImport(Glibc)
import Glibc
#endif

/// The host's handle on one worker process: its pid and the host end of its socket. Runs one request at a time
/// and, when the worker fails, kills and reaps it so that no zombie remains.
///
/// `@unchecked Sendable`: a worker is used by one thread at a time — whichever request took it from the pool's
/// idle list (under the pool's lock) — and goes back to the list before anyone else can take it.
final class WorkerProcess: @unchecked Sendable {
    let pid: pid_t
    private let channel: WorkerChannel
    private var isReady = false
    private var reaped = false
    private var nextRequestID: UInt64 = 1
    private var arena: InputArena?
    private let arenaLimit: Int
    private(set) var requestsServed = 0

    /// Why a worker can no longer be used; it has been killed (if needed) and reaped.
    enum End: Error {
        /// Still running at the deadline: killed.
        case timedOut
        /// The request was cancelled while the worker ran it: killed.
        case cancelled
        /// It exited or died on its own; the raw waitpid status.
        case died(status: Int32)
        /// It broke the protocol: killed.
        case misbehaved(String)
        /// It never became ready.
        case failedToStart(String)
    }

    private init(pid: pid_t, socket: Int32, arenaLimit: Int) {
        self.pid = pid
        self.arenaLimit = arenaLimit
        channel = WorkerChannel(fd: socket)
    }

    deinit {
        terminate()
        LinuxSystem.closeDescriptor(channel.fd)
    }

    /// Starts a worker. It initialises in the background; the first request waits for its `ready`.
    static func start(_ configuration: WorkerPool.Configuration) throws -> WorkerProcess {
        var settings = [
            "--parent", String(getpid()), "--memory-limit", String(configuration.memoryLimit),
            "--registry-cache", configuration.registryCachePath ?? "off",
        ]
        if !configuration.seccomp { settings.append("--no-seccomp") }
        for directory in configuration.pluginDirectories { settings += ["--plugin-dir", directory] }
        for file in configuration.preload { settings += ["--preload", file] }
        settings += configuration.preloadHint?.workerArguments ?? []
        // This very program in worker mode: a worker forked at start-up, if there is one, saves a process start.
        if configuration.arguments == [WorkerServer.subcommand],
           configuration.executable == PluginSearchPath.currentExecutablePath(),
           let preforked = configuration.preforked?.take(workerArguments: settings, inheritStandardError: configuration.inheritStandardError) {
            HostLog.write(level: IP_LOG_DEBUG, source: "isolation", message: "worker \(preforked.pid) was forked at start-up; no process to spawn")
            return WorkerProcess(pid: preforked.pid, socket: preforked.socket, arenaLimit: configuration.inputArenaLimit)
        }
        var fds: [Int32] = [-1, -1]
        let type = Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        guard socketpair(AF_UNIX, type, 0, &fds) == 0 else {
            throw PipelineError.invalidArgument("cannot create a worker socket: \(LinuxSystem.describe(errno))")
        }
        defer { LinuxSystem.closeDescriptor(fds[1]) }  // the child has its copy
        let arguments = configuration.arguments + ["--socket-fd", "3"] + settings
        do {
            let pid = try WorkerSpawner.shared.spawn(WorkerSpawner.Job(
                executable: configuration.executable, arguments: arguments, socket: fds[1],
                inheritStandardError: configuration.inheritStandardError))
            return WorkerProcess(pid: pid, socket: fds[0], arenaLimit: configuration.inputArenaLimit)
        } catch {
            LinuxSystem.closeDescriptor(fds[0])
            throw PipelineError.invalidArgument("\(error)")
        }
    }

    /// Sends one request with its input in shared memory and waits for the reply until `deadline`.
    /// Throws `End` when the worker is finished (already reaped), or a `PipelineError` when the host itself
    /// failed (the worker is still usable).
    func perform(_ kind: WorkerMessage.Kind, job: WorkerJob, input: UnsafeRawBufferPointer, deadline: Double,
                 startupTimeout: Double, isCancelled: () -> Bool) throws -> WorkerMessage {
        var job = job
        let (descriptor, closeAfterSend) = try place(input, in: &job)
        defer { if closeAfterSend { LinuxSystem.closeDescriptor(descriptor) } else { arena?.closeDescriptor() } }
        let id = nextRequestID
        // Made before waiting for a new worker's ready, with the host's side of the protocol warmed: the first
        // message's one-time costs (WorkerProtocolWarmUp) then overlap the worker's start instead of following it.
        let request = try WorkerMessage(kind: kind, requestID: id, json: job, descriptor: descriptor)
        nextRequestID += 1
        if isReady {
            do {
                try channel.send(request)
            } catch {
                throw End.died(status: collectExit())
            }
        } else {
            // Sent before the worker's ready: the socket keeps the messages' order, so the worker finds the request
            // waiting as soon as it has sent ready, instead of after a round trip through the host (uprobes, a
            // one-shot SVG render: plugin loaded to decode begun 0.84 -> 0.62 ms, medians of 15). A worker that fails to start never reads
            // it; awaitReady reports that failure, which a failed send here also means.
            let sent = (try? channel.send(request)) != nil
            WorkerProtocolWarmUp.host()
            try awaitReady(timeout: startupTimeout, isCancelled: isCancelled)
            guard sent else { throw End.died(status: collectExit()) }
        }
        let reply = try awaitMessage(until: deadline, isCancelled: isCancelled)
        guard reply.requestID == id, [.image, .info, .failure, .frameSet].contains(reply.kind) else {
            LinuxSystem.closeDescriptor(reply.descriptor)
            terminate()
            throw End.misbehaved("unexpected \(reply.kind) reply to request \(id)")
        }
        requestsServed += 1
        return reply
    }

    /// Copies the input into the worker's arena (made or grown as needed), or into a one-shot memfd when it is
    /// larger than the arena may grow. Returns the descriptor to attach (-1: none) and whether to close it after.
    private func place(_ input: UnsafeRawBufferPointer, in job: inout WorkerJob) throws -> (Int32, Bool) {
        do {
            guard input.count <= arenaLimit else {
                job.arena = nil
                return (try SharedMemory.makeInput(input), true)
            }
            if arena == nil || arena!.capacity < input.count {
                arena = nil
                arena = try InputArena(capacity: InputArena.capacity(for: input.count, limit: arenaLimit),
                                       generation: Int(nextRequestID))
            }
            let arena = arena!
            if let base = input.baseAddress, input.count > 0 { arena.pointer.copyMemory(from: base, byteCount: input.count) }
            job.arena = arena.generation
            return (arena.descriptor, false)
        } catch {
            throw PipelineError.outOfMemory(bytes: input.count)
        }
    }

    private func awaitReady(timeout: Double, isCancelled: () -> Bool) throws {
        let message: WorkerMessage
        do {
            message = try awaitMessage(until: LinuxSystem.now() + timeout, isCancelled: isCancelled)
        } catch End.died(let status) {
            throw End.failedToStart("the worker exited before it was ready (\(Self.describe(status)))")
        } catch End.timedOut {
            throw End.failedToStart("the worker was not ready within \(timeout) s")
        }
        LinuxSystem.closeDescriptor(message.descriptor)
        guard message.kind == .ready, let ready = try? message.decodeBody(WorkerReady.self) else {
            terminate()
            throw End.failedToStart("the worker sent \(message.kind) instead of ready")
        }
        HostLog.write(level: IP_LOG_DEBUG, source: "isolation",
                      message: "worker \(pid) is ready with coders \(ready.coders.isEmpty ? "none" : ready.coders.joined(separator: ", ")) open")
        isReady = true
    }

    private func awaitMessage(until deadline: Double, isCancelled: () -> Bool) throws -> WorkerMessage {
        switch channel.wait(until: deadline, isCancelled: isCancelled) {
        case .timedOut:
            terminate()
            throw End.timedOut
        case .cancelled:
            terminate()
            throw End.cancelled
        case .readable:
            break
        }
        let received: WorkerChannel.Received
        do {
            received = try channel.receive()
        } catch {
            terminate()
            throw End.misbehaved("\(error)")
        }
        switch received {
        case .closed: throw End.died(status: collectExit())
        case .message(let message): return message
        }
    }

    /// True when the worker hung up (or, once ready, spoke out of turn) while idle: it must not get a request.
    /// Before its first request a pending message is its `ready`, read by that request.
    var isGone: Bool {
        if reaped { return true }
        switch channel.pending {
        case .nothing: return false
        case .hangUp: return true
        case .message: return isReady
        }
    }

    /// Kills (SIGKILL) and reaps the worker if that has not happened yet. Returns the waitpid status.
    @discardableResult
    func terminate() -> Int32 {
        guard !reaped else { return 0 }
        kill(pid, SIGKILL)
        return reap(flags: 0) ?? 0
    }

    /// After the socket closed: the worker is exiting. Waits briefly for its own exit status (so a crash is
    /// reported as its real signal), then kills it if it lingers.
    private func collectExit() -> Int32 {
        for _ in 0..<200 {
            if let status = reap(flags: WNOHANG) { return status }
            usleep(1000)
        }
        return terminate()
    }

    /// Asks the worker to leave (closing the socket makes it exit), then reaps it, killing it after `grace` seconds.
    func retire(grace: Double = 1) {
        guard !reaped else { return }
        shutdown(channel.fd, Int32(SHUT_RDWR))
        let deadline = LinuxSystem.now() + grace
        while LinuxSystem.now() < deadline {
            if reap(flags: WNOHANG) != nil { return }
            usleep(1000)
        }
        terminate()
    }

    private func reap(flags: Int32) -> Int32? {
        var status: Int32 = 0
        while true {
            let result = waitpid(pid, &status, flags)
            if result == pid { reaped = true; return status }
            if result == 0 { return nil }
            if errno == EINTR { continue }
            reaped = true  // ECHILD: someone else reaped it; nothing left to wait for
            return 0
        }
    }

    // MARK: waitpid status

    static func exitCode(_ status: Int32) -> Int32? { status & 0x7f == 0 ? (status >> 8) & 0xff : nil }

    static func signal(_ status: Int32) -> Int32? {
        let signal = status & 0x7f
        return signal != 0 && signal != 0x7f ? signal : nil
    }

    static func describe(_ status: Int32) -> String {
        if let code = exitCode(status) { return "exit status \(code)" }
        if let signal = signal(status) { return "killed by \(LinuxSystem.signalName(signal))" }
        return "status \(status)"
    }
}
