import PluginAPI

/// The `ip_host` table every plugin receives in `init`: allocation within limits, cancellation, logging, and
/// byte buffers for data a result points to (ICC profiles).
///
/// A process-lifetime constant: plugins keep the pointer for as long as they live, which is the process.
enum HostServices {
    static let name = "imagepipe"
    static let version = "0.1.0"

    nonisolated(unsafe) static let table: UnsafePointer<ip_host> = {
        let pointer = UnsafeMutablePointer<ip_host>.allocate(capacity: 1)
        pointer.initialize(to: ip_host(
            struct_size: UInt32(MemoryLayout<ip_host>.size),
            abi_major: UInt32(IP_ABI_MAJOR), abi_minor: UInt32(IP_ABI_MINOR),
            name: permanentCString(name), version: permanentCString(version),
            alloc_pixels: { call, width, height, format, image in
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
            free_pixels: { call, pixels in
                guard let pixels, let context = CallContext.from(call) else { return }
                context.release(UnsafeMutableRawPointer(pixels))
            },
            is_cancelled: { call in
                CallContext.from(call)?.isCancelled == true ? 1 : 0
            },
            log: { level, pluginID, message in
                let id = pluginID.map { String(cString: $0) } ?? "?"
                let text = message.map { String(cString: $0) } ?? ""
                HostLog.write(level: level, source: id, message: text)
            },
            alloc_bytes: { call, size in
                guard let context = CallContext.from(call), size <= Int.max else { return nil }
                return context.allocate(bytes: Int(size))
            }))
        return UnsafePointer(pointer)
    }()
}

/// A C string that lives for the process.
func permanentCString(_ text: String) -> UnsafePointer<CChar> {
    let utf8 = Array(text.utf8CString)
    let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: utf8.count)
    buffer.initialize(from: utf8, count: utf8.count)
    return UnsafePointer(buffer)
}
