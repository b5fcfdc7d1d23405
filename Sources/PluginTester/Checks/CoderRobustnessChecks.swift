import PluginAPI
#if canImport(Glibc)
import Glibc
#endif

/// Hostile input: every call must return an error status (or a valid image), never crash, hang or allocate
/// without bound. Inputs are derived from the samples with a seeded generator; the progress line names the exact
/// input, so a crash is reported with what caused it and the seed that replays it.
enum CoderRobustnessChecks {
    static let all: [CheckDefinition] = [empty, truncation, bitflips, random, hugeHeaders, hostileFiles]

    private static func robustness(_ id: String, _ title: String, weight: Double,
                                   _ body: @escaping @Sendable (CheckContext, CoderUnderTest, [Sample], inout SeededRandom) throws -> Int)
        -> CheckDefinition {
        CheckDefinition(id: id, title: title, scope: .coder, hostileInput: true, applies: Applies.decodes,
                        timeout: { 90 + weight * 30 * Double($0) * Double($0) }) { context in
            let coder = try context.coder()
            let samples = Samples.load(context, coder).usable.sorted { $0.bytes.count < $1.bytes.count }
            // The same seed gives each check its own, stable stream.
            var random = SeededRandom(seed: context.settings.seed &+ UInt64(id.utf8.reduce(0) { $0 &* 31 &+ Int($1) }.magnitude))
            let inputs = try body(context, coder, samples, &random)
            if context.failures.isEmpty { context.note("\(inputs) inputs survived (seed \(context.settings.seed))") }
        }
    }

    /// Probes and decodes one hostile input; an OK answer must still be a valid image.
    static func survive(_ bytes: [UInt8], _ what: String, _ coder: CoderUnderTest, _ context: CheckContext, thumbnail: Bool = false) {
        let probed = coder.probe(bytes, CoderUnderTest.options(limits: hostileLimits), label: "probe \(what)")
        context.fail(probed.problems, "probe of \(what)")
        // 64 megapixels at most: hostile input that claims more must be refused, not slowly decoded.
        let options = CoderUnderTest.options(width: thumbnail ? 64 : 0, height: thumbnail ? 64 : 0, limits: hostileLimits)
        let decoded = coder.decode(bytes, options, label: "decode \(what)\(thumbnail ? " at 64x64" : "")")
        CoderLimitChecks.report(decoded.problems, "decode of \(what)", context)
        if let image = decoded.value { context.fail(image.valueProblems(), "decode of \(what)") }
    }

    static let hostileLimits: ip_limits = {
        var limits = TestCall.defaultLimits
        limits.max_pixels = 1 << 26
        limits.max_frames = 1000
        return limits
    }()

    /// How many samples the heavy checks use.
    static func sampleCount(_ strictness: Int) -> Int { strictness >= 10 ? Int.max : strictness >= 8 ? 4 : 2 }

    static let empty = robustness("coder.robustness.empty", "empty, 1-byte and magic-only input → error", weight: 0.1) {
        context, coder, samples, _ in
        // (input, what it is, whether it can possibly be a whole image)
        var inputs: [([UInt8], String, Bool)] = [([], "empty input", false)]
        for sample in samples.prefix(2) where sample.bytes.count > 1 {
            inputs.append((Array(sample.bytes.prefix(1)), "the first byte of \(sample.name)", false))
            inputs.append((Array(sample.bytes.prefix(16)), "the first 16 bytes of \(sample.name)", true))
        }
        let smallest = samples.first?.bytes.count ?? Int.max
        for (index, pattern) in coder.info.patterns.enumerated() where !pattern.bytes.isEmpty {
            let bytes = Array(repeating: 0, count: pattern.offset) + pattern.bytes
            inputs.append((bytes, "magic pattern \(index) alone", bytes.count >= smallest))
        }
        for (bytes, what, mayDecode) in inputs {
            survive(bytes, what, coder, context)
            let decoded = coder.decode(bytes, label: "decode \(what) once more")
            if decoded.ok && !mayDecode { context.fail("\(what): decode returned OK for \(bytes.count) bytes") }
        }
        return inputs.count
    }

