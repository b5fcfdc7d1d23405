import CCurl
import CS3Curl

/// The libcurl options every S3 transfer sets the same way — the loader's streamed GETs and the client's buffered
/// exchanges — so that signing, addressing and the safety settings cannot drift apart between them.
extension S3Curl {
    /// Appends `lines`, and for temporary credentials the session token, to `list`; false when out of memory.
    public static func appendHeaders(_ lines: [String], settings: S3Settings, to list: inout UnsafeMutablePointer<curl_slist>?) -> Bool {
        var all = lines
        if let token = settings.credentials?.sessionToken { all.append("x-amz-security-token: \(token)") }
        // No empty "Name:" lines (the usual way to stop libcurl adding Expect or a form Content-Type): libcurl
        // 7.88 signs such a header but does not send it, and the store then refuses the signature.
        for line in all {
            guard let grown = curl_slist_append(list, line) else { return false }
            list = grown
        }
        return true
    }

    /// Sets the shared options on `easy`: the URL taken literally (never collapsing dot segments; S3Location also
    /// refuses them, to be safe behind proxies), http(s) only, no redirects (a store answers a wrong region with
    /// an error, and its address is the operator's), the deadlines, the headers, SigV4 by libcurl when there are
    /// credentials (else unsigned, for public buckets), the process's share (DNS, TLS sessions) and the two callbacks with
    /// `context`. Returns the name of the first option libcurl refused, nil when all were taken.
    public static func setSignedTransfer(_ easy: UnsafeMutableRawPointer, url: String, settings: S3Settings,
                                         headers: UnsafeMutablePointer<curl_slist>?, errorBuffer: UnsafeMutablePointer<CChar>,
                                         timeoutMilliseconds: UInt64, connectTimeoutMilliseconds: UInt64,
                                         context: UnsafeMutableRawPointer, write: ip_curl_data_callback,
                                         header: ip_curl_data_callback) -> String? {
        var failed: String?
        func set(_ name: String, _ code: CURLcode) { if code != CURLE_OK, failed == nil { failed = name } }
        set("URL", ip_curl_easy_setopt_string(easy, CURLOPT_URL, url))
        set("PATH_AS_IS", ip_curl_easy_setopt_long(easy, CURLOPT_PATH_AS_IS, 1))
        set("ERRORBUFFER", ip_curl_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, errorBuffer))
        set("NOSIGNAL", ip_curl_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1))
        set("PROTOCOLS_STR", ip_curl_easy_setopt_string(easy, CURLOPT_PROTOCOLS_STR, "http,https"))
        set("FOLLOWLOCATION", ip_curl_easy_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 0))
        set("TIMEOUT_MS", ip_curl_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, Int(max(1, timeoutMilliseconds))))
        set("CONNECTTIMEOUT_MS", ip_curl_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, Int(max(1, connectTimeoutMilliseconds))))
        set("USERAGENT", ip_curl_easy_setopt_string(easy, CURLOPT_USERAGENT, userAgent))
        set("HTTPHEADER", ip_curl_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, headers))
        if let credentials = settings.credentials {
            set("AWS_SIGV4", ip_curl_easy_setopt_string(easy, CURLOPT_AWS_SIGV4, "aws:amz:\(settings.region):s3"))
            set("USERNAME", ip_curl_easy_setopt_string(easy, CURLOPT_USERNAME, credentials.accessKeyID))
            set("PASSWORD", ip_curl_easy_setopt_string(easy, CURLOPT_PASSWORD, credentials.secretAccessKey))
        }
        if let share { set("SHARE", ip_s3_easy_set_share(easy, share)) }
        set("WRITEFUNCTION", ip_curl_easy_setopt_data_callback(easy, CURLOPT_WRITEFUNCTION, write))
        set("WRITEDATA", ip_curl_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, context))
        set("HEADERFUNCTION", ip_curl_easy_setopt_data_callback(easy, CURLOPT_HEADERFUNCTION, header))
        set("HEADERDATA", ip_curl_easy_setopt_pointer(easy, CURLOPT_HEADERDATA, context))
        return failed
    }
}
