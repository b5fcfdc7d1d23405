#if canImport(Glibc)
import Glibc
#endif
import PipelineHost
import PluginAPI
import Synchronization

/// The host services a plugin under test receives: the same contract as the real host's (`alloc_pixels` within the
/// call's limits, zeroed, exact size; cancellation; logging), instrumented for the checks.
///
/// Buffers come from `GuardedMemory` (a guard page right after the last byte), requests beyond the call's limits
/// are recorded (the plugin should have checked the limits itself before asking), cancellation polls are counted.
enum TestHost {
    static var table: UnsafePointer<ip_host> { made.pointer }

    private static let made = UnsafeSendablePointer<ip_host>(pointer: {
        let pointer = UnsafeMutablePointer<ip_host>.allocate(capacity: 1)
        pointer.initialize(to: ip_host(
            struct_size: UInt32(MemoryLayout<ip_host>.size),
            abi_major: UInt32(IP_ABI_MAJOR), abi_minor: UInt32(IP_ABI_MINOR),
            name: strdup("imagepipe plugin test").map { UnsafePointer($0) },
            version: strdup(ImagepipeVersion.string).map { UnsafePointer($0) },
            host_data: nil,
            get_extension: { host, _ in
                TestHost.checkHost(host, "get_extension")
                return nil
            },
            alloc_pixels: { host, call, width, height, format, image in
                TestHost.checkHost(host, "alloc_pixels")
                guard let image, let context = TestCall.from(call) else { return ip_status(IP_STATUS_INTERNAL) }
                return context.allocate(width: width, height: height, format: format, into: image)
            },
            free_pixels: { host, call, pixels in
                TestHost.checkHost(host, "free_pixels")
                guard let pixels, let context = TestCall.from(call) else { return }
                context.release(pixels)
            },
            is_cancelled: { host, call in
                TestHost.checkHost(host, "is_cancelled")
                guard let context = TestCall.from(call) else { return 0 }
                return context.poll() ? 1 : 0
            },
            log: { host, level, message in
                TestHost.checkHost(host, "log")
                let text = message.map { String(cString: $0) } ?? ""
                TestHost.logLines.withLock { $0.append("level \(level): \(text)") }
            },
            alloc_bytes: { host, call, size in
                TestHost.checkHost(host, "alloc_bytes")
                guard let context = TestCall.from(call) else { return nil }
                return context.allocate(bytes: size)
            },
            place: { host, request, placement in
                TestHost.checkHost(host, "place")
                return HostServices.placeService(request, placement)
            }))
        return UnsafePointer(pointer)
    }())

    /// Services called with a host pointer other than the table the plugin was given (the ABI: every service gets
    /// the `ip_host` it was reached through), by service name.
    static let foreignHostCalls = Mutex<[String]>([])

    static func checkHost(_ host: UnsafePointer<ip_host>?, _ service: String) {
        if host != table { foreignHostCalls.withLock { if !$0.contains(service) { $0.append(service) } } }
    }

    /// What plugins logged (the global-state check shows it; nothing is printed).
    static let logLines = Mutex<[String]>([])
}

/// One plugin call's `ip_call`: limits, cancellation, the buffers handed out, and what the checks want to know
/// about them afterwards. `Sendable` through its locks and atomics; the plugin sees an opaque pointer to it.
final class TestCall: Sendable {
    let limits: ip_limits
    private let cancelled = Atomic<Bool>(false)
    private let polls = Atomic<Int>(0)
    private let blocks = Mutex<[UInt: GuardedMemory.Block]>([:])
    private let notes = Mutex<[String]>([])
    /// Cancels at the first poll after this many polls (nil = never by itself).
    private let cancelAfterPolls: Int?

    init(limits: ip_limits = TestCall.defaultLimits, cancelAfterPolls: Int? = nil) {
        self.limits = limits
        self.cancelAfterPolls = cancelAfterPolls
    }

    deinit { finish() }

    /// The host's defaults (DecodeLimits()).
    static let defaultLimits = ip_limits(struct_size: UInt32(MemoryLayout<ip_limits>.size), max_pixels: 16384 * 16384,
                                         max_dimension: 65535, max_frames: 10000, max_input_bytes: 512 << 20)

    var handle: OpaquePointer { OpaquePointer(Unmanaged.passUnretained(self).toOpaque()) }

    static func from(_ handle: OpaquePointer?) -> TestCall? {
        guard let handle else { return nil }
        return Unmanaged<TestCall>.fromOpaque(UnsafeRawPointer(handle)).takeUnretainedValue()
    }

