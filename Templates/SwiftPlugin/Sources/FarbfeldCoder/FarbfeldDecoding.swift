import PluginAPI
import PluginKit

/// probe and decode: read the header, check everything the request limits, only then allocate (from the host)
/// and convert. Every failure is a thrown `PluginFailure` whose status and message the host shows.
enum FarbfeldDecoding {
    static func probe(_ request: UnsafePointer<ip_decode_request>?, into info: UnsafeMutablePointer<ip_image_info>?) throws {
        let view = try DecodeRequestView(request)
        let header = try readHeader(view.data)
        guard let info else { throw PluginFailure.internalError("NULL image info") }
        info.pointee.width = UInt32(clamping: header.width)
        info.pointee.height = UInt32(clamping: header.height)
        info.pointee.frame_count = 1
        info.pointee.page_count = 1
        info.pointee.loop_count = -1
        info.pointee.bit_depth = 16
        info.pointee.has_alpha = 1
        setInfoStrings(&info.pointee, format: "farbfeld", details: "16-bit RGBA, straight alpha")
    }

    static func decode(_ request: UnsafePointer<ip_decode_request>?, into image: UnsafeMutablePointer<ip_image>?) throws {
        let view = try DecodeRequestView(request)
        guard let image else { throw PluginFailure.internalError("NULL image") }
        let header = try readHeader(view.data)
        // A farbfeld file is one image: any other page or frame does not exist.
        if view.options.page_index > 0 || view.options.frame_index > 0 {
            throw PluginFailure.notFound("farbfeld has one image; page \(view.options.page_index), frame \(view.options.frame_index) was asked for")
        }
        // Limits before memory: a header that claims 4 billion pixels costs nothing.
        try view.checkLimits(width: header.width, height: header.height)
        guard let pixelBytes = header.pixelBytes, view.data.count - Farbfeld.headerSize >= pixelBytes else {
            throw PluginFailure.truncated("a \(header.width)x\(header.height) farbfeld image needs \(header.pixelBytes ?? Int.max) bytes "
                                          + "of pixels, the input has \(view.data.count - Farbfeld.headerSize)")
        }

        let sixteen = view.has(UInt32(IP_DECODE_HIGH_BIT_DEPTH))
        var output = try Host.allocatePixels(view.call, width: header.width, height: header.height,
                                             format: sixteen ? IP_PIXEL_RGBA16 : IP_PIXEL_RGBA8)
        guard let pixels = output.pixels else { throw PluginFailure.internalError("alloc_pixels returned no buffer") }
        var opaque = true
        let source = view.data.baseAddress! + Farbfeld.headerSize
        for y in 0..<header.height {
            // Cheap to ask; lets the host stop a large decode soon after it no longer wants it.
            if y % 64 == 0 { try Host.checkCancellation(view.call) }
            let row = source + y * header.width * Farbfeld.bytesPerPixel
            let target = UnsafeMutableRawPointer(pixels + y * Int(output.stride))
            for index in 0..<(header.width * 4) {
                let value = UInt16(row[index * 2]) << 8 | UInt16(row[index * 2 + 1])
                if index % 4 == 3 && value != 0xFFFF { opaque = false }
                if sixteen {
                    target.storeBytes(of: value, toByteOffset: index * 2, as: UInt16.self)
                } else {
                    target.storeBytes(of: UInt8((UInt32(value) * 255 + 32767) / 65535), toByteOffset: index, as: UInt8.self)
                }
            }
        }
        // Say honestly whether there is transparency: the host skips alpha work for opaque images.
        output.alpha_mode = opaque ? IP_ALPHA_NONE : IP_ALPHA_STRAIGHT
        output.duration_ms = 0
        output.index = 0
        image.pointee = output
    }

    /// The header, with the format's problems turned into the ABI's statuses.
    static func readHeader(_ data: UnsafeBufferPointer<UInt8>) throws -> Farbfeld.Header {
        do {
            return try Farbfeld.header(data)
        } catch .notFarbfeld {
            throw PluginFailure.invalidData("not a farbfeld file (no \"farbfeld\" magic)")
        } catch .truncatedHeader {
            throw PluginFailure.truncated("the input ends inside the 16-byte farbfeld header (\(data.count) bytes)")
        } catch .emptyImage {
            throw PluginFailure.invalidData("the header declares an empty image")
        } catch {
            throw PluginFailure.invalidData("\(error)")
        }
    }
}
