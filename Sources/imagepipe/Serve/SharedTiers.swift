import PipelineHost

/// The tiers every instance of a deployment shares, fastest first: Redis (`--redis`, hot, bounded by its memory)
/// then S3 (`--result-store`, durable: a restart or a new instance does not render again). A hit in a lower tier
/// is copied into the higher ones, so the next request for it is answered from the fast one. A failing tier is a
/// miss (each tier is fail-open and logs its own trouble once), never a failed request.
final class SharedTiers: Sendable {
    struct Tier: Sendable {
        /// The label in the access log and in /metrics: "shared" (Redis) or "durable" (S3).
        let label: String
        let cache: any DataCaching
    }

    let tiers: [Tier]

    init?(_ tiers: [Tier]) {
        guard !tiers.isEmpty else { return nil }
        self.tiers = tiers
    }

    /// The first tier's value for `key`, with that tier's label.
    func value(for key: String) async -> (bytes: [UInt8], tier: String)? {
        for (index, tier) in tiers.enumerated() {
            guard let bytes = try? await tier.cache.data(for: key) else { continue }
            let higher = tiers.prefix(index)
            if !higher.isEmpty {
                Task { for tier in higher { try? await tier.cache.store(bytes, for: key) } }
            }
            return (bytes, tier.label)
        }
        return nil
    }

    /// Stores into every tier at once, in the background: the response never waits for a store's round trip.
    func store(_ bytes: [UInt8], for key: String) {
        for tier in tiers { Task { try? await tier.cache.store(bytes, for: key) } }
    }
}
