import HostGeometry
import PluginAPI
import Synchronization

/// The `ip_host` tables plugins receive in `init`: allocation within limits, cancellation, logging, byte buffers
/// for data a result points to (ICC profiles), and placement.
///
/// One table per plugin (CLAP's model): every service gets the table it was reached through, and `host_data`
/// names the plugin, so the log attributes a line to the plugin that wrote it without trusting an ID the plugin
/// passes. Tables are process-lifetime constants: plugins keep the pointer for as long as they live, which is the
/// process.
public enum HostServices {
    static let name = "imagepipe"
    static let version = "0.1.0"

    /// Tables made so far, by plugin ID (a plugin loaded twice, as by the tester's init-deinit-init check,
    /// gets the same table).
    private static let tables = Mutex<[String: UnsafeSendablePointer<ip_host>]>([:])

    /// The table for the plugin with this ID (made once).
    public static func table(forPlugin pluginID: String) -> UnsafePointer<ip_host> {
        tables.withLock { tables in
            if let existing = tables[pluginID] { return existing.pointer }
            let pointer = UnsafeMutablePointer<ip_host>.allocate(capacity: 1)
            pointer.initialize(to: makeTable(hostData: UnsafeMutableRawPointer(mutating: permanentCString(pluginID))))
            tables[pluginID] = UnsafeSendablePointer(pointer: UnsafePointer(pointer))
            return UnsafePointer(pointer)
        }
    }

    /// The plugin ID behind a table this host made ("?" for a table it did not make).
    static func pluginID(of host: UnsafePointer<ip_host>?) -> String {
        guard let data = host?.pointee.host_data else { return "?" }
        return String(cString: data.assumingMemoryBound(to: CChar.self))
    }

    private static func makeTable(hostData: UnsafeMutableRawPointer) -> ip_host {
        ip_host(
            struct_size: UInt32(MemoryLayout<ip_host>.size),
            abi_major: UInt32(IP_ABI_MAJOR), abi_minor: UInt32(IP_ABI_MINOR),
            name: permanentCString(name), version: permanentCString(version),
            host_data: hostData,
            get_extension: { _, _ in nil },
            alloc_pixels: { _, call, width, height, format, image in
                guard let image, let context = CallContext.from(call) else { return ip_status(IP_STATUS_INTERNAL) }
                guard let pixelFormat = PixelFormat(abi: format) else { return ip_status(IP_STATUS_UNSUPPORTED) }
                if context.exceedsLimits(width: width, height: height) { return ip_status(IP_STATUS_LIMIT_EXCEEDED) }
                guard let (pixels, stride) = context.allocate(width: width, height: height, format: pixelFormat) else {
                    return ip_status(IP_STATUS_NO_MEMORY)
                }
                image.pointee.width = width
                image.pointee.height = height
                image.pointee.stride = UInt32(stride)
                image.pointee.format = format
                image.pointee.pixels = pixels
                return ip_status(IP_STATUS_OK)
            },
            free_pixels: { _, call, pixels in
                guard let pixels, let context = CallContext.from(call) else { return }
                context.release(UnsafeMutableRawPointer(pixels))
            },
            is_cancelled: { _, call in
                CallContext.from(call)?.isCancelled == true ? 1 : 0
            },
            log: { host, level, message in
                HostLog.write(level: level, source: HostServices.pluginID(of: host), message: message.map { String(cString: $0) } ?? "")
            },
            alloc_bytes: { _, call, size in
                guard let context = CallContext.from(call), size <= Int.max else { return nil }
                return context.allocate(bytes: Int(size))
            },
            place: { _, request, placement in HostServices.placeService(request, placement) })
    }

    /// `ip_host.place`: reads the request by its struct_size (1.0 is the floor) and fills what the caller's
    /// placement struct covers.
    public static func placeService(_ request: UnsafePointer<ip_place_request>?, _ placement: UnsafeMutablePointer<ip_placement>?) -> ip_status {
        guard let request, let placement,
              let r = try? ABIReading.read(request, as: ip_place_request.self, named: "place request") else {
            return ip_status(IP_STATUS_INVALID_DATA)
        }
        let capacity = Int(placement.pointee.struct_size)
        guard capacity >= MemoryLayout<ip_placement>.size, capacity <= Int(IP_MAX_STRUCT_SIZE) else {
            return ip_status(IP_STATUS_INVALID_DATA)
        }
        var result = ip_placement()
        host_geometry_place(r.source_width, r.source_height, r.box_width, r.box_height, r.mode,
                            r.flags & UInt32(IP_PLACE_ALLOW_UPSCALE) != 0 ? 1 : 0, &result)
        result.struct_size = placement.pointee.struct_size
        withUnsafeBytes(of: result) { bytes in
            UnsafeMutableRawPointer(placement).copyMemory(from: bytes.baseAddress!, byteCount: MemoryLayout<ip_placement>.size)
        }
        return ip_status(IP_STATUS_OK)
    }
}

/// A pointer to process-lifetime, immutable data.
/// `@unchecked Sendable`: the pointee is written once, before the pointer is shared, and never again.
public struct UnsafeSendablePointer<T>: @unchecked Sendable {
    public let pointer: UnsafePointer<T>
    public init(pointer: UnsafePointer<T>) { self.pointer = pointer }
}

/// A C string that lives for the process.
func permanentCString(_ text: String) -> UnsafePointer<CChar> {
    let utf8 = Array(text.utf8CString)
    let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: utf8.count)
    buffer.initialize(from: utf8, count: utf8.count)
    return UnsafePointer(buffer)
}
