import Foundation
import PipelineHost
import PluginAPI
import TestSupport

/// Calls a coder's slots directly where the host cannot yet: loads a private copy of the plugin with dlopen once
/// per process and gives it a minimal host table (calloc'd pixel buffers owned by the harness; no cancellation).
final class PluginHarness {
    let coder: UnsafePointer<ip_coder>

    init(library: String) throws { coder = try IncrementalHarness.coder(library) }

    /// frames_open's status with the host's default limits (the iterator is closed again on success).
    func openFrames(_ bytes: [UInt8]) -> PluginStatus {
        guard let open = coder.pointee.frames_open2 else { return .unsupported }
        let limits = ip_limits(struct_size: UInt32(MemoryLayout<ip_limits>.size), max_pixels: 16384 * 16384,
                               max_dimension: 65535, max_frames: 10000, max_input_bytes: 512 << 20)
        var text = [CChar](repeating: 0, count: 512)
        var iterator: OpaquePointer?
        let status = bytes.withUnsafeBufferPointer { data in
            DirectPlugin.withOptions(ip_decode_options(), limits: limits) { optionsPointer in
                var request = ip_decode_request(struct_size: UInt32(MemoryLayout<ip_decode_request>.size),
                                                data: data.baseAddress, size: data.count, options: optionsPointer, call: nil)
                return text.withUnsafeMutableBufferPointer { buffer in
                    open(coder, &request, &iterator, ip_message(buffer: buffer.baseAddress, capacity: buffer.count))
                }
            }
        }
        if status == IP_STATUS_OK, let iterator { coder.pointee.frames_close?(iterator) }
        return PluginStatus(rawValue: status) ?? .internalError
    }
}

/// Drives a coder's incremental_open / incremental_update / incremental_close slots (the host has no incremental
/// API yet).
final class IncrementalHarness {
    struct Result {
        var status: PluginStatus
        var message: String
        /// Packed RGBA8 rows of the preview or final image (nil for NEED_MORE and errors).
        var width = 0, height = 0
        var alphaStraight = false
        var bytes: [UInt8]?
    }

    private let coder: UnsafePointer<ip_coder>
    private var decoder: OpaquePointer?

    /// The host table and its allocations. Plugins keep the table pointer for the process, so it is never freed.
    nonisolated(unsafe) private static var hostTable: UnsafePointer<ip_host>?
    nonisolated(unsafe) private static var loaded: [String: UnsafePointer<ip_coder>] = [:]
    private static let lock = NSLock()

    /// Opens `library` (a file in plugins.d) once per process and starts an incremental decode with `options`.
    init(library: String, thumbnail: (Int, Int)? = nil) throws {
        coder = try Self.coder(library)
        var options = ip_decode_options()
        options.struct_size = UInt32(MemoryLayout<ip_decode_options>.size)
        if let thumbnail {
            options.thumbnail_width = UInt32(thumbnail.0)
            options.thumbnail_height = UInt32(thumbnail.1)
        }
        guard let open = coder.pointee.incremental_open2 else { throw TestSupportError("no incremental_open2 slot") }
        var text = [CChar](repeating: 0, count: 512)
        var opened: OpaquePointer?
        let status = text.withUnsafeMutableBufferPointer { buffer in
            DirectPlugin.withOptions(options) { open(coder, $0, &opened, ip_message(buffer: buffer.baseAddress, capacity: buffer.count)) }
        }
        guard status == IP_STATUS_OK, let opened else { throw TestSupportError("incremental_open failed: \(status)") }
        decoder = opened
    }

    deinit {
        if let decoder, let close = coder.pointee.incremental_close { close(decoder) }
    }

    /// Hands the plugin all `bytes` received so far.
    func update(_ bytes: [UInt8], isFinal: Bool) -> Result {
        guard let update = coder.pointee.incremental_update else { return Result(status: .internalError, message: "no slot") }
        var image = ip_image()
        image.struct_size = UInt32(MemoryLayout<ip_image>.size)
        var text = [CChar](repeating: 0, count: 512)
        let raw = bytes.withUnsafeBufferPointer { data in
            text.withUnsafeMutableBufferPointer { buffer in
                update(decoder, data.baseAddress, data.count, isFinal ? 1 : 0, nil, &image,
                       ip_message(buffer: buffer.baseAddress, capacity: buffer.count))
            }
        }
        var result = Result(status: PluginStatus(rawValue: raw) ?? .internalError,
                            message: text.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
        if raw == IP_STATUS_OK, let pixels = image.pixels {
            result.width = Int(image.width)
            result.height = Int(image.height)
            result.alphaStraight = image.alpha_mode == IP_ALPHA_STRAIGHT
            var packed = [UInt8](repeating: 0, count: result.width * result.height * 4)
            for y in 0..<result.height {
                for x in 0..<(result.width * 4) { packed[y * result.width * 4 + x] = pixels[y * Int(image.stride) + x] }
            }
            result.bytes = packed
            free(pixels)
        }
        return result
    }

    static func coder(_ library: String) throws -> UnsafePointer<ip_coder> {
        lock.lock()
        defer { lock.unlock() }
        if let known = loaded[library] { return known }
        let coder = try DirectPlugin.coder(library, host: host())
        loaded[library] = coder
        return coder
    }

    private static func host() -> UnsafePointer<ip_host> {
        if let hostTable { return hostTable }
        let table = DirectPlugin.host(allocate: { _, _, width, height, format, image in
            guard let image, width > 0, height > 0 else { return ip_status(IP_STATUS_LIMIT_EXCEEDED) }
            let bytesPerPixel = format == IP_PIXEL_RGBA16 ? 8 : 4
            let stride = Int(width) * bytesPerPixel
            guard let memory = calloc(stride * Int(height), 1) else { return ip_status(IP_STATUS_NO_MEMORY) }
            image.pointee.width = width
            image.pointee.height = height
            image.pointee.stride = UInt32(stride)
            image.pointee.format = format
            image.pointee.pixels = memory.assumingMemoryBound(to: UInt8.self)
            return ip_status(IP_STATUS_OK)
        }, free: { _, _, pixels in free(pixels) })
        hostTable = table
        return table
    }
}
