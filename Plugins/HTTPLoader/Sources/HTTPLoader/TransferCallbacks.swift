import CCurl
import PluginAPI
import PluginKit

/// libcurl's write and header callbacks. They run on the engine thread inside `curl_multi_perform`; the
/// context is the task, kept alive by the engine for as long as its handle is in the multi handle.
enum TransferCallbacks {
    /// Returning anything other than the chunk size makes libcurl abort with CURLE_WRITE_ERROR;
    /// CURL_WRITEFUNC_ERROR (7.87+) says so even for a zero-byte call.
    private static let abort = Int(CURL_WRITEFUNC_ERROR)

    /// A body chunk (already decoded when the response was compressed).
    static let write: ip_curl_data_callback = { buffer, size, count, context in
        guard let context else { return TransferCallbacks.abort }
        let task = Unmanaged<HTTPLoadTask>.fromOpaque(context).takeUnretainedValue()
        return task.receive(UnsafeRawBufferPointer(start: buffer, count: size * count)) ? size * count : TransferCallbacks.abort
    }

    /// One header line, for every response of the transfer (1xx, each redirect, the final one).
    static let header: ip_curl_data_callback = { buffer, size, count, context in
        guard let context, let buffer else { return size * count }
        let task = Unmanaged<HTTPLoadTask>.fromOpaque(context).takeUnretainedValue()
        return task.receiveHeader(UnsafeRawBufferPointer(start: buffer, count: size * count)) ? size * count : TransferCallbacks.abort
    }
}

extension HTTPLoadTask {
    /// Delivers a chunk; false (with `stopReason` set) stops the transfer.
    func receive(_ chunk: UnsafeRawBufferPointer) -> Bool {
        if isCancelRequested {
            stopReason = PluginFailure.cancelled
            return false
        }
        if !responded, !deliverResponse() { return false }
        delivered += UInt64(chunk.count)
        // Checked on decoded bytes, so a small compressed body cannot inflate past the limit either.
        if request.maxBytes > 0, delivered > request.maxBytes {
            stopReason = .limitExceeded("the body exceeds the limit of \(request.maxBytes) bytes")
            return false
        }
        if chunk.isEmpty { return true }
        guard callbacks.data(chunk) else {
            stopReason = PluginFailure(IP_STATUS_CANCELLED, "the host stopped the transfer")
            return false
        }
        return true
    }

    /// At most this many header lines of one response are kept for the host (the rest are still parsed by libcurl).
    static let keptHeaderLines = 256

    /// Notes what the next `response()` and a failure message need: whether Content-Length counts encoded
    /// bytes, the Content-Length itself (libcurl does not report it when it refused it as too large), and the
    /// response's header lines; at the end of a redirect's headers, asks the host whether to follow it. False
    /// (with `stopReason`) stops the transfer.
    func receiveHeader(_ line: UnsafeRawBufferPointer) -> Bool {
        headersBegan = true
        if line.starts(with: "HTTP/".utf8) {
            // A new response (after a redirect or a 1xx) starts over.
            contentEncoded = false
            announcedLength = -1
            responseHeaders = []
            let fields = String(decoding: line, as: UTF8.self).split(separator: " ", maxSplits: 2)
            responseStatus = fields.count > 1 ? Int(fields[1]) ?? 0 : 0
            return true
        }
        if line.allSatisfy({ $0 == 0x0D || $0 == 0x0A }) { return endOfHeaders() }
        if let value = headerValue(line, named: "content-encoding:") {
            contentEncoded = !value.isEmpty && value != Array("identity".utf8)
        } else if let value = headerValue(line, named: "content-length:") {
            announcedLength = Int64(String(decoding: value, as: UTF8.self)) ?? -1
        }
        if let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > 0, responseHeaders.count < Self.keptHeaderLines {
            let name = String(decoding: line[..<colon], as: UTF8.self)
            responseHeaders.append((name, String(decoding: trimmed(line[(colon + 1)...]), as: UTF8.self)))
        }
        return true
    }

