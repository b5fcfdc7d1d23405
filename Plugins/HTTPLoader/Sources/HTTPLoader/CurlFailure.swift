import CCurl
import PluginAPI
import PluginKit

/// Turns a failed transfer's CURLcode into the ABI status and a message that says what happened.
///
/// HTTP error statuses (404, 500) are not failures here: the transfer succeeded, `response()` carried the
/// status code, and the host decides what it means. Only transport failures reach this mapping.
enum CurlFailure {
    static func failure(for code: CURLcode, task: HTTPLoadTask) -> PluginFailure {
        let facts = Facts(task: task, code: code)
        switch code {
        case CURLE_OPERATION_TIMEDOUT:
            if facts.connected {
                return .io("timed out after \(facts.elapsedMilliseconds) ms with \(facts.bodyProgress) received "
                    + "(timeout \(task.request.timeoutMilliseconds) ms)")
            }
            let limit = min(task.request.connectTimeoutMilliseconds, task.request.timeoutMilliseconds)
            return .io("timed out after \(facts.elapsedMilliseconds) ms while connecting (timeout \(limit) ms)")
        case CURLE_TOO_MANY_REDIRECTS:
            return .io("too many redirects (more than \(task.request.maxRedirects))")
        case CURLE_UNSUPPORTED_PROTOCOL:
            if facts.redirects > 0 || facts.detail.lowercased().contains("redirect") {
                return .unsupported("redirect to a non-HTTP URL refused (\(facts.detail))")
            }
            return .unsupported("only http and https URLs are loaded (\(facts.detail))")
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            return .io("cannot resolve the host name (\(facts.detail))")
        case CURLE_COULDNT_CONNECT:
            return .io("cannot connect (\(facts.detail))")
        case CURLE_PARTIAL_FILE, CURLE_RECV_ERROR, CURLE_HTTP2_STREAM, CURLE_HTTP2:
            let total = facts.contentLength >= 0 ? "\(facts.contentLength)" : "an unknown number of"
            return .truncated("connection closed after \(facts.received) of \(total) bytes (\(facts.detail))")
        case CURLE_FILESIZE_EXCEEDED:
            let announced = facts.contentLength >= 0 ? "of \(facts.contentLength) bytes (Content-Length) " : ""
            return .limitExceeded("the body \(announced)exceeds the limit of \(task.request.maxBytes) bytes")
        case CURLE_BAD_CONTENT_ENCODING:
            return .invalidData("the compressed body cannot be decoded (\(facts.detail))")
        case CURLE_WEIRD_SERVER_REPLY, CURLE_GOT_NOTHING:
            return .io("the server did not answer with HTTP (\(facts.detail))")
        case CURLE_OUT_OF_MEMORY:
            return PluginFailure(IP_STATUS_NO_MEMORY, "libcurl ran out of memory")
        case CURLE_URL_MALFORMAT:
            return .invalidData("malformed URL (\(facts.detail))")
        default:
            // TLS and certificate failures, proxies, sends: all transport problems.
            return .io(facts.detail)
        }
    }

    /// What libcurl knows about the failed transfer, read before the handle is cleaned up.
    private struct Facts {
        var elapsedMilliseconds: Int64 = 0
        var connected = false
        var received: Int64 = 0
        var contentLength: Int64 = -1
        var redirects = 0
        /// libcurl's own message (its error buffer), or the generic text for the code.
        var detail = ""

        init(task: HTTPLoadTask, code: CURLcode) {
            detail = String(cString: task.errorBuffer)
            if detail.isEmpty { detail = String(cString: curl_easy_strerror(code)) }
            guard let easy = task.easy else { return }
            var value: curl_off_t = 0
            if ip_curl_easy_getinfo_off_t(easy, CURLINFO_TOTAL_TIME_T, &value) == CURLE_OK {
                elapsedMilliseconds = Int64(value) / 1000
            }
            value = 0
            if ip_curl_easy_getinfo_off_t(easy, CURLINFO_CONNECT_TIME_T, &value) == CURLE_OK { connected = value > 0 }
            value = 0
            if ip_curl_easy_getinfo_off_t(easy, CURLINFO_SIZE_DOWNLOAD_T, &value) == CURLE_OK { received = Int64(value) }
            // From the header callback: libcurl does not record a Content-Length it refused (FILESIZE_EXCEEDED).
            contentLength = task.announcedLength
            var count = 0
            if ip_curl_easy_getinfo_long(easy, CURLINFO_REDIRECT_COUNT, &count) == CURLE_OK { redirects = count }
        }

        var bodyProgress: String {
            contentLength >= 0 ? "\(received) of \(contentLength) bytes" : "\(received) bytes"
        }
    }
}
