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
    /// Bytes this call's buffers hold now, and the allocation the memory budget refused (bytes asked for), if any.
    private let accounting = Mutex<(held: Int, refused: Int?)>((0, nil))

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
        guard !overflow, let raw = track(byteCount, { calloc($0, 1) }) else { return nil }
        return (raw, stride)
    }

    /// Allocates `count` bytes for data a result will point to (an ICC profile), under the memory budget.
    func allocate(bytes count: Int) -> UnsafeMutablePointer<UInt8>? {
        guard count > 0, count <= Self.maxByteAllocation else { return nil }
        return track(count, { malloc($0) })
    }

    /// Reserves `byteCount` in the call's budget (remembering a refusal), allocates with `allocator` and records
    /// the buffer as the call's; nil when refused or out of memory.
    private func track(_ byteCount: Int, _ allocator: (Int) -> UnsafeMutableRawPointer?) -> UnsafeMutablePointer<UInt8>? {
        let withinBudget = accounting.withLock { state -> Bool in
            guard (try? limits.checkMemory(holding: state.held, adding: byteCount)) != nil else {
                state.refused = state.held + byteCount
                return false
            }
            state.held += byteCount
            return true
        }
        guard withinBudget else { return nil }
        guard let raw = allocator(byteCount) else {
            accounting.withLock { $0.held -= byteCount }
            return nil
        }
        buffers.withLock { $0[UInt(bitPattern: raw)] = byteCount }
        return raw.assumingMemoryBound(to: UInt8.self)
    }

    /// Largest single `alloc_bytes` request: ICC profiles are kilobytes; a few camera profiles reach megabytes.
    static let maxByteAllocation = 64 << 20

    /// Copies `count` bytes of a buffer from `allocate(bytes:)` into an array and frees it; nil when the pointer is
    /// not one of this call's buffers or `count` overruns it.
    func takeBytes(_ pointer: UnsafeMutablePointer<UInt8>?, count: Int) -> [UInt8]? {
        guard let pointer, count >= 0 else { return nil }
        let size = buffers.withLock { $0[UInt(bitPattern: pointer)] }
        guard let size, count <= size else { return nil }
        let bytes = Array(UnsafeBufferPointer(start: pointer, count: count))
        release(UnsafeMutableRawPointer(pointer))
        return bytes
    }

    /// The error to report instead of the plugin's when the memory budget refused one of its allocations: the
    /// plugin only saw NULL, so its own message ("out of memory") would blame the machine.
    var budgetRefusal: PipelineError? {
        accounting.withLock { state in
            state.refused.map { .memoryBudgetExceeded(bytes: $0, budget: limits.maxMemoryBytes) }
        }
    }

    /// True when the limits refuse width x height (so the host can answer LIMIT_EXCEEDED rather than NO_MEMORY).
    func exceedsLimits(width: UInt32, height: UInt32) -> Bool {
        if limits.maxDimension > 0, Int(width) > limits.maxDimension || Int(height) > limits.maxDimension { return true }
        return limits.maxPixels > 0 && UInt64(width) * UInt64(height) > UInt64(limits.maxPixels)
    }

    func release(_ pointer: UnsafeMutableRawPointer) {
        let size = buffers.withLock { $0.removeValue(forKey: UInt(bitPattern: pointer)) }
        if let size {
            free(pointer)
            accounting.withLock { $0.held -= size }
        }
    }

    /// Moves a buffer the plugin returned into host ownership; nil when the pointer is not one of this call's.
    func adopt(_ pointer: UnsafeMutablePointer<UInt8>?) -> PixelStorage? {
        guard let pointer else { return nil }
        let size = buffers.withLock { $0.removeValue(forKey: UInt(bitPattern: pointer)) }
        guard let size else { return nil }
        // From here the image's owner accounts for it (the finishing step checks its buffers against the budget).
        accounting.withLock { $0.held -= size }
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
