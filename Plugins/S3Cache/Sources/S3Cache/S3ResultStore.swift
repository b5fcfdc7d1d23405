import PluginAPI
import PluginKit
import S3Client
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Entries as objects under the tier's prefix, named by the SHA-256 of the host's key (keys may be 4,096 bytes,
/// object names at most 1,024). Each object holds a short header — format, expiry, the key itself — and the
/// value, so a get checks that the object is the key's (a name collision or a stray object is a miss, never a
/// wrong image) and still fresh, in one GET.
///
/// Fail-open, like the Redis tier: a store that fails (unreachable, 5xx, denied) is "down" for one second, during
/// which calls fail at once without touching the network; the host counts a failing cache as a miss, so a render
/// goes on. The transition down is logged once, the return once, not once per request.
final class S3ResultStore: CacheStore {
    static let format = "imagepipe-result/1"

    private let settings: S3CacheSettings
    private let exchange: S3Exchange
    private let health = Mutex(Health())
    private let counts = Mutex((hits: UInt64(0), misses: UInt64(0)))

    private struct Health {
        var downUntil: UInt64 = 0
        var isDown = false
    }

    private init(settings: S3CacheSettings) {
        self.settings = settings
        var exchange = S3Exchange(settings: settings.client, timeoutMilliseconds: UInt64(settings.timeoutMilliseconds),
                                  connectTimeoutMilliseconds: UInt64(min(settings.timeoutMilliseconds, 1_000)),
                                  maxAnswerBytes: settings.maxEntry + 8_192)
        exchange.maxAttempts = min(settings.client.maxAttempts, 2)
        self.exchange = exchange
    }

    static func open(configuration: String?) throws -> S3ResultStore {
        try S3Curl.ensureInitialised()
        return S3ResultStore(settings: try S3CacheSettings(parsing: configuration))
    }

    func location(for key: String) -> S3Location {
        S3Location(bucket: settings.bucket, key: settings.prefix + SHA256Digest.hex(key))
    }

    func value(for key: String) throws -> [UInt8]? {
        let location = location(for: key)
        let answer = try guarded { try exchange.perform("GET", location) }
        guard answer.isSuccess || answer.status == 404 else { throw noteFailure(answer.failure(for: location, settings: settings.client)) }
        let value = answer.status == 404 ? nil : Self.value(in: answer.body, for: key, now: Self.epochNow())
        counts.withLock { if value == nil { $0.misses += 1 } else { $0.hits += 1 } }
        return value
    }

    /// Hits and misses of this process's store; entry count and bytes stay 0, since counting them would list the
    /// whole prefix (the bucket's own metrics, or its inventory, give them).
    func statistics() -> ip_cache_stats? {
        let (hits, misses) = counts.withLock { ($0.hits, $0.misses) }
        return ip_cache_stats(struct_size: UInt32(MemoryLayout<ip_cache_stats>.size), entry_count: 0, total_bytes: 0, hits: hits, misses: misses)
    }

    func store(_ value: UnsafeBufferPointer<UInt8>, for key: String) throws {
        guard value.count <= settings.maxEntry else { return }
        let expires = settings.ttl == 0 ? 0 : Self.epochNow() + Int64(settings.ttl)
        let keyBytes = Array(key.utf8)
        var object = Array("\(Self.format) \(expires) \(keyBytes.count)\n".utf8)
        object.reserveCapacity(object.count + keyBytes.count + value.count)
        object += keyBytes
        object += value
        let location = location(for: key)
        let answer = try guarded {
            try object.withUnsafeBytes { try exchange.perform("PUT", location, headers: ["Content-Type: application/octet-stream"], body: $0) }
        }
        guard answer.isSuccess else { throw noteFailure(answer.failure(for: location, settings: settings.client)) }
    }

    func remove(_ key: String) throws {
        let location = location(for: key)
        let answer = try guarded { try exchange.perform("DELETE", location) }
        guard answer.isSuccess || answer.status == 404 else { throw noteFailure(answer.failure(for: location, settings: settings.client)) }
    }

    /// Every object under the prefix (ListObjectsV2 pages of up to 1,000, each object deleted): the tier's own
    /// prefix only, never the rest of the bucket.
    func removeAll() throws {
        let listing = S3Location(bucket: settings.bucket, key: "x")
        var token: String?
        repeat {
            var query = "list-type=2&prefix=\(S3Location.queryEncoded(settings.prefix))"
            if let token { query = "continuation-token=\(S3Location.queryEncoded(token))&" + query }
            let answer = try guarded { try exchange.perform("GET", listing, query: query, bucketOnly: true) }
            guard answer.isSuccess else { throw noteFailure(answer.failure(for: listing, settings: settings.client)) }
            let text = String(decoding: answer.body, as: UTF8.self)
            for name in Self.elements("Key", in: text) {
                let object = S3Location(bucket: settings.bucket, key: name)
                let deleted = try guarded { try exchange.perform("DELETE", object) }
                guard deleted.isSuccess || deleted.status == 404 else { throw noteFailure(deleted.failure(for: object, settings: settings.client)) }
            }
            token = text.contains("<IsTruncated>true</IsTruncated>") ? S3ErrorAnswer.element("NextContinuationToken", in: text) : nil
        } while token != nil
    }

    // MARK: The object's layout

    /// The value stored in `object` for `key`, or nil when the object is another key's, malformed or expired.
    static func value(in object: [UInt8], for key: String, now: Int64) -> [UInt8]? {
        guard let newline = object.prefix(256).firstIndex(of: 10) else { return nil }
        let header = String(decoding: object[..<newline], as: UTF8.self).split(separator: " ")
        guard header.count == 3, header[0] == format, let expires = Int64(header[1]), let keyLength = Int(header[2]) else { return nil }
        if expires != 0, expires <= now { return nil }
        let keyStart = newline + 1
        let keyBytes = Array(key.utf8)
        guard keyLength == keyBytes.count, object.count >= keyStart + keyLength,
              object[keyStart..<(keyStart + keyLength)].elementsEqual(keyBytes) else { return nil }
        return Array(object[(keyStart + keyLength)...])
    }

    // MARK: Fail-open

    /// Runs `body` unless the store is down; a transport failure marks it down.
    private func guarded<T>(_ body: () throws -> T) throws -> T {
        let now = S3Curl.nowMilliseconds()
        if health.withLock({ $0.isDown && now < $0.downUntil }) {
            throw PluginFailure.io("the S3 result tier is down (retried after a second)")
        }
        do {
            let result = try body()
            let recovered = health.withLock { state -> Bool in
                defer { state.isDown = false }
                return state.isDown
            }
            if recovered { Host.log(IP_LOG_INFO, "the S3 result tier answers again (s3://\(settings.bucket)/\(settings.prefix))") }
            return result
        } catch let failure as PluginFailure {
            throw noteFailure(failure)
        }
    }

    /// Marks the store down for a second and logs the transition once.
    private func noteFailure(_ failure: PluginFailure) -> PluginFailure {
        let wasUp = health.withLock { state -> Bool in
            defer {
                state.isDown = true
                state.downUntil = S3Curl.nowMilliseconds() + 1_000
            }
            return !state.isDown
        }
        if wasUp {
            Host.log(IP_LOG_WARNING, "the S3 result tier (s3://\(settings.bucket)/\(settings.prefix)) failed: \(failure.message); "
                     + "serving without it until it answers again")
        }
        return failure
    }

    private static func epochNow() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec)
    }

    private static func elements(_ name: String, in text: String) -> [String] {
        var found: [String] = []
        var rest = Substring(text)
        while let open = rest.firstRange(of: "<\(name)>"), let close = rest[open.upperBound...].firstRange(of: "</\(name)>") {
            found.append(String(rest[open.upperBound..<close.lowerBound]).replacingXMLEntities)
            rest = rest[close.upperBound...]
        }
        return found
    }
}

extension String {
    fileprivate var replacingXMLEntities: String {
        guard contains("&") else { return self }
        var text = self
        for (entity, character) in [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&apos;", "'"), ("&#34;", "\""), ("&amp;", "&")] {
            text = text.split(separator: entity, omittingEmptySubsequences: false).joined(separator: character)
        }
        return text
    }
}
