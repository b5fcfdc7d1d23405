import PluginKit
import S3Client

/// The result tier's configuration (ip_cache.open): the location on the first line, then the tier's own keys and
/// the S3 client's (which the host resolves as AWS tools do and hands over, as it does for the S3 loader):
///
///     s3://BUCKET/PREFIX [ttl=SECONDS] [max-entry=BYTES] [timeout-ms=MS]
///     endpoint=http://127.0.0.1:8333
///     access-key-id=…
///
/// Words on the first line, "key=value" lines after it (a value there may hold blanks: credentials-source does).
struct S3CacheSettings: Sendable {
    static let keys = ["ttl", "max-entry", "timeout-ms"]

    let bucket: String
    /// The key prefix every entry's object name starts with: "" or ending in "/".
    let prefix: String
    /// Seconds an entry is served after it was stored; 0 = until replaced (a bucket lifecycle rule then bounds it).
    let ttl: Int
    /// Larger values are not stored (put answers OK): the tier is for rendered thumbnails.
    let maxEntry: Int
    /// The most a get or put may take, retries included: a cache must never slow a render much.
    let timeoutMilliseconds: Int
    let client: S3Settings

    init(parsing configuration: String?) throws {
        let lines = (configuration ?? "").split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
        guard let first = lines.first else {
            throw PluginFailure.unsupported("the S3 result tier needs a location: s3://BUCKET/PREFIX")
        }
        var words = first.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        let location = words.isEmpty ? "" : words.removeFirst()
        let parsed = try LoaderConfiguration(parsing: (words + lines.dropFirst()).joined(separator: "\n"), component: "cache")
        guard location.lowercased().hasPrefix("s3://") else {
            throw PluginFailure.unsupported("the S3 result tier's location must be s3://BUCKET/PREFIX, not '\(location)'")
        }
        let rest = location.dropFirst(5)
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        bucket = String(rest[..<slash])
        try S3Location.check(bucket: bucket, url: location)
        var prefix = slash == rest.endIndex ? "" : String(rest[rest.index(after: slash)...])
        if !prefix.isEmpty, !prefix.hasSuffix("/") { prefix += "/" }
        // Checked as a key would be (no dot segments, no control characters, within S3's length).
        if !prefix.isEmpty { _ = try S3Location(parsing: "s3://\(bucket)/\(prefix)x") }
        self.prefix = prefix
        ttl = try parsed.integer(for: "ttl", in: 0...Int(Int32.max)) ?? 0
        maxEntry = try parsed.integer(for: "max-entry", in: 1...(1 << 30)) ?? 8 << 20
        timeoutMilliseconds = try parsed.integer(for: "timeout-ms", in: 1...60_000) ?? 2_000
        client = try S3Settings(parsed, extraKeys: Self.keys)
    }
}
