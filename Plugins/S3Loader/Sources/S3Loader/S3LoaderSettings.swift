import PluginKit

/// What an instance of the S3 loader is configured with (ABI 1.1 `open`; the plugin's README lists the keys). The
/// host resolves credentials, region and endpoint the way AWS tools do (its configuration, the environment, the
/// shared files) and hands the result over: the plugin reads no environment variable and no file.
struct S3LoaderSettings: Sendable {
    enum Addressing: String, Sendable { case path, virtual }

    static let keys = ["endpoint", "region", "addressing", "access-key-id", "secret-access-key", "session-token",
                       "credentials-source", "max-attempts", "retry-base-ms"]

    /// Scheme, host and port of the store ("http://127.0.0.1:8333"); nil = AWS itself for `region`.
    let endpoint: Endpoint?
    let region: String
    let addressing: Addressing
    /// Nil = unsigned requests (a public bucket).
    let credentials: Credentials?
    /// Attempts per load, first included: 5xx answers, SlowDown and failed connections are retried with backoff.
    let maxAttempts: Int
    let retryBaseMilliseconds: Int

    struct Credentials: Sendable {
        let accessKeyID: String
        let secretAccessKey: String
        let sessionToken: String?
        /// Where the host found them, for error messages ("the environment (AWS_ACCESS_KEY_ID)"): never the secret.
        let source: String
    }

    struct Endpoint: Sendable {
        let scheme: String
        /// Host, with ":port" when one was given.
        let authority: String
    }

    init(_ configuration: LoaderConfiguration) throws {
        try configuration.refuseUnknown(known: Self.keys)
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

extension S3LoadTask {
    static func settings(from configuration: LoaderConfiguration) throws -> S3LoaderSettings {
        try S3LoaderSettings(configuration)
    }
}
