import PluginKit

/// What an S3 client is configured with (the S3 loader's ABI 1.1 `open`, the S3 result tier's `open`; each plugin's
/// README lists the keys). The host resolves credentials, region and endpoint the way AWS tools do (its configuration, the environment, the
/// shared files) and hands the result over: the plugin reads no environment variable and no file.
public struct S3Settings: Sendable {
    public enum Addressing: String, Sendable { case path, virtual }

    public static let keys = ["endpoint", "region", "addressing", "access-key-id", "secret-access-key", "session-token",
                       "credentials-source", "max-attempts", "retry-base-ms", "multipart-threshold", "part-size"]

    /// Scheme, host and port of the store ("http://127.0.0.1:8333"); nil = AWS itself for `region`.
    public let endpoint: Endpoint?
    public let region: String
    public let addressing: Addressing
    /// Nil = unsigned requests (a public bucket).
    public let credentials: Credentials?
    /// Attempts per load, first included: 5xx answers, SlowDown and failed connections are retried with backoff.
    public let maxAttempts: Int
    public let retryBaseMilliseconds: Int
    /// Writes above this many bytes go as a multipart upload of `partSize` parts (S3's floor for a part: 5 MiB).
    public let multipartThreshold: Int
    public let partSize: Int

    public struct Credentials: Sendable {
        public let accessKeyID: String
        public let secretAccessKey: String
        public let sessionToken: String?
        /// Where the host found them, for error messages ("the environment (AWS_ACCESS_KEY_ID)"): never the secret.
        public let source: String
    }

    public struct Endpoint: Sendable {
        public let scheme: String
        /// Host, with ":port" when one was given.
        public let authority: String
    }

    /// `extraKeys`: the keys the client's plugin reads itself (the result tier's location, expiry, size cap).
    public init(_ configuration: LoaderConfiguration, extraKeys: [String] = []) throws {
        try configuration.refuseUnknown(known: Self.keys + extraKeys)
        region = configuration.value(for: "region").flatMap { $0.isEmpty ? nil : $0 } ?? "us-east-1"
        guard region.utf8.allSatisfy({ Self.isRegionByte($0) }) else {
            throw PluginFailure.unsupported("configuration region=\(region): expected a region name such as eu-west-1")
        }
        endpoint = try configuration.value(for: "endpoint").flatMap { $0.isEmpty ? nil : try Self.endpoint($0) }
        switch configuration.value(for: "addressing") {
        case nil, "": addressing = endpoint == nil ? .virtual : .path
        case let text?:
            guard let chosen = Addressing(rawValue: text) else {
                throw PluginFailure.unsupported("configuration addressing=\(text): expected path or virtual")
            }
            addressing = chosen
        }
        let key = configuration.value(for: "access-key-id") ?? "", secret = configuration.value(for: "secret-access-key") ?? ""
        switch (key.isEmpty, secret.isEmpty) {
        case (true, true): credentials = nil
        case (false, false):
            let token = configuration.value(for: "session-token") ?? ""
            credentials = Credentials(accessKeyID: key, secretAccessKey: secret, sessionToken: token.isEmpty ? nil : token,
                                      source: configuration.value(for: "credentials-source").flatMap { $0.isEmpty ? nil : $0 }
                                          ?? "the loader configuration")
        default:
            throw PluginFailure.unsupported("configuration: access-key-id and secret-access-key go together (one is missing)")
        }
        for value in [key, secret, configuration.value(for: "session-token") ?? ""] where value.utf8.contains(where: { $0 < 0x21 || $0 == 0x7F }) {
            throw PluginFailure.unsupported("configuration: a credential holds a blank or control character")
        }
        maxAttempts = try configuration.integer(for: "max-attempts", in: 1...10) ?? 3
        retryBaseMilliseconds = try configuration.integer(for: "retry-base-ms", in: 1...60_000) ?? 100
        multipartThreshold = try configuration.integer(for: "multipart-threshold", in: (5 << 20)...(5 << 30)) ?? 16 << 20
        partSize = try configuration.integer(for: "part-size", in: (5 << 20)...(5 << 30)) ?? 8 << 20
    }

    /// "http(s)://host[:port][/]": a store's address, with no path, query or credentials in it.
    private static func endpoint(_ text: String) throws -> Endpoint {
        let lowered = text.lowercased()
        let scheme = lowered.hasPrefix("https://") ? "https" : lowered.hasPrefix("http://") ? "http" : nil
        guard let scheme else {
            throw PluginFailure.unsupported("configuration endpoint=\(text): expected http://HOST[:PORT] or https://HOST[:PORT]")
        }
        var authority = String(text.dropFirst(scheme.count + 3))
        if authority.hasSuffix("/") { authority.removeLast() }
        guard !authority.isEmpty, !authority.contains("/"), !authority.contains("@"), !authority.contains("?"), !authority.contains("#"),
              authority.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw PluginFailure.unsupported("configuration endpoint=\(text): expected a scheme, a host and a port only")
        }
        return Endpoint(scheme: scheme, authority: authority)
    }

    private static func isRegionByte(_ byte: UInt8) -> Bool {
        (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte) || byte == 0x2D
    }
}
