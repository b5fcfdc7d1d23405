import PluginAPI

/// The host's service table as seen from inside a plugin.
///
/// Written once by the entry's `init` (on the host thread, before any factory is used) and only read
/// afterwards, which is why a plain global suffices here.
nonisolated(unsafe) private var currentHost: UnsafePointer<ip_host>?

public enum Host {
    /// Remembers the host table; called by `PluginEntry`'s init.
    static func attach(_ host: UnsafePointer<ip_host>?) { currentHost = host }

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
        let status = alloc(call, UInt32(width), UInt32(height), ip_pixel_format(format), &image)
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
        guard let pixels, let free = currentHost?.pointee.free_pixels else { return }
        free(call, pixels)
    }

    /// Host-owned bytes for data a result points to (an ICC profile); nil when the host lacks `alloc_bytes` (its
    /// table is older) or refuses.
    public static func allocateBytes(_ call: OpaquePointer?, count: Int) -> UnsafeMutablePointer<UInt8>? {
        guard let host = currentHost, count > 0,
              host.pointee.struct_size >= UInt32(MemoryLayout<ip_host>.offset(of: \ip_host.alloc_bytes)! + MemoryLayout<UnsafeRawPointer>.size),
              let alloc = host.pointee.alloc_bytes else { return nil }
        return alloc(call, count)
    }

    public static func isCancelled(_ call: OpaquePointer?) -> Bool {
        guard let check = currentHost?.pointee.is_cancelled else { return false }
        return check(call) != 0
    }

    /// Throws `PluginFailure.cancelled` when the caller has cancelled.
    public static func checkCancellation(_ call: OpaquePointer?) throws {
        if isCancelled(call) { throw PluginFailure.cancelled }
    }

    public static func log(_ level: Int32, _ pluginID: String, _ message: String) {
        guard let log = currentHost?.pointee.log else { return }
        pluginID.withCString { id in message.withCString { text in log(ip_log_level(level), id, text) } }
    }
}
