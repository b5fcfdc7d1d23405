import CCurl
import CS3Curl
import PluginAPI
import PluginKit
import S3Client

/// One attempt's curl easy handle: the signed GET (libcurl's own AWS Signature Version 4, CURLOPT_AWS_SIGV4: the
/// field's most used HTTP library signs the canonical request, rather than this plugin re-implementing it), over
/// a connection kept by a reused easy handle (S3CurlHandles), with the task's callbacks.
///
/// libcurl 7.88 signs every header it sends that the request adds, so the session token and the payload hash
/// (S3 refuses a SigV4 request without x-amz-content-sha256, which this libcurl does not add) are signed too.
final class S3Transfer {
    /// SHA-256 of the empty body of a GET.
    static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    private let easy: UnsafeMutableRawPointer
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))
    private let task: S3LoadTask
    private let remainingMilliseconds: UInt64

    init(task: S3LoadTask, remainingMilliseconds: UInt64) throws {
        guard let easy = S3CurlHandles.take() else { throw PluginFailure(IP_STATUS_NO_MEMORY, "curl_easy_init failed") }
        self.easy = easy
        self.task = task
        self.remainingMilliseconds = remainingMilliseconds
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        do {
            try configure()
        } catch {
            cleanUp()
            throw error
        }
    }

    deinit { cleanUp() }

    private var cleaned = false
    private func cleanUp() {
        guard !cleaned else { return }
        cleaned = true
        S3CurlHandles.give(easy)
        if let headerList { curl_slist_free_all(headerList) }
        errorBuffer.deallocate()
    }

    private func configure() throws {
        guard S3Curl.appendHeaders(["x-amz-content-sha256: \(Self.emptyPayloadHash)"] + task.request.headers, settings: task.settings, to: &headerList) else {
            throw PluginFailure(IP_STATUS_NO_MEMORY, "cannot allocate the request headers")
        }
        let context = Unmanaged.passUnretained(task).toOpaque()
        var failed = S3Curl.setSignedTransfer(easy, url: task.location.requestURL(task.settings), settings: task.settings, headers: headerList,
                                              errorBuffer: errorBuffer, timeoutMilliseconds: remainingMilliseconds,
                                              connectTimeoutMilliseconds: UInt64(task.request.connectTimeoutMilliseconds),
                                              context: context, write: Self.write, header: Self.header)
        func set(_ name: String, _ code: CURLcode) { if code != CURLE_OK, failed == nil { failed = name } }
        set("BUFFERSIZE", ip_curl_easy_setopt_long(easy, CURLOPT_BUFFERSIZE, 64 << 10))
        set("XFERINFOFUNCTION", ip_s3_easy_set_progress(easy, Self.progress, context))
        if let failed { throw PluginFailure.internalError("libcurl refused CURLOPT_\(failed)") }
    }

    func perform() -> CURLcode { curl_easy_perform(easy) }

    /// A transport failure in words (the store's address, libcurl's own detail).
    func failure(for code: CURLcode) -> PluginFailure {
        var detail = String(cString: errorBuffer)
        if detail.isEmpty { detail = String(cString: curl_easy_strerror(code)) }
        let store = task.settings.endpoint.map { "\($0.scheme)://\($0.authority)" } ?? "AWS S3 (\(task.settings.region))"
        switch code {
        case CURLE_OPERATION_TIMEDOUT: return .io("the store \(store) timed out (\(detail))")
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST: return .io("cannot reach the store \(store) (\(detail))")
        case CURLE_PARTIAL_FILE, CURLE_RECV_ERROR: return .truncated("the store \(store) closed the connection after \(task.delivered) bytes (\(detail))")
        case CURLE_FILESIZE_EXCEEDED: return .limitExceeded("the object exceeds the limit of \(task.request.maxBytes) bytes")
        default: return .io("the store \(store): \(detail)")
        }
    }

    private static let abort = Int(CURL_WRITEFUNC_ERROR)

    private static let write: ip_curl_data_callback = { buffer, size, count, context in
        guard let context else { return abort }
        let task = Unmanaged<S3LoadTask>.fromOpaque(context).takeUnretainedValue()
        let bytes = UnsafeRawBufferPointer(start: buffer, count: size * count)
        return task.receive(bytes) ? size * count : abort
    }

    private static let header: ip_curl_data_callback = { buffer, size, count, context in
        guard let context, let buffer else { return 0 }
        let task = Unmanaged<S3LoadTask>.fromOpaque(context).takeUnretainedValue()
        task.receiveHeader(String(decoding: UnsafeRawBufferPointer(start: buffer, count: size * count), as: UTF8.self))
        return size * count
    }

    private static let progress: curl_xferinfo_callback = { context, _, _, _, _ in
        guard let context else { return 1 }
        return Unmanaged<S3LoadTask>.fromOpaque(context).takeUnretainedValue().shouldAbort() ? 1 : 0
    }
}
