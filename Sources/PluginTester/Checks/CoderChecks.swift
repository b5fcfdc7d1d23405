import PluginAPI
import VersionedStructs

/// Applicability rules shared by the coder checks (decided in the parent from the description).
enum Applies {
    static let decodes: @Sendable (PluginDescription, Int) -> String? = { d, i in
        d.coders[i].decodes ? nil : "the coder does not decode"
    }
    static let encodes: @Sendable (PluginDescription, Int) -> String? = { d, i in
        d.coders[i].encodes ? nil : "the coder does not encode"
    }
    static func flag(_ flag: UInt64, _ name: String) -> @Sendable (PluginDescription, Int) -> String? {
        { d, i in
            guard d.coders[i].decodes else { return "the coder does not decode" }
            return d.coders[i].has(flag) ? nil : "the coder does not claim \(name)"
        }
    }
}

/// Sniffing, probing and plain decoding of the coder's samples.
enum CoderChecks {
    static let all: [CheckDefinition] = [sniffing, probe, decode, deterministic, newerHost]

    /// The host routes by the descriptor's patterns (+ sniff where asked): every sample must route to this coder.
    static let sniffing = CheckDefinition(id: "coder.sniffing", title: "sniffing picks this coder for its samples", scope: .coder,
                                          applies: Applies.decodes) { context in
        let coder = try context.coder()
        let samples = try Samples.require(context, coder)
        let plugin = try context.plugin()
        let description = try PluginDescription(plugin: plugin)
        let tables = try plugin.coders()
        var routed = 0
        var unrouted: [String] = []
        for sample in samples {
            let chosen = MagicMatch.choose(sample.bytes, coders: description.coders, tables: tables, callLimit: context.settings.callLimit)
            if chosen == context.settings.component {
                routed += 1
            } else if let other = chosen {
                context.fail("\(sample.name): the plugin's magic patterns route it to its other coder \(description.coders[other].id)")
            } else {
                unrouted.append(sample.name)
            }
        }
        // A sample named like this format may hold another (a .heif file holding AVIF): one stray sample is a
        // warning; when none at all routes here, the patterns are wrong.
        if routed == 0 && !unrouted.isEmpty {
            context.fail("no sample routes to this coder by its magic patterns (\(unrouted.prefix(4).joined(separator: ", ")))")
        } else {
            for name in unrouted { context.warn("\(name): no pattern of this plugin matches it (another format under this extension?)") }
        }
        // sniff must cope with any prefix (it may see fewer than sniff_bytes) and with random bytes.
        if coder.table.sniff != nil {
            var random = SeededRandom(seed: context.settings.seed)
            var inputs: [([UInt8], String)] = []
            for sample in samples.prefix(2) {
                for length in [0, 1, 2, 3, 4, 7, 8, 12, 16, 31, 64, 255] where length <= sample.bytes.count {
                    inputs.append((Array(sample.bytes.prefix(length)), "sniff of the first \(length) bytes of \(sample.name)"))
                }
            }
            for index in 0..<(4 * context.strictness) {
                let count = Int.random(in: 0...512, using: &random)
                inputs.append(((0..<count).map { _ in UInt8.random(in: 0...255, using: &random) }, "sniff of random buffer #\(index)"))
            }
            for (bytes, label) in inputs {
                let status = coder.sniff(bytes, label: label) ?? IP_STATUS_OK
                if ![IP_STATUS_OK, IP_STATUS_UNSUPPORTED, IP_STATUS_NEED_MORE].contains(status) {
                    context.fail("\(label) returned \(StatusName.of(status)); sniff answers OK, UNSUPPORTED or NEED_MORE")
                }
            }
            context.note("\(routed) sample(s) route to this coder; sniff survived \(inputs.count) prefixes and random buffers")
        } else {
            context.note("\(routed) sample(s) route to this coder by their magic bytes")
        }
    }

