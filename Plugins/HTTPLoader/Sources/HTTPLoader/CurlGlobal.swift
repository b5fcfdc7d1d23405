import CCurl
import PluginAPI
import PluginKit

/// libcurl's process-wide initialisation, done once, the first time a transfer needs it.
///
/// `curl_global_init` must run before any other libcurl call. The plugin's entry has no hook of its own for
/// this (PluginEntry.make supplies a fixed init), so a lazily initialised global does it instead: Swift runs a
/// global's initialiser exactly once, thread-safely (swift_once). Several copies of this plugin, or other
/// libraries, may call it too: libcurl counts the calls, and with the `threadsafe` feature (Debian's 7.88 has it)
/// concurrent calls are safe. It is never undone (`curl_global_cleanup`): plugins are never unloaded.
enum CurlGlobal {
    /// Nil on success, else why libcurl could not start.
    private static let failure: String? = {
        let code = curl_global_init(Int(CURL_GLOBAL_DEFAULT))
        guard code == CURLE_OK else {
            return "libcurl failed to initialise: " + String(cString: curl_easy_strerror(code))
        }
        if !isThreadSafe {
            Host.log(IP_LOG_WARNING, "libcurl was built without thread-safe global init; another library's init may race with ours")
        }
        return nil
    }()

    /// Initialises libcurl once; throws when that failed (every later call throws the same failure).
    static func ensure() throws {
        if let failure { throw PluginFailure.internalError(failure) }
    }

    /// True when `curl_global_init` may run concurrently with other libcurl users (CURL_VERSION_THREADSAFE, 7.84+).
    static var isThreadSafe: Bool {
        guard let info = ip_curl_version_info() else { return false }
        return info.pointee.features & Int32(CURL_VERSION_THREADSAFE) != 0
    }

    /// The User-Agent sent unless the request sets its own: "imagepipe/1.0 libcurl/7.88.1".
    static let userAgent: String = {
        let version = ip_curl_version_info()?.pointee.version.map { String(cString: $0) } ?? "unknown"
        return "imagepipe/1.0 libcurl/" + version
    }()
}
