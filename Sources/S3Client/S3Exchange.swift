import CCurl
import CS3Curl
import PluginAPI
import PluginKit
#if canImport(Glibc)
import Glibc
#endif

/// One signed request whose whole answer is read into memory: what writes (PUT, multipart), `describe` (HEAD) and
/// the result tier need, where the loader streams a body to the host. Signed by libcurl's own SigV4 with the
/// payload's SHA-256 (S3 checks it against the body it receives); retried like a load (5xx, SlowDown, failed
/// connections; full-jitter backoff) within the deadline.
public struct S3Exchange: Sendable {
    public struct Answer: Sendable {
        public let status: Int
        public let headers: [(name: String, value: String)]
        public let body: [UInt8]

        /// The last value of a header (case-insensitive name).
        public func header(_ name: String) -> String? {
            let lowered = name.lowercased()
            return headers.last { $0.name.lowercased() == lowered }?.value
        }

        public var isSuccess: Bool { (200..<300).contains(status) }

        /// The store's error, in the pipeline's terms.
        public func failure(for location: S3Location, settings: S3Settings, attempts: Int = 1) -> PluginFailure {
            S3ErrorAnswer(httpStatus: status, body: body, bucketRegion: header("x-amz-bucket-region"))
                .failure(for: location, settings: settings, attempts: attempts)
        }
    }

    public let settings: S3Settings
    public var timeoutMilliseconds: UInt64
    public var connectTimeoutMilliseconds: UInt64
    /// Attempts, the first included (the settings' max-attempts unless set).
    public var maxAttempts: Int
    /// An answer body larger than this fails the exchange (a GET of the result tier is bounded by its entry cap).
    public var maxAnswerBytes: Int

    public init(settings: S3Settings, timeoutMilliseconds: UInt64 = 60_000, connectTimeoutMilliseconds: UInt64 = 10_000,
                maxAnswerBytes: Int = 1 << 30) {
        self.settings = settings
        self.timeoutMilliseconds = timeoutMilliseconds
        self.connectTimeoutMilliseconds = connectTimeoutMilliseconds
        self.maxAttempts = settings.maxAttempts
        self.maxAnswerBytes = maxAnswerBytes
    }

    /// `query`: already encoded and in canonical (sorted) order, e.g. "partNumber=1&uploadId=…"; `headers`: "Name:
    /// value" lines (Content-Type, x-amz-meta-*). Throws only for a transport failure after the last attempt; an
    /// answer of any status is returned (after retries when the store marks it as its own trouble). `bucketOnly`:
    /// a request of the bucket itself (a listing), the location's key unused.
    public func perform(_ method: String, _ location: S3Location, query: String = "", headers: [String] = [],
                        body: UnsafeRawBufferPointer = UnsafeRawBufferPointer(start: nil, count: 0), bucketOnly: Bool = false) throws -> Answer {
        try S3Curl.ensureInitialised()
        let payloadHash = SHA256Digest.hex(body)
        let deadline = S3Curl.nowMilliseconds() + timeoutMilliseconds
        var attempt = 1
        while true {
            let remaining = deadline > S3Curl.nowMilliseconds() ? deadline - S3Curl.nowMilliseconds() : 0
            guard remaining > 0 else { throw PluginFailure.io("the store timed out after \(timeoutMilliseconds) ms (\(attempt - 1) attempts)") }
            let transfer = try Transfer()
            let result = transfer.run(method, url: bucketOnly ? location.bucketURL(settings, query: query) : location.requestURL(settings, query: query), settings: settings,
                                      headers: ["x-amz-content-sha256: \(payloadHash)"] + headers, body: body,
                                      timeout: remaining, connectTimeout: connectTimeoutMilliseconds, maxAnswerBytes: maxAnswerBytes)
            let retryable: Bool
            let failure: PluginFailure
            switch result {
            case .answer(let answer):
                let error = S3ErrorAnswer(httpStatus: answer.status, body: answer.body, bucketRegion: answer.header("x-amz-bucket-region"))
                guard !answer.isSuccess, error.isRetryable else { return answer }
                if attempt >= maxAttempts { return answer }
                retryable = true
                failure = error.failure(for: location, settings: settings, attempts: attempt)
            case .failed(let reason, let transient):
                retryable = transient
                failure = reason
            }
            let pause = Self.backoff(after: attempt, base: settings.retryBaseMilliseconds)
            let left = deadline > S3Curl.nowMilliseconds() ? deadline - S3Curl.nowMilliseconds() : 0
            guard retryable, attempt < maxAttempts, pause < left else {
                throw attempt > 1 ? PluginFailure(failure.status, failure.message + " (after \(attempt) attempts)") : failure
            }
            usleep(UInt32(min(pause, 60_000)) * 1000)
            attempt += 1
        }
    }

    /// Full jitter (AWS's recommendation): a random pause up to base × 2^(attempt-1), at least a millisecond.
    public static func backoff(after attempt: Int, base: Int) -> UInt64 {
        let ceiling = UInt64(base) << UInt64(min(attempt - 1, 10))
        return max(1, UInt64.random(in: ceiling / 2...ceiling))
    }