    /// The blank line after one response's headers: for a redirect libcurl is about to follow, the host's verdict
    /// (ABI 1.1 `redirect`), asked before libcurl connects anywhere for the next hop.
    private func endOfHeaders() -> Bool {
        guard request.followsRedirects, [301, 302, 303, 307, 308].contains(responseStatus),
              let location = responseHeaders.last(where: { $0.name.lowercased() == "location" })?.value, !location.isEmpty,
              let easy else { return true }
        var hops = 0
        _ = ip_curl_easy_getinfo_long(easy, CURLINFO_REDIRECT_COUNT, &hops)
        guard hops < Int(request.maxRedirects) else { return true }  // libcurl stops here with "too many redirects"
        var current: UnsafePointer<CChar>?
        _ = ip_curl_easy_getinfo_string(easy, CURLINFO_EFFECTIVE_URL, &current)
        guard let current, let target = Self.resolve(location, against: String(cString: current)) else {
            stopReason = .invalidData("the redirect's Location '\(location.prefix(200))' is not a URL")
            return false
        }
        guard callbacks.redirect(statusCode: Int32(responseStatus), location: target) else {
            stopReason = PluginFailure(IP_STATUS_REFUSED, "the host refused the redirect to \(target.prefix(200))")
            return false
        }
        return true
    }

    /// A Location resolved against the URL that sent it (RFC 3986 reference resolution, by libcurl's URL API).
    static func resolve(_ location: String, against base: String) -> String? {
        guard let handle = curl_url() else { return nil }
        defer { curl_url_cleanup(handle) }
        guard curl_url_set(handle, CURLUPART_URL, base, 0) == CURLUE_OK,
              curl_url_set(handle, CURLUPART_URL, location, 0) == CURLUE_OK else { return nil }
        var resolved: UnsafeMutablePointer<CChar>?
        guard curl_url_get(handle, CURLUPART_URL, &resolved, 0) == CURLUE_OK, let resolved else { return nil }
        defer { curl_free(resolved) }
        return String(cString: resolved)
    }

    /// The trimmed, lower-cased value when `line` is the header `name` (lower case, with its colon).
    private func headerValue(_ line: UnsafeRawBufferPointer, named name: String) -> [UInt8]? {
        let name = Array(name.utf8)
        guard line.count >= name.count, zip(line.prefix(name.count), name).allSatisfy({ lowered($0) == $1 }) else {
            return nil
        }
        return trimmed(line.dropFirst(name.count)).map(lowered)
    }

    /// A header value without the blanks and line end around it.
    private func trimmed(_ value: Slice<UnsafeRawBufferPointer>) -> [UInt8] {
        let whitespace: Set<UInt8> = [0x20, 0x09, 0x0D, 0x0A]
        return value.drop(while: whitespace.contains).reversed().drop(while: whitespace.contains).reversed()
    }

    private func lowered(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }

    /// Calls the host's `response()` once, for the final response; false (with `stopReason`) stops the transfer.
    func deliverResponse() -> Bool {
        responded = true
        guard let easy else { return false }
        var code = 0
        _ = ip_curl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &code)
        var length: curl_off_t = -1
        _ = ip_curl_easy_getinfo_off_t(easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length)
        if request.maxBytes > 0, !contentEncoded, length > 0, UInt64(length) > request.maxBytes {
            stopReason = .limitExceeded(
                "the body of \(length) bytes (Content-Length) exceeds the limit of \(request.maxBytes) bytes")
            return false
        }
        var contentType: UnsafePointer<CChar>?
        _ = ip_curl_easy_getinfo_string(easy, CURLINFO_CONTENT_TYPE, &contentType)
        var effectiveURL: UnsafePointer<CChar>?
        _ = ip_curl_easy_getinfo_string(easy, CURLINFO_EFFECTIVE_URL, &effectiveURL)
        for (name, value) in responseHeaders where !callbacks.header(name: name, value: value) {
            stopReason = PluginFailure(IP_STATUS_CANCELLED, "the host rejected the response's headers")
            return false
        }
        // With a Content-Encoding the decoded size is unknown until the end.
        let expected = contentEncoded || length < 0 ? -1 : Int64(length)
        guard callbacks.response(statusCode: Int32(clamping: code), expectedSize: expected,
                                 contentType: contentType, effectiveURL: effectiveURL) else {
            stopReason = PluginFailure(IP_STATUS_CANCELLED, "the host rejected the response")
            return false
        }
        return true
    }
}
