import PluginAPI

/// The ABI 1.1 transcode slot, for coders that list pairs: a declared pair must have the slot, and every pair
/// survives hostile input (empty, cut and bit-flipped copies of the samples, other bytes entirely) with an error
/// status or a non-empty output, never a crash, a hang or writing into its borrowed input.
enum CoderTranscodeChecks {
    static let all: [CheckDefinition] = [hostileInput]

    static let applies: @Sendable (PluginDescription, Int) -> String? = { d, i in
        let coder = d.coders[i]
        return coder.has(IP_CODER_TRANSCODES) || !coder.transcodes.isEmpty || coder.hasTranscode ? nil : "the coder does not transcode"
    }

    static let hostileInput = CheckDefinition(
        id: "coder.transcode", title: "transcode pairs: declared with their slot, hostile input → error or output",
        scope: .coder, hostileInput: true, applies: applies, timeout: { 60 + 20 * Double($0) }
    ) { context in
        let coder = try context.coder()
        let info = coder.info
        guard info.has(IP_CODER_TRANSCODES), info.hasTranscode, !info.transcodes.isEmpty else {
            context.fail("IP_CODER_TRANSCODES, the transcode slot and the transcodes list must come together "
                         + "(flag \(info.has(IP_CODER_TRANSCODES)), slot \(info.hasTranscode), \(info.transcodes.count) pairs)")
            return
        }
        var random = SeededRandom(seed: context.settings.seed &+ 0x7472_616E)
        let samples = Samples.load(context, coder).usable.prefix(2)
        var inputs: [([UInt8], String)] = [([], "empty input"), (Array("not an image at all".utf8), "text")]
        for sample in samples {
            inputs.append((sample.bytes, sample.name))
            inputs.append((Array(sample.bytes.prefix(sample.bytes.count / 2)), "half of \(sample.name)"))
            for round in 0..<(context.settings.strictness >= 5 ? 8 : 2) {
                var flipped = sample.bytes
                for _ in 0..<max(1, flipped.count / 512) {
                    let index = Int(random.next() % UInt64(max(1, flipped.count)))
                    if !flipped.isEmpty { flipped[index] ^= UInt8(truncatingIfNeeded: 1 << (random.next() % 8)) }
                }
                inputs.append((flipped, "\(sample.name) with bits flipped (round \(round))"))
            }
        }
        for pair in info.transcodes {
            for (bytes, what) in inputs {
                let outcome = coder.transcode(bytes, pair: pair, label: "transcode \(pair) of \(what)")
                context.fail(outcome.problems, "transcode \(pair) of \(what)")
                if outcome.status == IP_STATUS_OK, outcome.value?.isEmpty ?? true {
                    context.fail("transcode \(pair) of \(what) returned OK with no output")
                }
            }
        }
        if context.failures.isEmpty { context.note("\(info.transcodes.count) pairs × \(inputs.count) inputs survived") }
    }
}
