import PluginKit
import S3Client

/// Outputs to s3:// (ABI 1.1 put and describe): the object and its metadata (a batch's resume stamp) in one PUT,
/// or a multipart upload above the configured threshold; describe is a HEAD.
extension S3LoadTask: LoadWriting {
    static let defaultPutTimeoutMilliseconds: UInt64 = 300_000

    static func put(_ request: PutRequest, settings: S3Settings) throws {
        let location = try S3Location(parsing: request.url)
        var exchange = S3Exchange(settings: settings,
                                  timeoutMilliseconds: request.timeoutMilliseconds == 0 ? defaultPutTimeoutMilliseconds : UInt64(request.timeoutMilliseconds))
        exchange.maxAnswerBytes = 1 << 20
        let upload = S3Upload(exchange: exchange, multipartThreshold: settings.multipartThreshold, partSize: settings.partSize)
        try upload.put(request.bytes, at: location, contentType: request.contentType, metadata: request.metadata)
    }

    static func describe(url: String, settings: S3Settings) throws -> StoredObject? {
        let location = try S3Location(parsing: url)
        var exchange = S3Exchange(settings: settings, timeoutMilliseconds: UInt64(S3Request.defaultTimeoutMilliseconds))
        exchange.maxAnswerBytes = 64 << 10
        let answer = try exchange.perform("HEAD", location)
        if answer.status == 404 { return nil }
        guard answer.isSuccess else { throw answer.failure(for: location, settings: settings) }
        return StoredObject(size: answer.header("content-length").flatMap { Int64($0) },
                            modified: S3ObjectHeaders.epochSeconds(httpDate: answer.header("last-modified")),
                            metadata: S3ObjectHeaders.metadata(answer))
    }
}
