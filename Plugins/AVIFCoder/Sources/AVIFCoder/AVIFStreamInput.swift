import CAVIF
import Glibc
import PluginAPI
import PluginKit

/// The bytes of a download so far, as an avifIO that answers AVIF_RESULT_WAITING_ON_IO for bytes not yet here.
///
/// Why a copy: the ABI lends an incremental update's bytes only for that call, while libavif's decoder lives across
/// calls. Each update appends the new tail (the host passes every byte so far) to a buffer owned here.
/// Why `persistent` is false: the buffer moves when it grows (realloc), so libavif must not keep pointers from one
/// read to a later call. With a non-persistent avifIO it copies every sample and box it keeps, and a region
/// returned by `read` only has to last until the next read (avif.h). The buffer changes only between libavif calls.
/// Why `sizeHint` is the input limit: libavif refuses items and samples larger than the hint (a sanity check
/// against hostile sizes). While streaming, the file's size is unknown, so the request's `max_input_bytes` bounds it
/// (4 GiB when the host sets no limit).
final class AVIFStreamInput {
    /// Owned by this object, handed to avifDecoderSetIO without a destroy function: the decoder never frees it.
    let io: UnsafeMutablePointer<avifIO>
    private var storage: UnsafeMutablePointer<UInt8>?
    private var capacity = 0
    private(set) var count = 0
    /// No more bytes will come: reads past the end get the bytes up to it, as from avifIOCreateMemoryReader.
    private(set) var isFinal = false

    init(sizeLimit: UInt64) {
        io = .allocate(capacity: 1)
        io.initialize(to: avifIO(
            destroy: nil, read: streamRead, write: nil, sizeHint: sizeLimit > 0 ? sizeLimit : 1 << 32,
            persistent: AVIF_FALSE, data: nil))
        io.pointee.data = Unmanaged.passUnretained(self).toOpaque()
    }

    deinit {
        free(storage)
        io.deinitialize(count: 1)
        io.deallocate()
    }

    /// The bytes received so far (valid until the next `append`).
    var bytes: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: storage, count: count) }

    /// Takes every byte received so far (`data` starts with the bytes already held) and keeps the new tail.
    func append(_ data: UnsafeBufferPointer<UInt8>, isFinal final: Bool) throws {
        guard data.count >= count else {
            throw PluginFailure.internalError("incremental update with \(data.count) bytes after \(count): the data shrank")
        }
        if data.count > count, let source = data.baseAddress {
            if data.count > capacity {
                let grown = max(data.count, capacity * 2, 64 << 10)
                guard let moved = realloc(storage, grown) else {
                    throw PluginFailure(IP_STATUS_NO_MEMORY, "cannot keep \(data.count) input bytes")
                }
                storage = moved.assumingMemoryBound(to: UInt8.self)
                capacity = grown
            }
            (storage! + count).update(from: source + count, count: data.count - count)
            count = data.count
        }
        isFinal = final
    }

    /// avifIOReadFunc semantics (avif.h): OK with the range, a short range at the end of a final input, an error
    /// past the end of a final input, and WAITING_ON_IO for anything not received yet.
    fileprivate func read(flags: UInt32, offset: UInt64, size: Int, into out: UnsafeMutablePointer<avifROData>) -> avifResult {
        guard flags == 0 else { return AVIF_RESULT_IO_ERROR }
        guard offset <= UInt64(count) else { return isFinal ? AVIF_RESULT_IO_ERROR : AVIF_RESULT_WAITING_ON_IO }
        let start = Int(offset)
        var length = size
        if length > count - start {
            guard isFinal else { return AVIF_RESULT_WAITING_ON_IO }
            length = count - start
        }
        out.pointee.data = UnsafePointer(storage.map { $0 + start })
        out.pointee.size = length
        return AVIF_RESULT_OK
    }
}

/// The avifIO read function: a C function pointer, so it finds its input through `io.data`.
private let streamRead: avifIOReadFunc = { io, flags, offset, size, out in
    guard let io, let out, let context = io.pointee.data else { return AVIF_RESULT_IO_ERROR }
    let input = Unmanaged<AVIFStreamInput>.fromOpaque(context).takeUnretainedValue()
    return input.read(flags: flags, offset: offset, size: size, into: out)
}
