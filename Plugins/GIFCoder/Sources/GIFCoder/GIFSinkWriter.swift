import CGIF
import PluginAPI
import PluginKit

/// giflib's output callback: appends to the `GIFSinkWriter` in `UserData`; 0 tells giflib the write failed.
let gifSinkWrite: OutputFunc = { gif, bytes, length in
    guard let gif, let bytes, length >= 0, let user = gif.pointee.UserData else { return 0 }
    let writer = Unmanaged<GIFSinkWriter>.fromOpaque(user).takeUnretainedValue()
    return writer.append(UnsafeBufferPointer(start: bytes, count: Int(length))) ? length : 0
}

/// Collects giflib's small writes (one per 255-byte sub-block) and passes them to the host's sink in 64 KiB pieces.
/// Remembers the sink's status when it refuses, so the encoder reports LIMIT_EXCEEDED / NO_MEMORY, not a giflib error.
final class GIFSinkWriter {
    private let sink: UnsafePointer<ip_byte_sink>
    private var buffer: [UInt8] = []
    private(set) var failure: PluginFailure?
    private static let chunk = 1 << 16

    init(_ sink: UnsafePointer<ip_byte_sink>) {
        self.sink = sink
        buffer.reserveCapacity(Self.chunk)
    }

    /// The pointer giflib keeps as UserData. Unretained: the encoder keeps the writer alive until giflib is closed.
    var context: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    func append(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard failure == nil else { return false }
        buffer.append(contentsOf: bytes)
        if buffer.count >= Self.chunk { return (try? flush()) != nil }
        return true
    }

    func flush() throws {
        if let failure { throw failure }
        guard !buffer.isEmpty, let write = sink.pointee.write else { return }
        let status = buffer.withUnsafeBufferPointer { write(sink.pointee.context, $0.baseAddress, $0.count) }
        buffer.removeAll(keepingCapacity: true)
        guard status == ip_status(IP_STATUS_OK) else {
            let failure = PluginFailure(status, status == ip_status(IP_STATUS_LIMIT_EXCEEDED)
                ? "the encoded GIF exceeds the output limit" : "the output sink refused the GIF's bytes (status \(status))")
            self.failure = failure
            throw failure
        }
    }

    /// Turns a failed giflib call into the sink's failure, or a giflib error.
    func check(_ result: Int32, _ gif: UnsafeMutablePointer<GifFileType>, _ action: String) throws {
        guard result != GIF_OK else { return }
        if let failure { throw failure }
        let code = gif.pointee.Error
        let reason = GifErrorString(code).map { String(cString: $0) } ?? "error \(code)"
        throw PluginFailure.internalError("giflib failed while \(action): \(reason)")
    }
}