    static let truncation = robustness("coder.robustness.truncation", "every truncation of the samples → error or valid image", weight: 1) {
        context, coder, samples, random in
        guard !samples.isEmpty else { throw context.skip("no usable sample") }
        var count = 0
        for sample in samples.prefix(sampleCount(context.strictness)) {
            let size = sample.bytes.count
            var lengths: [Int]
            if context.strictness >= 10 {
                lengths = Array(0..<size)
            } else {
                let budget = 20 * context.strictness
                lengths = Array(0..<min(size, budget / 2))
                lengths += (0..<(budget / 2)).map { _ in Int.random(in: 0..<max(1, size), using: &random) }
                lengths += [size / 2, size - 1, max(0, size - 2)]
            }
            for length in Set(lengths).sorted() where length < size {
                survive(Array(sample.bytes.prefix(length)), "\(sample.name) truncated to \(length) of \(size) bytes", coder, context,
                        thumbnail: length % 2 == 1)
                count += 1
            }
        }
        return count
    }

    static let bitflips = robustness("coder.robustness.bitflips", "bit flips and overwritten bytes → error or valid image", weight: 1) {
        context, coder, samples, random in
        guard !samples.isEmpty else { throw context.skip("no usable sample") }
        var count = 0
        for sample in samples.prefix(sampleCount(context.strictness)) {
            for round in 0..<(16 * context.strictness) {
                var bytes = sample.bytes
                var changes: [String] = []
                let headerOnly = Bool.random(using: &random)
                let span = headerOnly ? min(bytes.count, 512) : bytes.count
                guard span > 0 else { break }
                if round % 4 == 3 {
                    let offset = Int.random(in: 0..<span, using: &random)
                    let value: UInt8 = [0x00, 0xFF, 0x7F, 0x80][Int.random(in: 0..<4, using: &random)]
                    for index in offset..<min(bytes.count, offset + 4) { bytes[index] = value }
                    changes.append("bytes \(offset)...\(offset + 3) = 0x\(String(value, radix: 16))")
                } else {
                    for _ in 0..<Int.random(in: 1...4, using: &random) {
                        let offset = Int.random(in: 0..<span, using: &random), bit = Int.random(in: 0..<8, using: &random)
                        bytes[offset] ^= UInt8(1 << bit)
                        changes.append("bit \(bit) of byte \(offset)")
                    }
                }
                survive(bytes, "\(sample.name) with \(changes.joined(separator: ", ")) changed (round \(round), seed \(context.settings.seed))",
                        coder, context, thumbnail: round % 2 == 1)
                count += 1
            }
        }
        return count
    }

    static let random = robustness("coder.robustness.random", "random buffers, with and without the magic bytes → error", weight: 0.5) {
        context, coder, _, random in
        var count = 0
        let patterns = coder.info.patterns.filter { !$0.bytes.isEmpty }
        for round in 0..<(16 * context.strictness) {
            let length = Int.random(in: 1...(round % 3 == 0 ? 64 : 8192), using: &random)
            var bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            var what = "random buffer #\(round) of \(length) bytes (seed \(context.settings.seed))"
            if round % 2 == 1, !patterns.isEmpty {
                let pattern = patterns[(round / 2) % patterns.count]
                bytes = Array(repeating: 0, count: pattern.offset) + pattern.bytes + bytes
                what = "magic pattern + " + what
            }
            survive(bytes, what, coder, context)
            count += 1
        }
        return count
    }