    /// probe reads the facts without pixels: sane sizes and counts, NUL-terminated strings, stable answers.
    static let probe = CheckDefinition(id: "coder.probe", title: "probe: sizes, counts, strings", scope: .coder,
                                       applies: Applies.decodes) { context in
        let coder = try context.coder()
        let samples = try Samples.require(context, coder)
        for sample in samples {
            let info = sample.info
            let name = sample.name
            if info.width == 0 || info.height == 0 { context.fail("\(name): probe says \(info.width)x\(info.height)") }
            if info.page_count == 0 { context.warn("\(name): page_count is 0 (1 for single-page sources)") }
            if !(1...16).contains(info.bit_depth) { context.warn("\(name): bit_depth \(info.bit_depth) is outside 1...16") }
            if info.loop_count < -1 { context.fail("\(name): loop_count \(info.loop_count) (0 infinite, N, or -1 not stated)") }
            let format = withUnsafeBytes(of: info.format) { Array($0) }
            let details = withUnsafeBytes(of: info.details) { Array($0) }
            if !format.contains(0) { context.fail("\(name): info.format is not NUL-terminated within 32 bytes") }
            if !details.contains(0) { context.fail("\(name): info.details is not NUL-terminated within 256 bytes") }
            if String(validating: format.prefix { $0 != 0 }, as: UTF8.self) == nil { context.fail("\(name): info.format is not UTF-8") }
            if String(validating: details.prefix { $0 != 0 }, as: UTF8.self) == nil { context.fail("\(name): info.details is not UTF-8") }
            if format.first == 0 { context.warn("\(name): info.format is empty (the host then uses the descriptor's format)") }
            let again = coder.probe(sample.bytes, label: "probe \(name) again")
            if let second = again.value, second.width != info.width || second.height != info.height || second.frame_count != info.frame_count
                || second.page_count != info.page_count {
                context.fail("\(name): a second probe gives different facts")
            }
            context.fail(again.problems, name)
        }
        context.note("\(samples.count) sample(s): " + samples.prefix(4).map { "\($0.name) \($0.width)x\($0.height)" }.joined(separator: ", "))
    }

    /// A full-size decode of every sample: the probe's size, a valid buffer, honest alpha.
    static let decode = CheckDefinition(id: "coder.decode", title: "decode at full size: size, stride, alpha invariants", scope: .coder,
                                        applies: Applies.decodes, timeout: { 60 + 12.0 * Double($0) }) { context in
        let coder = try context.coder()
        let set = Samples.load(context, coder)
        for rejected in set.rejected { context.warn("sample \(rejected)") }
        guard !set.usable.isEmpty else { throw context.skip("no usable sample of \(coder.info.format)") }
        var decoded = 0
        var alphaNotes: [String] = []
        for sample in set.usable {
            let outcome = coder.decode(sample.bytes, label: "decode \(sample.name) at full size")
            context.fail(outcome.problems, sample.name)
            guard outcome.ok, let image = outcome.value else {
                context.warn("\(sample.name): probe succeeded but decode returned \(outcome.statusText)")
                continue
            }
            decoded += 1
            if image.width != sample.width || image.height != sample.height {
                context.fail("\(sample.name): decoded \(image.width)x\(image.height), but probe said \(sample.width)x\(sample.height)")
            }
            if image.index != 0 { context.warn("\(sample.name): the first image has index \(image.index), not 0") }
            context.fail(image.valueProblems(), sample.name)
            if sample.info.has_alpha == 0 && image.alphaMode != IP_ALPHA_NONE {
                alphaNotes.append("\(sample.name): probe says no alpha, yet the image is \(image.summary) (IP_ALPHA_NONE lets the host skip alpha work)")
            }
        }
        context.note("\(decoded) of \(set.usable.count) sample(s) decoded\(set.synthetic ? " (its own encoding of a synthetic image)" : "")")
        alphaNotes.forEach(context.note)
    }

