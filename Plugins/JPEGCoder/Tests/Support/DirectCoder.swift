import Foundation
import PipelineHost
import PluginAPI
import Synchronization
import TestSupport

/// Calls the coder's incremental slots directly: the host has no incremental-decoding API yet, so this loads a
/// private copy of libJPEGCoder.so (from the sandbox folder, never anything else), gives it a minimal `ip_host` and
/// drives `incremental_open/update/close` as a host would.
///
/// Pixel buffers are plain `calloc` memory tracked per call token, and freed after each update once the result has
/// been copied out (as the host frees buffers a result does not reference).
final class DirectCoder: @unchecked Sendable {
    // @unchecked Sendable: `coder` points to the plugin's static, immutable vtable.
    let coder: UnsafePointer<ip_coder>

    init() throws {
        let coder = try DirectPlugin.coder("libJPEGCoder.so", host: DirectCoder.host)
        self.coder = coder
    }

    /// One incremental session.
    final class Session {
        let coder: UnsafePointer<ip_coder>
        let decoder: OpaquePointer

        init(coder: UnsafePointer<ip_coder>, options: DecodeOptions) throws {
            self.coder = coder
            var raw = ip_decode_options()
            raw.struct_size = UInt32(MemoryLayout<ip_decode_options>.size)
            raw.thumbnail_width = UInt32(options.thumbnailSize?.width ?? 0)
            raw.thumbnail_height = UInt32(options.thumbnailSize?.height ?? 0)
            raw.flags = options.ignoreOrientation ? UInt32(IP_DECODE_IGNORE_ORIENTATION) : 0
            let limits = ip_limits(struct_size: UInt32(MemoryLayout<ip_limits>.size), max_pixels: UInt64(options.limits.maxPixels),
                                   max_dimension: UInt32(options.limits.maxDimension), max_frames: 0, max_input_bytes: 0)
            var decoder: OpaquePointer?
            var text = [CChar](repeating: 0, count: 256)
            let status = text.withUnsafeMutableBufferPointer { buffer in
                DirectPlugin.withOptions(raw, limits: limits) {
                    coder.pointee.incremental_open2(coder, $0, &decoder, ip_message(buffer: buffer.baseAddress, capacity: buffer.count))
                }
            }
            guard status == IP_STATUS_OK, let decoder else { throw TestSupportError("incremental_open failed: \(status)") }
            self.decoder = decoder
        }

        deinit { coder.pointee.incremental_close(decoder) }

        /// Feeds all bytes so far: the status, the preview (on OK), the message and how many pixel buffers the
        /// plugin asked for.
        func update(_ data: [UInt8], final: Bool) -> Update {
            let token = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1)
            defer { token.deallocate() }
            var result = perform(data, final: final, token: token)
            result.allocations = DirectCoder.freeAll(for: token)
            return result
        }

        private func perform(_ data: [UInt8], final: Bool, token: UnsafeMutableRawPointer) -> Update {
            var image = ip_image()
            image.struct_size = UInt32(MemoryLayout<ip_image>.size)
            var text = [CChar](repeating: 0, count: 512)
            let status = data.withUnsafeBufferPointer { bytes in
                text.withUnsafeMutableBufferPointer { buffer in
                    coder.pointee.incremental_update(
                        decoder, bytes.baseAddress, bytes.count, final ? 1 : 0, OpaquePointer(token), &image,
                        ip_message(buffer: buffer.baseAddress, capacity: buffer.count))
                }
            }
            let message = text.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            guard status == IP_STATUS_OK, let pixels = image.pixels else {
                return Update(status: PluginStatus(rawValue: status), raster: nil, message: message)
            }
            var rgb = [UInt8]()
            for y in 0..<Int(image.height) {
                let row = pixels + y * Int(image.stride)
                for x in 0..<Int(image.width) { rgb += [row[x * 4], row[x * 4 + 1], row[x * 4 + 2]] }
            }
            return Update(status: .ok, raster: Raster(width: Int(image.width), height: Int(image.height), channels: 3, samples: rgb),
                          message: message)
        }
    }

    struct Update {
        var status: PluginStatus?
        var raster: Raster?
        var message: String
        var allocations = 0
    }

    func session(_ options: DecodeOptions = DecodeOptions()) throws -> Session {
        try Session(coder: coder, options: options)
    }

    // MARK: - The minimal host

    /// Buffers handed out, by call token (addresses as integers).
    private static let allocations = Mutex<[UInt: [UInt]]>([:])

    /// Frees the buffers of a call and returns how many allocations it asked for (granted or not).
    static func freeAll(for token: UnsafeMutableRawPointer) -> Int {
        let key = UInt(bitPattern: token)
        let buffers = allocations.withLock { $0.removeValue(forKey: key) ?? [] }
        for address in buffers where address != 0 { free(UnsafeMutableRawPointer(bitPattern: address)) }
        return buffers.count
    }

    /// `nonisolated(unsafe)`: initialised once, then an immutable C table.
    nonisolated(unsafe) static let host = DirectPlugin.host(allocate: { _, call, width, height, format, image in
        let key = UInt(bitPattern: UnsafeRawPointer(call))
        // Refused requests are recorded as address 0, so that every attempt is counted.
        guard let image, format == IP_PIXEL_RGBA8, width > 0, height > 0, UInt64(width) * UInt64(height) <= 1 << 28,
              let pixels = calloc(Int(width) * Int(height), 4) else {
            allocations.withLock { $0[key, default: []].append(0) }
            return ip_status(IP_STATUS_LIMIT_EXCEEDED)
        }
        allocations.withLock { $0[key, default: []].append(UInt(bitPattern: pixels)) }
        image.pointee.width = width
        image.pointee.height = height
        image.pointee.stride = width * 4
        image.pointee.format = format
        image.pointee.pixels = pixels.assumingMemoryBound(to: UInt8.self)
        return ip_status(IP_STATUS_OK)
    })
}
