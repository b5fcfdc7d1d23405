#if canImport(Glibc)
import Glibc
#endif
import PluginAPI
import Synchronization

/// The host side of one plugin call (the ABI's opaque `ip_call`): its limits, its cancellation flag and the
/// pixel buffers the plugin allocated during it.
///
/// Buffers are tracked so that a plugin's error path needs no cleanup: whatever the result does not adopt is
/// freed when the context is finished. The plugin sees only an opaque pointer to this object.
final class CallContext: Sendable {
    let limits: DecodeLimits
    private let cancelledFlag = Atomic<Bool>(false)
    private let buffers = Mutex<[UInt: Int]>([:])  // buffer address → byte count

    init(limits: DecodeLimits) { self.limits = limits }

    deinit { finish() }

    var isCancelled: Bool { cancelledFlag.load(ordering: .relaxed) }
    func cancel() { cancelledFlag.store(true, ordering: .relaxed) }

    /// The pointer handed to plugins. Valid while the caller keeps this object alive.
    var handle: OpaquePointer { OpaquePointer(Unmanaged.passUnretained(self).toOpaque()) }

    static func from(_ handle: OpaquePointer?) -> CallContext? {
        guard let handle else { return nil }
        return Unmanaged<CallContext>.fromOpaque(UnsafeRawPointer(handle)).takeUnretainedValue()
    }

    /// Allocates a zeroed buffer for the plugin after checking the call's limits.
    func allocate(width: UInt32, height: UInt32, format: PixelFormat) -> (UnsafeMutablePointer<UInt8>, Int)? {
        let pixels = UInt64(width) * UInt64(height)
        guard width > 0, height > 0, limits.maxDimension <= 0 || (Int(width) <= limits.maxDimension && Int(height) <= limits.maxDimension),
              limits.maxPixels <= 0 || pixels <= UInt64(limits.maxPixels) else { return nil }
        let stride = Int(width) * format.bytesPerPixel
        let (byteCount, overflow) = stride.multipliedReportingOverflow(by: Int(height))
        guard !overflow, let raw = calloc(byteCount, 1) else { return nil }
        buffers.withLock { $0[UInt(bitPattern: raw)] = byteCount }
        return (raw.assumingMemoryBound(to: UInt8.self), stride)
    }

    /// True when the limits refuse width x height (so the host can answer LIMIT_EXCEEDED rather than NO_MEMORY).
    func exceedsLimits(width: UInt32, height: UInt32) -> Bool {
        if limits.maxDimension > 0, Int(width) > limits.maxDimension || Int(height) > limits.maxDimension { return true }
        return limits.maxPixels > 0 && UInt64(width) * UInt64(height) > UInt64(limits.maxPixels)
    }

    func release(_ pointer: UnsafeMutableRawPointer) {
        let known = buffers.withLock { $0.removeValue(forKey: UInt(bitPattern: pointer)) != nil }
        if known { free(pointer) }
    }

    /// Moves a buffer the plugin returned into host ownership; nil when the pointer is not one of this call's.
    func adopt(_ pointer: UnsafeMutablePointer<UInt8>?) -> PixelStorage? {
        guard let pointer else { return nil }
        let size = buffers.withLock { $0.removeValue(forKey: UInt(bitPattern: pointer)) }
        guard let size else { return nil }
        return PixelStorage(adopting: pointer, byteCount: size)
    }

    /// Frees every buffer the result did not adopt.
    func finish() {
        let leftovers = buffers.withLock { current -> [UInt] in
            defer { current.removeAll() }
            return Array(current.keys)
        }
        for address in leftovers { free(UnsafeMutableRawPointer(bitPattern: address)) }
    }
}