    /// The same input twice gives the same pixels (no uninitialised memory, no hidden state between calls).
    static let deterministic = CheckDefinition(id: "coder.deterministic", title: "two decodes give identical pixels", scope: .coder,
                                               applies: Applies.decodes) { context in
        let coder = try context.coder()
        let samples = try Samples.require(context, coder)
        for sample in samples {
            for (width, height) in [(0, 0), (48, 48)] {
                let options = CoderUnderTest.options(width: width, height: height)
                let label = width == 0 ? "full size" : "\(width)x\(height)"
                let first = coder.decode(sample.bytes, options, label: "decode \(sample.name) at \(label)")
                let second = coder.decode(sample.bytes, options, label: "decode \(sample.name) at \(label) again")
                guard let a = first.value, let b = second.value else { continue }
                if a != b {
                    context.fail("\(sample.name) at \(label): two decodes differ (\(a.summary) vs \(b.summary), mean difference "
                                 + "\(Int(a.meanDifference(to: b).rounded())))")
                }
            }
        }
        context.note("\(samples.count) sample(s) decode identically twice, at full size and 48x48")
    }
}

extension CoderChecks {
    /// A 1.0 plugin under a later host: longer options and limits structs (with bytes it must not read) and an
    /// extension it cannot know give exactly the pixels of a plain request.
    static let newerHost = CheckDefinition(id: "coder.newer-host", title: "longer option structs and unknown extensions are ignored",
                                           scope: .coder, applies: Applies.decodes) { context in
        let coder = try context.coder()
        let samples = try Samples.require(context, coder)
        var compared = 0
        for sample in samples {
            for (width, height) in [(0, 0), (40, 40)] {
                let label = width == 0 ? "full size" : "\(width)x\(height)"
                let plain = CoderUnderTest.options(width: width, height: height)
                var dressed = plain
                dressed.asNewerHost = true
                let expected = coder.decode(sample.bytes, plain, label: "decode \(sample.name) at \(label)")
                let got = coder.decode(sample.bytes, dressed, label: "decode \(sample.name) at \(label) as a newer host asks")
                guard let a = expected.value else { continue }
                guard let b = got.value else {
                    context.fail("\(sample.name) at \(label): a newer host's request failed (\(got.statusText)) where a 1.0 request decoded")
                    continue
                }
                compared += 1
                if a != b { context.fail("\(sample.name) at \(label): a newer host's request decoded differently (\(a.summary) vs \(b.summary))") }
            }
        }
        context.note("\(compared) decode(s) identical with 64-byte longer options and limits and an unknown extension")
    }
}

/// The host's coder choice over this plugin's coders (CoderSelection): most relevant matching pattern first,
/// then priority, then order; a confirm-with-sniff match only counts if sniff answers OK.
enum MagicMatch {
    static func matches(_ pattern: PluginDescription.Pattern, _ data: [UInt8]) -> Bool {
        var start = pattern.offset
        while start <= pattern.offset + pattern.searchRange, start + pattern.bytes.count <= data.count {
            var equal = true
            for index in 0..<pattern.bytes.count {
                let mask = pattern.mask?[index] ?? 0xFF
                if data[start + index] & mask != pattern.bytes[index] & mask { equal = false; break }
            }
            if equal { return true }
            start += 1
        }
        return false
    }

    static func choose(_ data: [UInt8], coders: [PluginDescription.Coder], tables: [CoderEntryPoints], callLimit: Double) -> Int? {
        var candidates: [(index: Int, relevance: Int, sniff: Bool)] = []
        for (index, coder) in coders.enumerated() where coder.decodes {
            let hits = coder.patterns.filter { matches($0, data) }
            guard let best = hits.max(by: { ($0.relevance, $0.confirmWithSniff ? 0 : 1) < ($1.relevance, $1.confirmWithSniff ? 0 : 1) }) else { continue }
            candidates.append((index, best.relevance, best.confirmWithSniff))
        }
        candidates.sort { a, b in
            if a.relevance != b.relevance { return a.relevance > b.relevance }
            if coders[a.index].priority != coders[b.index].priority { return coders[a.index].priority > coders[b.index].priority }
            return a.index < b.index
        }
        for candidate in candidates {
            guard candidate.sniff else { return candidate.index }
            let under = CoderUnderTest(table: tables[candidate.index], info: coders[candidate.index], callLimit: callLimit)
            let window = Array(data.prefix(max(coders[candidate.index].sniffBytes, 4096)))
            if under.sniff(window, label: "sniff to confirm \(coders[candidate.index].id)") == IP_STATUS_OK { return candidate.index }
        }
        return nil
    }
}
