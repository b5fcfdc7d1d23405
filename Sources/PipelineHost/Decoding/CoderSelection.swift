/// The one rule for choosing a coder for some bytes.
///
/// 1. Candidates are coders that can decode and have a magic pattern matching the bytes.
/// 2. Higher pattern relevance first, then higher descriptor priority, then search-path order.
/// 3. A candidate whose matching pattern asks for confirmation is chosen only if its `sniff` answers OK.
enum CoderSelection {
    struct Candidate: Sendable {
        let coder: PluginCoder
        let relevance: Int
        let needsSniff: Bool
        let order: Int
    }

    static func candidates(for data: UnsafeRawBufferPointer, among coders: [PluginCoder]) -> [Candidate] {
        var result: [Candidate] = []
        for (order, coder) in coders.enumerated() where coder.descriptor.capabilities.contains(.decode) {
            // Among several matching patterns of one coder, take the most relevant (preferring no sniff on ties).
            let matches = coder.descriptor.patterns.filter { $0.matches(data) }
            guard let best = matches.max(by: { ($0.relevance, $0.confirmWithSniff ? 0 : 1) < ($1.relevance, $1.confirmWithSniff ? 0 : 1) }) else { continue }
            result.append(Candidate(coder: coder, relevance: best.relevance, needsSniff: best.confirmWithSniff, order: order))
        }
        return result.sorted {
            if $0.relevance != $1.relevance { return $0.relevance > $1.relevance }
            if $0.coder.descriptor.priority != $1.coder.descriptor.priority { return $0.coder.descriptor.priority > $1.coder.descriptor.priority }
            return $0.order < $1.order
        }
    }

    static func choose(for data: UnsafeRawBufferPointer, among coders: [PluginCoder]) -> PluginCoder? {
        for candidate in candidates(for: data, among: coders) {
            if !candidate.needsSniff || confirms(candidate.coder, data) { return candidate.coder }
        }
        return nil
    }

    /// The coder's sniff over the first bytes it asks for (at least 4 KiB).
    static func confirms(_ coder: PluginCoder, _ data: UnsafeRawBufferPointer) -> Bool {
        coder.sniff(UnsafeRawBufferPointer(rebasing: data.prefix(max(coder.descriptor.sniffBytes, 4096)))) == .ok
    }
}