    func cancel() { cancelled.store(true, ordering: .releasing) }
    var isCancelled: Bool { cancelled.load(ordering: .acquiring) }
    var pollCount: Int { polls.load(ordering: .relaxed) }
    /// Problems seen in host calls (allocations beyond limits, canaries, frees of unknown buffers).
    var problems: [String] { notes.withLock { $0 } }

    func poll() -> Bool {
        let count = polls.wrappingAdd(1, ordering: .relaxed).newValue
        if let cancelAfterPolls, count > cancelAfterPolls { cancel() }
        return isCancelled
    }

    func allocate(width: UInt32, height: UInt32, format: ip_pixel_format, into image: UnsafeMutablePointer<ip_image>) -> ip_status {
        let bytesPerPixel: Int
        switch format {
        case IP_PIXEL_RGBA8: bytesPerPixel = 4
        case IP_PIXEL_RGBA16: bytesPerPixel = 8
        default:
            note("alloc_pixels asked for unknown pixel format \(format)")
            return ip_status(IP_STATUS_UNSUPPORTED)
        }
        guard width > 0, height > 0 else {
            note("alloc_pixels asked for an empty \(width)x\(height) image")
            return ip_status(IP_STATUS_LIMIT_EXCEEDED)
        }
        let pixels = UInt64(width) * UInt64(height)
        if (limits.max_dimension > 0 && (width > limits.max_dimension || height > limits.max_dimension))
            || (limits.max_pixels > 0 && pixels > limits.max_pixels) {
            note("asked alloc_pixels for \(width)x\(height), beyond the call's limits (max \(limits.max_pixels) pixels, "
                 + "\(limits.max_dimension) per side): limits must be checked before allocating")
            return ip_status(IP_STATUS_LIMIT_EXCEEDED)
        }
        let stride = Int(width) * bytesPerPixel
        let (byteCount, overflow) = stride.multipliedReportingOverflow(by: Int(height))
        guard !overflow, let block = GuardedMemory.allocate(byteCount: byteCount) else { return ip_status(IP_STATUS_NO_MEMORY) }
        blocks.withLock { $0[UInt(bitPattern: block.buffer)] = block }
        image.pointee.width = width
        image.pointee.height = height
        image.pointee.stride = UInt32(stride)
        image.pointee.format = format
        image.pointee.pixels = block.buffer
        return ip_status(IP_STATUS_OK)
    }

    /// A guarded byte buffer (ICC profiles): an overrun faults at once; freed with the call unless adopted.
    func allocate(bytes size: Int) -> UnsafeMutablePointer<UInt8>? {
        guard size > 0, size <= 64 << 20 else {
            note("alloc_bytes asked for \(size) bytes (allowed: 1 byte to 64 MiB)")
            return nil
        }
        guard let block = GuardedMemory.allocate(byteCount: size) else { return nil }
        blocks.withLock { $0[UInt(bitPattern: block.buffer)] = block }
        return block.buffer
    }

    func release(_ pixels: UnsafeMutablePointer<UInt8>) {
        guard let block = blocks.withLock({ $0.removeValue(forKey: UInt(bitPattern: pixels)) }) else {
            note("free_pixels was given a pointer that alloc_pixels did not return for this call")
            return
        }
        checkCanary(block)
        GuardedMemory.release(block)
    }

    /// The buffer a returned image points at, taken out of the call (the check owns it now); nil when the pointer
    /// is not one of this call's buffers.
    func adopt(_ pixels: UnsafeMutablePointer<UInt8>?) -> GuardedMemory.Block? {
        guard let pixels, let block = blocks.withLock({ $0.removeValue(forKey: UInt(bitPattern: pixels)) }) else { return nil }
        checkCanary(block)
        return block
    }

    /// Frees what nobody adopted (a plugin's error path need not free; the real host does the same).
    func finish() {
        let left = blocks.withLock { current -> [GuardedMemory.Block] in
            defer { current.removeAll() }
            return Array(current.values)
        }
        for block in left {
            checkCanary(block)
            GuardedMemory.release(block)
        }
    }

    private func checkCanary(_ block: GuardedMemory.Block) {
        if !GuardedMemory.canaryIntact(block) {
            note("wrote before the start of a \(block.byteCount)-byte pixel buffer from alloc_pixels")
        }
    }

    private func note(_ text: String) { notes.withLock { if !$0.contains(text) { $0.append(text) } } }
}
