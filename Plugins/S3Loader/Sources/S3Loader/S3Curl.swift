import CCurl
import PluginKit
#if canImport(Glibc)
import Glibc
#endif

/// libcurl's process-wide start, once (a Swift global's initialiser runs exactly once, thread-safely), and the
/// monotonic clock the deadlines use.
enum S3Curl {
    private static let failure: String? = {
        let code = curl_global_init(Int(CURL_GLOBAL_DEFAULT))
        return code == CURLE_OK ? nil : "libcurl failed to initialise: " + String(cString: curl_easy_strerror(code))
    }()

    static func ensureInitialised() throws {
        if let failure { throw PluginFailure.internalError(failure) }
    }

    static let userAgent: String = {
        let version = ip_curl_version_info()?.pointee.version.map { String(cString: $0) } ?? "unknown"
        return "imagepipe-s3/1.0 libcurl/" + version
    }()

    static func nowMilliseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1000 + UInt64(now.tv_nsec) / 1_000_000
    }
}
