import PluginAPI
import PluginKit

/// What a store's error answer means for the pipeline: S3 puts the reason in an XML body (`<Code>`, `<Message>`),
/// and the status code alone cannot tell a missing key from a missing bucket, or bad credentials from a denied
/// policy. Messages name where the credentials came from, never the secret.
public struct S3ErrorAnswer: Sendable {
    public let httpStatus: Int
    /// `<Code>`, e.g. NoSuchKey; empty when the body had none (a HEAD, a proxy's own page).
    public let code: String
    public let message: String
    /// x-amz-bucket-region, sent with a redirect or an authorisation error for a bucket in another region.
    public let bucketRegion: String?

    public init(httpStatus: Int, body: [UInt8], bucketRegion: String?) {
        self.httpStatus = httpStatus
        self.bucketRegion = bucketRegion
        let text = String(decoding: body, as: UTF8.self)
        code = Self.element("Code", in: text) ?? ""
        message = Self.element("Message", in: text) ?? ""
    }

    /// Worth another attempt: the store's own trouble or its request to slow down, not the request's fault.
    public var isRetryable: Bool {
        httpStatus >= 500 || ["SlowDown", "InternalError", "ServiceUnavailable", "RequestTimeout"].contains(code)
    }

    public func failure(for location: S3Location, settings: S3Settings, attempts: Int) -> PluginFailure {
        let object = "s3://\(location.bucket)/\(location.key)"
        let said = message.isEmpty ? "" : ": \(message)"
        let credentials = settings.credentials.map { "the credentials from \($0.source) (access key \($0.accessKeyID))" }
            ?? "no credentials (an unsigned request)"
        switch code {
        case "NoSuchKey":
            return .notFound("\(object) does not exist (NoSuchKey)")
        case "NoSuchBucket":
            return .notFound("the bucket '\(location.bucket)' does not exist (NoSuchBucket)")
        case "AccessDenied", "AllAccessDisabled", "AccountProblem":
            return PluginFailure(IP_STATUS_REFUSED, "access to \(object) denied (\(code)) with \(credentials)")
        case "SignatureDoesNotMatch":
            return PluginFailure(IP_STATUS_REFUSED, "the store rejected the request's signature (SignatureDoesNotMatch): check the "
                + "secret access key of \(credentials)")
        case "InvalidAccessKeyId":
            return PluginFailure(IP_STATUS_REFUSED, "the store does not know the access key (InvalidAccessKeyId) of \(credentials)")
        case "ExpiredToken", "TokenRefreshRequired", "InvalidToken":
            return PluginFailure(IP_STATUS_REFUSED, "the session token of \(credentials) is no longer valid (\(code))")
        case "PermanentRedirect", "AuthorizationHeaderMalformed", "IllegalLocationConstraintException":
            let region = bucketRegion.map { " in region \($0): configure region=\($0)" } ?? ""
            return .unsupported("the bucket '\(location.bucket)' is served elsewhere (\(code))\(region)\(said)")
        case "InvalidObjectState":
            return .unsupported("\(object) is archived (\(code)) and must be restored before it can be read")
        default:
            break
        }
        switch httpStatus {
        case 404: return .notFound("\(object) was not found (HTTP 404\(code.isEmpty ? "" : " \(code)"))")
        case 401, 403: return PluginFailure(IP_STATUS_REFUSED, "access to \(object) refused (HTTP \(httpStatus)\(code.isEmpty ? "" : " \(code)")) with \(credentials)")
        case 301, 307: return .unsupported("the bucket '\(location.bucket)' is served elsewhere (HTTP \(httpStatus))" + (bucketRegion.map { ": configure region=\($0)" } ?? ""))
        default:
            let tries = attempts > 1 ? " after \(attempts) attempts" : ""
            return .io("the store answered HTTP \(httpStatus)\(code.isEmpty ? "" : " \(code)")\(said) for \(object)\(tries)")
        }
    }

    /// The text of the first `<name>` element, unescaped, bounded and without control characters (it is shown).
    public static func element(_ name: String, in text: String) -> String? {
        guard let open = text.firstRange(of: "<\(name)>"), let close = text[open.upperBound...].firstRange(of: "</\(name)>") else {
            return nil
        }
        var value = String(text[open.upperBound..<close.lowerBound])
        for (entity, character) in [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&apos;", "'"), ("&amp;", "&")] {
            value = value.replacingAll(entity, with: character)
        }
        let clean = String(value.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.prefix(240).map(Character.init))
        return clean
    }
}

extension String {
    fileprivate func replacingAll(_ target: String, with replacement: String) -> String {
        var result = "", rest = Substring(self)
        while let range = rest.firstRange(of: target) {
            result += rest[..<range.lowerBound] + replacement
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}
