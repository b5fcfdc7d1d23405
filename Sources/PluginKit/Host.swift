import PluginAPI
import Synchronization

/// The host's service table as seen from inside a plugin, written by the entry's `init` and read by every service
/// call (an atomic load: `is_cancelled` is polled per row). Every service is called with this table, the plugin's
/// own: that is how the host knows who calls (a log line is attributed by the host, not by an ID we pass).
/// (Kept as the address: an atomic pointer type would not be Sendable.)
private let hostTable = Atomic<UInt>(0)

/// The path the host loaded this plugin from (given to `init`), for plugins that keep data beside their .so.
private let pluginPathGiven = Mutex<String?>(nil)

private var currentHost: UnsafePointer<ip_host>? {
    UnsafePointer(bitPattern: hostTable.load(ordering: .acquiring))
}

/// A length in pixels as the host's placement rounds it: to the nearest integer, at least 1.
public func roundDimension(_ value: Double) -> UInt32 {
    if !(value >= 1) { return 1 }
    if value > 4_294_967_295 { return UInt32.max }
    return UInt32(value + 0.5)
}

public enum Host {
    /// Remembers the host table and the plugin's path; called by `PluginEntry`'s init.
    static func attach(_ host: UnsafePointer<ip_host>?, pluginPath: UnsafePointer<CChar>?) {
        let path = pluginPath.map { String(cString: $0) }
        pluginPathGiven.withLock { $0 = path }
        hostTable.store(UInt(bitPattern: host), ordering: .releasing)
    }

    /// The absolute path of this plugin's .so, once initialised.
    public static var pluginPath: String? { pluginPathGiven.withLock { $0 } }

    /// True when the host's table is at least large enough to hold the slot at `offset` (an older host may lack
    /// slots a later minor appends; 1.0's are always there).
    private static func has(_ host: UnsafePointer<ip_host>, slotAt offset: Int) -> Bool {
        Int(host.pointee.struct_size) >= offset + MemoryLayout<UnsafeRawPointer>.size
    }

    /// Allocates a zeroed, host-owned pixel buffer within the call's limits.
    public static func allocatePixels(
        _ call: OpaquePointer?, width: Int, height: Int, format: Int32 = IP_PIXEL_RGBA8
    ) throws -> ip_image {
        guard let host = currentHost, let alloc = host.pointee.alloc_pixels else {
            throw PluginFailure.internalError("plugin used before init")
        }
        guard width > 0, height > 0, width <= Int(UInt32.max), height <= Int(UInt32.max) else {
            throw PluginFailure.limitExceeded("image size \(width)x\(height) is out of range")
        }
        var image = ip_image()
        image.struct_size = UInt32(MemoryLayout<ip_image>.size)
        let status = alloc(host, call, UInt32(width), UInt32(height), ip_pixel_format(format), &image)
        switch status {
        case ip_status(IP_STATUS_OK): return image
        case ip_status(IP_STATUS_LIMIT_EXCEEDED):
            throw PluginFailure.limitExceeded("a \(width)x\(height) image exceeds the pixel limit")
        default:
            throw PluginFailure(IP_STATUS_NO_MEMORY, "cannot allocate a \(width)x\(height) image")
        }
    }

    /// Returns a scratch buffer early; buffers not returned are reclaimed when the call ends.
    public static func freePixels(_ call: OpaquePointer?, _ pixels: UnsafeMutablePointer<UInt8>?) {
        guard let pixels, let host = currentHost, let free = host.pointee.free_pixels else { return }
        free(host, call, pixels)
    }

    /// Host-owned bytes for data a result points to (an ICC profile); nil when the host refuses.
    public static func allocateBytes(_ call: OpaquePointer?, count: Int) -> UnsafeMutablePointer<UInt8>? {
        guard let host = currentHost, count > 0, let alloc = host.pointee.alloc_bytes else { return nil }
        return alloc(host, call, count)
    }

    public static func isCancelled(_ call: OpaquePointer?) -> Bool {
        guard let host = currentHost, let check = host.pointee.is_cancelled else { return false }
        return check(host, call) != 0
    }

    /// Throws `PluginFailure.cancelled` when the caller has cancelled.
    public static func checkCancellation(_ call: OpaquePointer?) throws {
        if isCancelled(call) { throw PluginFailure.cancelled }
    }

    /// One line in the host's log, which names this plugin itself.
    public static func log(_ level: Int32, _ message: String) {
        guard let host = currentHost, let log = host.pointee.log else { return }
        message.withCString { text in log(host, ip_log_level(level), text) }
    }

    /// The host's placement (fit / fill / aspect-fill) of a source for a requested box: the one computation every
    /// coder that renders at size and the host's resampler share (`ip_host.place`).
    ///
    /// Never fails in practice (`place` is a 1.0 slot); should the host refuse, the answer is the source's own
    /// size, which only costs the host a resample of what the coder returns.
    public static func place(
        sourceWidth: Double, sourceHeight: Double, boxWidth: UInt32, boxHeight: UInt32, mode: ip_scale_mode,
        allowUpscale: Bool
    ) -> ip_placement {
        let intrinsic = ip_placement(
            struct_size: UInt32(MemoryLayout<ip_placement>.size), out_width: roundDimension(sourceWidth),
            out_height: roundDimension(sourceHeight), scale_x: 1, scale_y: 1, offset_x: 0, offset_y: 0)
        guard let host = currentHost, has(host, slotAt: MemoryLayout<ip_host>.offset(of: \ip_host.place)!),
              let place = host.pointee.place else { return intrinsic }
        var request = ip_place_request(
            struct_size: UInt32(MemoryLayout<ip_place_request>.size), source_width: sourceWidth, source_height: sourceHeight,
            box_width: boxWidth, box_height: boxHeight, mode: mode, flags: allowUpscale ? UInt32(IP_PLACE_ALLOW_UPSCALE) : 0)
        var placement = ip_placement()
        placement.struct_size = UInt32(MemoryLayout<ip_placement>.size)
        return place(host, &request, &placement) == ip_status(IP_STATUS_OK) ? placement : intrinsic
    }

    /// `place` for a request's box and mode, with upscaling as its flags say (or `allowUpscale`, for vectors).
    public static func place(sourceWidth: Double, sourceHeight: Double, options: DecodeOptionsCopy,
                             allowUpscale: Bool? = nil) -> ip_placement {
        place(sourceWidth: sourceWidth, sourceHeight: sourceHeight, boxWidth: options.thumbnail_width,
                  boxHeight: options.thumbnail_height, mode: options.scale_mode,
                  allowUpscale: allowUpscale ?? options.has(UInt32(IP_DECODE_ALLOW_UPSCALE)))
    }
}