    /// Headers claiming enormous sizes (2^31 pixels and more) or a million frames: refused, never allocated.
    static let hugeHeaders = robustness("coder.robustness.huge-headers", "headers claiming 2^31+ pixels or a million frames → error",
                                        weight: 0.3) { context, coder, samples, _ in
        guard !samples.isEmpty else { throw context.skip("no usable sample") }
        var count = 0
        let before = maximumResidentBytes()
        for sample in samples.prefix(sampleCount(context.strictness)) {
            var fields: [(String, Int)] = [("width", sample.width), ("height", sample.height)]
            if sample.frameCount > 1 { fields.append(("frame count", sample.frameCount)) }
            for (field, value) in fields {
                for variant in patchedHeaders(sample.bytes, value: value, field: field).prefix(4 * context.strictness) {
                    survive(variant.bytes, "\(sample.name) with its \(variant.description)", coder, context, thumbnail: count % 2 == 1)
                    if coder.info.has(IP_CODER_ANIMATED), field == "frame count" {
                        let frames = coder.frames(variant.bytes, CoderUnderTest.options(limits: hostileLimits), maximum: 200, label: "frames of \(sample.name) with its \(variant.description)")
                        context.fail(frames.problems.filter { !$0.contains("beyond the call's limits") }, "frames of \(sample.name)")
                    }
                    count += 1
                }
            }
        }
        let grown = maximumResidentBytes() - before
        if grown > 1 << 30 { context.fail("peak memory grew by \(grown >> 20) MiB while decoding huge-header variants") }
        guard count > 0 else { throw context.skip("no width, height or frame count field found in the first 4 KiB of the samples") }
        return count
    }

    static let hostileFiles = robustness("coder.robustness.hostile-files", "the corpus's malformed and hostile files → error or valid image",
                                         weight: 0.2) { context, coder, _, _ in
        let files = context.settings.hostileSamples
        guard !files.isEmpty else { throw context.skip("no hostile files of \(coder.info.format) under --samples (bad/)") }
        for path in files {
            let name = path.split(separator: "/").suffix(2).joined(separator: "/")
            guard let bytes = Samples.readFile(path) else { continue }
            survive(bytes, name, coder, context)
            survive(bytes, name, coder, context, thumbnail: true)
            if coder.info.has(IP_CODER_ANIMATED) {
                let frames = coder.frames(bytes, CoderUnderTest.options(limits: hostileLimits), maximum: 100, label: "frames of \(name)")
                CoderLimitChecks.report(frames.problems, "frames of \(name)", context)
            }
        }
        return files.count
    }

    struct Variant { let bytes: [UInt8]; let description: String }

    /// Copies of `bytes` with one occurrence of `value` in the first 4 KiB (as a big- or little-endian 16- or 32-bit
    /// field) replaced by an enormous one.
    static func patchedHeaders(_ bytes: [UInt8], value: Int, field: String) -> [Variant] {
        guard value > 0 else { return [] }
        var variants: [Variant] = []
        let window = min(bytes.count, 4096)
        for size in [4, 2] where value < (size == 4 ? 1 << 32 : 1 << 16) {
            let replacements: [Int] = size == 4 ? [0x7FFF_FFFF, 0x0001_0000, 1_000_000, 0xFFFF_FFFF] : [0xFFFF, 0x8000, 0x4000]
            for bigEndian in [true, false] {
                let encoded = encode(value, size: size, bigEndian: bigEndian)
                var offset = 0
                while offset + size <= window {
                    if Array(bytes[offset..<offset + size]) == encoded {
                        for replacement in replacements where replacement != value {
                            var copy = bytes
                            copy.replaceSubrange(offset..<offset + size, with: encode(replacement, size: size, bigEndian: bigEndian))
                            variants.append(Variant(bytes: copy, description: "\(field) \(value) at byte \(offset) (\(size * 8)-bit "
                                                    + "\(bigEndian ? "BE" : "LE")) set to \(replacement)"))
                        }
                        offset += size
                    } else {
                        offset += 1
                    }
                }
            }
        }
        return variants
    }

    private static func encode(_ value: Int, size: Int, bigEndian: Bool) -> [UInt8] {
        let bytes = (0..<size).map { UInt8((value >> (8 * $0)) & 0xFF) }
        return bigEndian ? bytes.reversed() : bytes
    }

    static func maximumResidentBytes() -> Int {
        var usage = rusage()
        getrusage(Int32(RUSAGE_SELF.rawValue), &usage)
        return usage.ru_maxrss * 1024
    }
}
