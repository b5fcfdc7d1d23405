import CCurl
import CS3Curl
import PluginKit
#if canImport(Glibc)
import Glibc
#endif

/// libcurl's process-wide start, once (a Swift global's initialiser runs exactly once, thread-safely), and the
/// monotonic clock the deadlines use.
public enum S3Curl {
    private static let failure: String? = {
        let code = curl_global_init(Int(CURL_GLOBAL_DEFAULT))
        return code == CURLE_OK ? nil : "libcurl failed to initialise: " + String(cString: curl_easy_strerror(code))
    }()

    public static func ensureInitialised() throws {
        if let failure { throw PluginFailure.internalError(failure) }
    }

    public static let userAgent: String = {
        let version = ip_curl_version_info()?.pointee.version.map { String(cString: $0) } ?? "unknown"
        return "imagepipe-s3/1.0 libcurl/" + version
    }()

    public static func nowMilliseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1000 + UInt64(now.tv_nsec) / 1_000_000
    }
}

extension S3Curl {
    /// The process's share (DNS answers and TLS sessions to the store; not connections: CS3Curl says why), for every transfer
    /// of the plugin this module is linked into. The one Swift file that calls CS3Curl's `ip_s3_share` (its
    /// statics are per object file).
    public static var share: UnsafeMutableRawPointer? { ip_s3_share() }
}
