import CWebP
import PluginAPI
import PluginKit

/// libwebp's status codes as the ABI's statuses, with what was being done.
enum WebPFailure {
    static func from(_ status: VP8StatusCode, _ action: String) -> PluginFailure {
        switch status {
        case VP8_STATUS_NOT_ENOUGH_DATA, VP8_STATUS_SUSPENDED:
            return .truncated("the WebP data ends early (\(action))")
        case VP8_STATUS_BITSTREAM_ERROR:
            return .invalidData("corrupt WebP bitstream (\(action))")
        case VP8_STATUS_UNSUPPORTED_FEATURE:
            return .unsupported("the WebP uses a feature libwebp \(libraryVersion) does not support (\(action))")
        case VP8_STATUS_OUT_OF_MEMORY:
            return PluginFailure(IP_STATUS_NO_MEMORY, "libwebp ran out of memory (\(action))")
        case VP8_STATUS_USER_ABORT:
            return .cancelled
        case VP8_STATUS_INVALID_PARAM:
            return .invalidData("invalid WebP structure (\(action))")
        default:
            return .internalError("libwebp status \(status.rawValue) (\(action))")
        }
    }

    /// "1.2.4", from the linked library.
    static var libraryVersion: String {
        let v = WebPGetDecoderVersion()
        return "\(v >> 16).\((v >> 8) & 0xFF).\(v & 0xFF)"
    }
}

/// The request's limits applied to a size, before anything is allocated.
enum WebPLimits {
    static func check(width: Int, height: Int, _ limits: ip_limits, what: String = "the WebP image") throws {
        if limits.max_dimension > 0, width > Int(limits.max_dimension) || height > Int(limits.max_dimension) {
            throw PluginFailure.limitExceeded("\(what) \(width)x\(height) exceeds the dimension limit of \(limits.max_dimension)")
        }
        if limits.max_pixels > 0, UInt64(width) * UInt64(height) > limits.max_pixels {
            throw PluginFailure.limitExceeded("\(what) \(width)x\(height) exceeds the pixel limit of \(limits.max_pixels)")
        }
    }

    static func checkFrames(_ count: Int, _ limits: ip_limits) throws {
        if limits.max_frames > 0, count > Int(limits.max_frames) {
            throw PluginFailure.limitExceeded("the animation has \(count) frames, more than the frame limit of \(limits.max_frames)")
        }
    }
}
