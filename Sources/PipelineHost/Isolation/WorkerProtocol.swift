import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// The host ⇄ worker protocol: one SOCK_SEQPACKET message per request or reply (the socket keeps message
/// boundaries, so there is no stream reassembly), made of a fixed 24-byte header, a JSON body, and at most one
/// descriptor passed with SCM_RIGHTS (the input or output memfd).
///
/// Header, little-endian: magic "IPW1", kind, request id (echoed by the reply), body length, reserved (0).
/// Bodies are small (options, a header, an error), so JSON costs microseconds; pixels never travel in a body.
///
/// host → worker: `decode` and `probe` (`WorkerJob`; the input is in the worker's reusable input arena, whose memfd
/// travels once, or in a one-shot memfd).
/// worker → host: `ready` once at start (`WorkerReady`), then per request `image` (`WorkerImageHeader` + the sealed
/// output memfd), `info` (`ImageInfo`) or `failure` (`WorkerFailure`).
struct WorkerMessage {
    enum Kind: UInt32 {
        case ready = 1
        case decode = 2
        case probe = 3
        case image = 4
        case info = 5
        case failure = 6
        /// host → worker: every frame of an animation (`WorkerJob`); answered by `frameSet`.
        case frames = 7
        /// worker → host: `WorkerFrameSet` + one sealed memfd holding every frame's rows, one after another.
        case frameSet = 8
    }

    static let magic: UInt32 = 0x3157_5049  // "IPW1"
    static let headerSize = 24
    /// Largest body either side accepts (a body holds options or an error message, never pixels).
    static let maxBody = 256 << 10

    var kind: Kind
    var requestID: UInt64
    var body: [UInt8]
    /// A descriptor travelling with the message, owned by whoever holds the message; -1 for none.
    var descriptor: Int32 = -1

    init(kind: Kind, requestID: UInt64, body: [UInt8] = [], descriptor: Int32 = -1) {
        self.kind = kind
        self.requestID = requestID
        self.body = body
        self.descriptor = descriptor
    }

    init<T: Encodable>(kind: Kind, requestID: UInt64, json value: T, descriptor: Int32 = -1) throws {
        self.init(kind: kind, requestID: requestID, body: Array(try JSONEncoder().encode(value)), descriptor: descriptor)
    }

    func decodeBody<T: Decodable>(_ type: T.Type) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: Data(body))
        } catch {
            throw WorkerProtocolError("malformed \(kind) body: \(error)")
        }
    }

    /// The header and body as one buffer.
    var encoded: [UInt8] {
        var bytes = [UInt8]()
        bytes.reserveCapacity(Self.headerSize + body.count)
        func put32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }
        put32(Self.magic)
        put32(kind.rawValue)
        withUnsafeBytes(of: requestID.littleEndian) { bytes.append(contentsOf: $0) }
        put32(UInt32(body.count))
        put32(0)
        bytes.append(contentsOf: body)
        return bytes
    }

    /// Parses a received datagram; the descriptor is attached by the caller.
    init(parsing bytes: UnsafeRawBufferPointer) throws {
        guard bytes.count >= Self.headerSize else { throw WorkerProtocolError("short message of \(bytes.count) bytes") }
        func get32(_ at: Int) -> UInt32 { UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: at, as: UInt32.self)) }
        guard get32(0) == Self.magic else { throw WorkerProtocolError("bad magic \(get32(0))") }
        guard let kind = Kind(rawValue: get32(4)) else { throw WorkerProtocolError("unknown message kind \(get32(4))") }
        let length = Int(get32(16))
        guard length == bytes.count - Self.headerSize else {
            throw WorkerProtocolError("body length \(length) does not match the \(bytes.count)-byte message")
        }
        self.kind = kind
        requestID = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        body = Array(bytes[Self.headerSize...])
    }
}

/// The protocol was broken (by a worker that is then discarded, or by an unexpected program on the socket).
struct WorkerProtocolError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Sent once by a worker when it is ready to serve.
struct WorkerReady: Codable {
    var pid: Int32
    /// The coders it has opened so far (its preload); the rest are found on demand.
    var coders: [String]
}

