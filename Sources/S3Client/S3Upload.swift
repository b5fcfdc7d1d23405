import PluginKit
#if canImport(Glibc)
import Glibc
#endif

/// Writes one object: a single PUT up to `multipartThreshold`, else a multipart upload (create, parts of
/// `partSize`, complete; aborted on any failure so no parts are left to be billed). Either way the object appears
/// whole or not at all: S3 makes a PUT and a multipart completion atomic.
public struct S3Upload: Sendable {
    /// S3's floor for every part but the last.
    public static let minimumPartSize = 5 << 20
    public static let maximumParts = 10_000

    public let exchange: S3Exchange
    public var multipartThreshold: Int
    public var partSize: Int

    public init(exchange: S3Exchange, multipartThreshold: Int = 16 << 20, partSize: Int = 8 << 20) {
        self.exchange = exchange
        self.multipartThreshold = multipartThreshold
        self.partSize = max(Self.minimumPartSize, partSize)
    }

    /// `metadata`: names without the x-amz-meta- prefix; values printable ASCII (S3 signs them as header values).
    public func put(_ bytes: UnsafeRawBufferPointer, at location: S3Location, contentType: String?,
                    metadata: [(name: String, value: String)]) throws {
        var headers = ["Content-Type: \(contentType ?? "application/octet-stream")"]
        headers += metadata.map { "x-amz-meta-\($0.name): \($0.value)" }
        if bytes.count <= multipartThreshold {
            let answer = try exchange.perform("PUT", location, headers: headers, body: bytes)
            guard answer.isSuccess else { throw answer.failure(for: location, settings: exchange.settings) }
            return
        }
        try putInParts(bytes, at: location, headers: headers)
    }

    /// What a multipart upload of `size` bytes cuts it into: `partSize`, grown when 10,000 parts would not hold it.
    public func partLength(for size: Int) -> Int {
        max(partSize, (size + Self.maximumParts - 1) / Self.maximumParts)
    }

    private func putInParts(_ bytes: UnsafeRawBufferPointer, at location: S3Location, headers: [String]) throws {
        let created = try exchange.perform("POST", location, query: "uploads=", headers: headers)
        guard created.isSuccess else { throw created.failure(for: location, settings: exchange.settings) }
        guard let uploadID = S3ErrorAnswer.element("UploadId", in: String(decoding: created.body, as: UTF8.self)), !uploadID.isEmpty else {
            throw PluginFailure.io("the store started a multipart upload of \(location.url) without an UploadId")
        }
        let encodedID = S3Location.queryEncoded(uploadID)
        do {
            let length = partLength(for: bytes.count)
            var parts: [String] = []
            var offset = 0
            while offset < bytes.count {
                let part = UnsafeRawBufferPointer(rebasing: bytes[offset..<min(bytes.count, offset + length)])
                let number = parts.count + 1
                let answer = try exchange.perform("PUT", location, query: "partNumber=\(number)&uploadId=\(encodedID)", body: part)
                guard answer.isSuccess, let tag = answer.header("etag") else {
                    throw answer.isSuccess ? PluginFailure.io("the store stored part \(number) of \(location.url) without an ETag")
                        : answer.failure(for: location, settings: exchange.settings)
                }
                parts.append("<Part><PartNumber>\(number)</PartNumber><ETag>\(Self.xmlEscaped(tag))</ETag></Part>")
                offset += part.count
            }
            let document = Array(("<CompleteMultipartUpload>" + parts.joined() + "</CompleteMultipartUpload>").utf8)
            let completed = try document.withUnsafeBytes {
                try exchange.perform("POST", location, query: "uploadId=\(encodedID)", headers: ["Content-Type: application/xml"], body: $0)
            }
            // S3 may answer 200 and still fail the completion, in the body (its documented quirk).
            let text = String(decoding: completed.body, as: UTF8.self)
            guard completed.isSuccess, !text.contains("<Error>") else {
                let failure = completed.isSuccess ? S3Exchange.Answer(status: 500, headers: completed.headers, body: completed.body) : completed
                throw failure.failure(for: location, settings: exchange.settings)
            }
        } catch {
            _ = try? exchange.perform("DELETE", location, query: "uploadId=\(encodedID)")
            throw error
        }
    }

    private static func xmlEscaped(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            default: result.append(character)
            }
        }
        return result
    }
}

/// The store's headers in the pipeline's terms: `x-amz-meta-*` back to the names given to a put, Last-Modified as
/// seconds since the epoch.
public enum S3ObjectHeaders {
    public static func metadata(_ answer: S3Exchange.Answer) -> [(name: String, value: String)] {
        answer.headers.compactMap { header in
            let name = header.name.lowercased()
            guard name.hasPrefix("x-amz-meta-") else { return nil }
            return (String(name.dropFirst("x-amz-meta-".count)), header.value)
        }
    }

    /// An HTTP date ("Wed, 02 Dec 2026 20:51:55 GMT", RFC 9110's IMF-fixdate, which S3 sends) as seconds since
    /// the epoch; nil for any other form.
    public static func epochSeconds(httpDate: String?) -> Int64? {
        guard let httpDate else { return nil }
        let words = httpDate.split(separator: " ")
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        guard words.count == 6, words[5] == "GMT", let day = Int32(words[1]), let month = months.firstIndex(of: String(words[2])),
              let year = Int32(words[3]) else { return nil }
        let clock = words[4].split(separator: ":").compactMap { Int32($0) }
        guard clock.count == 3 else { return nil }
        var parts = tm()
        parts.tm_year = year - 1900
        parts.tm_mon = Int32(month)
        parts.tm_mday = day
        parts.tm_hour = clock[0]
        parts.tm_min = clock[1]
        parts.tm_sec = clock[2]
        return Int64(timegm(&parts))
    }
}
