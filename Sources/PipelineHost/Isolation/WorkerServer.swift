#if canImport(Glibc)
import Glibc
#endif

/// The worker side: a process that loads plugins lazily from the search path it is given and serves decode and
/// probe requests on an inherited socket, one at a time, until the host closes the socket.
///
/// A program offers worker mode by calling `WorkerServer.main(arguments:)` for its hidden subcommand (the CLI's is
/// `imagepipe __worker`); `WorkerPool` starts it with:
/// `__worker --socket-fd N --parent PID --memory-limit BYTES --registry-cache PATH|off [--no-seccomp] --plugin-dir DIR...
/// [--preload PLUGIN.so]... [--preload-extension EXT [--preload-every-coder]]`
///
/// Each request runs the same code as an in-process decode (`PluginCoder.decodeRaw` then `CodersManager.finish`),
/// so isolated and in-process results are identical pixel for pixel; the finished image is written into a sealed
/// memfd that the host maps as the Image's storage.
public enum WorkerServer {
    /// The subcommand name the pool passes as the first argument.
    public static let subcommand = "__worker"

    /// Runs the worker until the host goes away. Never returns.
    public static func main(arguments: [String]) -> Never { main(arguments: arguments, resolved: nil) }

    /// `resolved`: a preload hint the preforked child looked up before its settings came (see `PreforkedWorker`).
    static func main(arguments: [String], resolved: ResolvedPreload?) -> Never {
        let options: Options
        do {
            options = try Options(arguments)
        } catch {
            HostLog.write(level: 3, source: "worker", message: "\(error)")
            exit(WorkerExit.startupFailed)
        }
        let channel = WorkerChannel(fd: options.socket)
        do {
            _ = try Sandbox.apply(Sandbox.Settings(memoryLimit: options.memoryLimit, parent: options.parent, seccomp: options.seccomp))
        } catch {
            HostLog.write(level: 3, source: "worker", message: "sandbox: \(error)")
            exit(WorkerExit.startupFailed)
        }
        let coders = WorkerCoders(searchPath: PluginSearchPath(directories: options.pluginDirectories), cachePath: options.registryCache)
        // The plugin the host expects to need first opens before `ready`, while the host is still reading the input.
        options.preload.forEach(coders.open)
        if let hint = options.preloadHint { coders.preload(hint, resolved: resolved) }
        let ready = WorkerReady(pid: getpid(), coders: coders.knownIDs)
        guard (try? channel.send(WorkerMessage(kind: .ready, requestID: 0, json: ready))) != nil else { exit(0) }
        let server = Server(channel: channel, coders: coders)
        while true {
            let received: WorkerChannel.Received
            do {
                received = try channel.receive()
            } catch {
                exit(WorkerExit.startupFailed)
            }
            guard case .message(let message) = received else { exit(0) }  // the host closed the socket
            server.serve(message)
        }
    }

    struct Options {
        var socket: Int32 = -1
        var parent: pid_t = 0
        var memoryLimit = 0
        var registryCache: String?
        var seccomp = true
        var pluginDirectories: [String] = []
        var preload: [String] = []
        var preloadHint: PreloadHint?

        init(_ arguments: [String]) throws {
            var index = 0
            func value() throws -> String {
                index += 1
                guard index < arguments.count else { throw WorkerProtocolError("\(arguments[index - 1]) needs a value") }
                return arguments[index]
            }
            while index < arguments.count {
                switch arguments[index] {
                case "--socket-fd": socket = Int32(try value()) ?? -1
                case "--parent": parent = pid_t(try value()) ?? 0
                case "--memory-limit": memoryLimit = Int(try value()) ?? 0
                case "--registry-cache":
                    let path = try value()
                    registryCache = path == "off" ? nil : path
                case "--no-seccomp": seccomp = false
                case "--plugin-dir": pluginDirectories.append(try value())
                case "--preload": preload.append(try value())
                case "--preload-extension": preloadHint = PreloadHint(fileExtension: try value(), everyCoderIsolated: preloadHint?.everyCoderIsolated ?? false)
                case "--preload-every-coder":
                    guard preloadHint != nil else { throw WorkerProtocolError("--preload-every-coder needs --preload-extension before it") }
                    preloadHint?.everyCoderIsolated = true
                default: throw WorkerProtocolError("unknown worker argument '\(arguments[index])'")
                }
                index += 1
            }
            guard socket >= 0 else { throw WorkerProtocolError("worker mode needs --socket-fd") }
        }
    }