    /// One attempt's easy handle.
    private final class Transfer {
        enum Result {
            case answer(Answer)
            /// `transient`: nothing was answered (a refused or reset connection, a timeout): worth another attempt.
            case failed(PluginFailure, transient: Bool)
        }

        private let easy: UnsafeMutableRawPointer
        private var headerList: UnsafeMutablePointer<curl_slist>?
        private let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE))
        private var status = 0
        private var headers: [(name: String, value: String)] = []
        private var body: [UInt8] = []
        private var limit = 0
        private var overflowed = false

        init() throws {
            guard let easy = S3CurlHandles.take() else { throw PluginFailure(IP_STATUS_NO_MEMORY, "curl_easy_init failed") }
            self.easy = easy
            errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        }

        deinit {
            S3CurlHandles.give(easy)
            if let headerList { curl_slist_free_all(headerList) }
            errorBuffer.deallocate()
        }

        func run(_ method: String, url: String, settings: S3Settings, headers lines: [String], body payload: UnsafeRawBufferPointer,
                 timeout: UInt64, connectTimeout: UInt64, maxAnswerBytes: Int) -> Result {
            limit = maxAnswerBytes
            guard S3Curl.appendHeaders(lines, settings: settings, to: &headerList) else {
                return .failed(PluginFailure(IP_STATUS_NO_MEMORY, "cannot allocate headers"), transient: false)
            }
            let context = Unmanaged.passUnretained(self).toOpaque()
            var failed = S3Curl.setSignedTransfer(easy, url: url, settings: settings, headers: headerList, errorBuffer: errorBuffer,
                                                  timeoutMilliseconds: timeout, connectTimeoutMilliseconds: connectTimeout,
                                                  context: context, write: Self.write, header: Self.header)
            func set(_ name: String, _ code: CURLcode) { if code != CURLE_OK, failed == nil { failed = name } }
            switch method {
            case "GET": break
            case "HEAD": set("NOBODY", ip_curl_easy_setopt_long(easy, CURLOPT_NOBODY, 1))
            default:
                set("CUSTOMREQUEST", ip_curl_easy_setopt_string(easy, CURLOPT_CUSTOMREQUEST, method))
                if method == "PUT" || method == "POST" {
                    // The body is borrowed for the whole perform (COPYPOSTFIELDS would copy every part).
                    set("POSTFIELDSIZE_LARGE", ip_curl_easy_setopt_off_t(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(payload.count)))
                    set("POSTFIELDS", ip_curl_easy_setopt_pointer(easy, CURLOPT_POSTFIELDS,
                                                                  UnsafeMutableRawPointer(mutating: payload.baseAddress ?? UnsafeRawPointer(("" as StaticString).utf8Start))))
                }
            }
            if let failed { return .failed(.internalError("libcurl refused CURLOPT_\(failed)"), transient: false) }
            let code = curl_easy_perform(easy)
            if overflowed { return .failed(.limitExceeded("the store's answer is larger than \(limit) bytes"), transient: false) }
            guard code == CURLE_OK else {
                var detail = String(cString: errorBuffer)
                if detail.isEmpty { detail = String(cString: curl_easy_strerror(code)) }
                let store = settings.endpoint.map { "\($0.scheme)://\($0.authority)" } ?? "AWS S3 (\(settings.region))"
                let transient = status == 0
                switch code {
                case CURLE_OPERATION_TIMEDOUT: return .failed(.io("the store \(store) timed out (\(detail))"), transient: transient)
                case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST: return .failed(.io("cannot reach the store \(store) (\(detail))"), transient: true)
                default: return .failed(.io("the store \(store): \(detail)"), transient: transient)
                }
            }
            return .answer(Answer(status: status, headers: headers, body: body))
        }

        private static let write: ip_curl_data_callback = { buffer, size, count, context in
            guard let context else { return Int(CURL_WRITEFUNC_ERROR) }
            let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
            let bytes = UnsafeRawBufferPointer(start: buffer, count: size * count)
            guard transfer.body.count + bytes.count <= transfer.limit else {
                transfer.overflowed = true
                return Int(CURL_WRITEFUNC_ERROR)
            }
            transfer.body += bytes
            return size * count
        }

        private static let header: ip_curl_data_callback = { buffer, size, count, context in
            guard let context, let buffer else { return 0 }
            let transfer = Unmanaged<Transfer>.fromOpaque(context).takeUnretainedValue()
            var line = Substring(String(decoding: UnsafeRawBufferPointer(start: buffer, count: size * count), as: UTF8.self))
            while let last = line.last, last.isNewline { line.removeLast() }
            if line.hasPrefix("HTTP/") {
                let parts = line.split(separator: " ", maxSplits: 2)
                transfer.status = parts.count > 1 ? Int(parts[1]) ?? 0 : 0
                transfer.headers = []
            } else if transfer.headers.count < 256, let colon = line.firstIndex(of: ":") {
                var value = line[line.index(after: colon)...]
                while value.first == " " || value.first == "\t" { value.removeFirst() }
                transfer.headers.append((String(line[..<colon]), String(value)))
            }
            return size * count
        }
    }
}
