import CCurl
import PluginAPI
import PluginKit

/// The libcurl options every transfer gets, and the ones taken from the request.
enum EasyOptions {
    /// Bytes libcurl reads per write callback (CURLOPT_BUFFERSIZE; libcurl's default is 16 KiB): fewer,
    /// larger `data` calls for big images, still small enough to stop promptly at a limit.
    static let bufferSize = 64 << 10

    static func apply(to easy: UnsafeMutableRawPointer, request: HTTPRequest, headers: UnsafeMutablePointer<curl_slist>?,
                      errorBuffer: UnsafeMutablePointer<CChar>, context: UnsafeMutableRawPointer) throws {
        var failed: (String, CURLcode)?
        func set(_ name: String, _ code: CURLcode) {
            if code != CURLE_OK, failed == nil { failed = (name, code) }
        }
        set("URL", ip_curl_easy_setopt_string(easy, CURLOPT_URL, request.url))
        set("PRIVATE", ip_curl_easy_setopt_pointer(easy, CURLOPT_PRIVATE, context))
        set("ERRORBUFFER", ip_curl_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, errorBuffer))
        set("WRITEFUNCTION", ip_curl_easy_setopt_data_callback(easy, CURLOPT_WRITEFUNCTION, TransferCallbacks.write))
        set("WRITEDATA", ip_curl_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, context))
        set("HEADERFUNCTION", ip_curl_easy_setopt_data_callback(easy, CURLOPT_HEADERFUNCTION, TransferCallbacks.header))
        set("HEADERDATA", ip_curl_easy_setopt_pointer(easy, CURLOPT_HEADERDATA, context))
        // Never SIGALRM for DNS timeouts (process-global state; the threaded resolver does not need it).
        set("NOSIGNAL", ip_curl_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1))
        // http and https only, for the first URL and for every redirect (no file://, ftp://, gopher://, ...).
        set("PROTOCOLS_STR", ip_curl_easy_setopt_string(easy, CURLOPT_PROTOCOLS_STR, "http,https"))
        set("REDIR_PROTOCOLS_STR", ip_curl_easy_setopt_string(easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https"))
        set("FOLLOWLOCATION", ip_curl_easy_setopt_long(easy, CURLOPT_FOLLOWLOCATION, request.followsRedirects ? 1 : 0))
        set("MAXREDIRS", ip_curl_easy_setopt_long(easy, CURLOPT_MAXREDIRS, Int(request.maxRedirects)))
        // HTTP/2 over TLS when the server offers it in ALPN; HTTP/1.1 for plain http.
        set("HTTP_VERSION", ip_curl_easy_setopt_long(easy, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS)))
        // Wait for a connection that may multiplex (HTTP/2) rather than open a new one for every burst.
        set("PIPEWAIT", ip_curl_easy_setopt_long(easy, CURLOPT_PIPEWAIT, 1))
        // "" = offer every encoding this libcurl decodes (gzip, deflate, br, zstd) and decode transparently.
        set("ACCEPT_ENCODING", ip_curl_easy_setopt_string(easy, CURLOPT_ACCEPT_ENCODING, ""))
        set("TIMEOUT_MS", ip_curl_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, Int(request.timeoutMilliseconds)))
        set("CONNECTTIMEOUT_MS",
            ip_curl_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, Int(request.connectTimeoutMilliseconds)))
        if request.maxBytes > 0 {
            // Refuses at the headers when Content-Length announces more; the write callback checks the stream.
            set("MAXFILESIZE_LARGE", ip_curl_easy_setopt_off_t(
                easy, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(clamping: request.maxBytes)))
        }
        set("BUFFERSIZE", ip_curl_easy_setopt_long(easy, CURLOPT_BUFFERSIZE, bufferSize))
        set("USERAGENT", ip_curl_easy_setopt_string(easy, CURLOPT_USERAGENT, CurlGlobal.userAgent))
        if let headers { set("HTTPHEADER", ip_curl_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, headers)) }
        if request.refusePrivateAddresses {
            // Both: the first keeps a connection to a refused address from being opened at all; the second catches
            // a reused connection (opened for another load) before a request is sent on it, on every redirect hop.
            set("OPENSOCKETFUNCTION", ip_curl_easy_setopt_opensocket_callback(easy, AddressPolicy.openSocket))
            set("OPENSOCKETDATA", ip_curl_easy_setopt_pointer(easy, CURLOPT_OPENSOCKETDATA, context))
            set("PREREQFUNCTION", ip_curl_easy_setopt_prereq_callback(easy, AddressPolicy.beforeRequest))
            set("PREREQDATA", ip_curl_easy_setopt_pointer(easy, CURLOPT_PREREQDATA, context))
        }
        if let (name, code) = failed {
            throw PluginFailure.internalError(
                "libcurl refused CURLOPT_\(name): " + String(cString: curl_easy_strerror(code)))
        }
    }
}