    /// Serves one request at a time.
    final class Server {
        let channel: WorkerChannel
        let coders: WorkerCoders
        /// The host's input arena, mapped read-only, and its generation.
        private var arena: MappedRegion?
        private var arenaGeneration: Int?

        init(channel: WorkerChannel, coders: WorkerCoders) {
            self.channel = channel
            self.coders = coders
        }

        /// The request's input bytes, and a mapping to release afterwards (one-shot inputs only).
        private func input(for job: WorkerJob, descriptor: Int32) throws -> (UnsafeRawBufferPointer, MappedRegion?) {
            guard let generation = job.arena else {
                guard descriptor >= 0 else { throw WorkerProtocolError("request without input") }
                let region = try SharedMemory.mapInput(descriptor, size: job.inputSize)
                return (region.bytes, region)
            }
            if descriptor >= 0 {
                arena?.unmap()
                arena = nil
                arena = try SharedMemory.mapInput(descriptor)
                arenaGeneration = generation
            }
            guard let arena, arenaGeneration == generation, job.inputSize <= arena.length else {
                throw WorkerProtocolError("input arena \(generation) is not the one this worker holds")
            }
            return (UnsafeRawBufferPointer(rebasing: arena.bytes[0..<job.inputSize]), nil)
        }

        func serve(_ message: WorkerMessage) {
            let input = message.descriptor
            defer { LinuxSystem.closeDescriptor(input) }
            let reply: WorkerMessage
            do {
                guard message.kind == .decode || message.kind == .probe || message.kind == .frames else {
                    throw WorkerProtocolError("unexpected \(message.kind) request")
                }
                let job = try message.decodeBody(WorkerJob.self)
                let (bytes, oneShot) = try self.input(for: job, descriptor: input)
                defer { oneShot?.unmap() }
                guard let coder = coders.coder(job.coderID, file: job.pluginPath) else {
                    throw PipelineError.invalidArgument("the worker has no coder \(job.coderID) on its plugin search path")
                }
                Sandbox.limitCPU(seconds: job.cpuSeconds)
                errno = 0
                if job.confirmWithSniff, !CoderSelection.confirms(coder, bytes) {
                    reply = try WorkerMessage(kind: .failure, requestID: message.requestID,
                                              json: WorkerFailure.notThisCoder(coder: job.coderID))
                } else if message.kind == .frames {
                    let animation = try CodersManager.animationInProcess(Array(bytes), coder: coder, options: job.options, transformers: [])
                    let set = WorkerFrameSet(frames: animation.frames.map { var h = WorkerImageHeader($0); h.color = nil; return h },
                                             color: animation.frames.first?.color, loopCount: animation.loopCount)
                    let output = try SharedMemory.makeOutput(images: animation.frames)
                    defer { LinuxSystem.closeDescriptor(output) }
                    try channel.send(try WorkerMessage(kind: .frameSet, requestID: message.requestID, json: set, descriptor: output))
                    return
                } else if message.kind == .probe {
                    let info = try coder.probe(bytes, options: job.options)
                    reply = try WorkerMessage(kind: .info, requestID: message.requestID, json: info)
                } else {
                    let context = CallContext(limits: job.options.limits)
                    let image = try DecodePlan.decode(bytes, coder: coder, options: job.options, context: context)
                    let header = WorkerImageHeader(image)
                    let output = try image.withUnsafeRows { rows in
                        try SharedMemory.makeOutput(rows: rows, stride: image.stride, rowBytes: header.stride, height: image.height)
                    }
                    defer { LinuxSystem.closeDescriptor(output) }
                    try channel.send(try WorkerMessage(kind: .image, requestID: message.requestID, json: header, descriptor: output))
                    return
                }
            } catch {
                let failure = WorkerFailure(error)
                guard let message = try? WorkerMessage(kind: .failure, requestID: message.requestID, json: failure) else { exit(WorkerExit.startupFailed) }
                reply = message
                if failure.isOutOfMemory {
                    // The cap was hit: report it, then leave so the host starts a fresh worker (this heap is spent).
                    try? channel.send(reply)
                    exit(WorkerExit.memoryExhausted)
                }
            }
            if (try? channel.send(reply)) == nil { exit(0) }
        }
    }
}