/// A decode or probe request.
struct WorkerJob: Codable {
    var coderID: String
    var options: DecodeOptions
    var inputSize: Int
    /// Where the input is: in the worker's input arena of this generation (the attached descriptor, if any, is a
    /// new arena), or, when nil, in the attached one-shot memfd.
    var arena: Int?
    /// CPU seconds the worker may spend on this request (RLIMIT_CPU backstop behind the host's wall-clock deadline).
    var cpuSeconds: Int
    /// Ask the coder's sniff first and answer `notThisCoder` when it declines: the host then never loads a coder it
    /// isolates just to confirm a magic match (for librsvg that load alone is ~5 ms of a 13 ms render).
    var confirmWithSniff = false
    /// The file the host's registry found the coder in: the worker opens it directly instead of scanning its whole
    /// search path first (a scan happens only for a coder it cannot find this way).
    var pluginPath: String?
}

/// The frames of an animation decoded in a worker: each frame's header (its colour, the same for all, once) and the
/// loop count; the pixels follow one another in the attached memfd in this order.
struct WorkerFrameSet: Codable {
    var frames: [WorkerImageHeader]
    var color: ColorDescription?
    var loopCount: Int?
}

/// The facts of an image whose pixels travel in the attached memfd (rows tightly packed).
struct WorkerImageHeader: Codable {
    var width: Int
    var height: Int
    var stride: Int
    var format: String  // "rgba8" | "rgba16"
    var alpha: String  // "none" | "straight" | "premultiplied"
    var durationMilliseconds: Int
    var index: Int
    var byteCount: Int
    /// The colour space the pixels are in when it is not sRGB (a kept profile travels as base64 in the body).
    var color: ColorDescription?

    init(_ image: Image) {
        width = image.width
        height = image.height
        stride = image.width * image.pixelFormat.bytesPerPixel
        format = image.pixelFormat == .rgba8 ? "rgba8" : "rgba16"
        alpha = switch image.alphaMode {
        case .none: "none"
        case .straight: "straight"
        case .premultiplied: "premultiplied"
        }
        durationMilliseconds = image.durationMilliseconds
        index = image.index
        byteCount = stride * image.height
        color = image.color
    }

    /// A copy of the image whose rows are `bytes` (one frame of a frame set).
    func image(bytes: UnsafeRawBufferPointer) throws -> Image {
        guard let storage = PixelStorage(byteCount: byteCount) else { throw PipelineError.memoryBudgetExceeded(bytes: byteCount, budget: 0) }
        storage.pointer.update(from: bytes.bindMemory(to: UInt8.self).baseAddress!, count: min(byteCount, bytes.count))
        return try image(storage: storage)
    }

    /// Rebuilds the image over adopted storage, after checking that the header fits it.
    func image(storage: PixelStorage) throws -> Image {
        let pixelFormat: PixelFormat
        switch format {
        case "rgba8": pixelFormat = .rgba8
        case "rgba16": pixelFormat = .rgba16
        default: throw WorkerProtocolError("unknown pixel format \(format)")
        }
        let alphaMode: AlphaMode
        switch alpha {
        case "none": alphaMode = .none
        case "straight": alphaMode = .straight
        case "premultiplied": alphaMode = .premultiplied
        default: throw WorkerProtocolError("unknown alpha mode \(alpha)")
        }
        guard width > 0, height > 0, stride == width * pixelFormat.bytesPerPixel, byteCount == stride * height,
              storage.byteCount >= byteCount else {
            throw WorkerProtocolError("image \(width)x\(height) stride \(stride) does not match its \(storage.byteCount)-byte buffer")
        }
        return Image(width: width, height: height, stride: stride, pixelFormat: pixelFormat, alphaMode: alphaMode,
                     durationMilliseconds: durationMilliseconds, index: index, color: color, storage: storage)
    }
}

/// The protocol's JSON run once on sample values, so that the host's first real message does not pay Swift's
/// one-time costs (type metadata built from mangled names, the Codable paths): perf put the first `WorkerReady`
/// decode and `WorkerJob` encode at about 1.2 ms between a new worker's ready and the host's request. The host runs
/// it while its first worker loads its plugin, so it overlaps that load instead of following it. (A worker has no
/// such idle time: whatever it runs before its plugin load delays the load.)
enum WorkerProtocolWarmUp {
    /// What the host decodes from a worker (its first request's own encoding it warms by encoding that request).
    static func host() {
        if let message = try? WorkerMessage(kind: .ready, requestID: 0, json: WorkerReady(pid: 0, coders: [""])) {
            _ = try? message.decodeBody(WorkerReady.self)
        }
        if let image = try? Image(width: 1, height: 1), let message = try? WorkerMessage(kind: .image, requestID: 0, json: WorkerImageHeader(image)) {
            _ = try? message.decodeBody(WorkerImageHeader.self)
        }
    }
}
