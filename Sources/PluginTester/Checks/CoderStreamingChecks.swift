import Dispatch
import PluginAPI
import Synchronization

/// Incremental decoding and concurrent decoding must give exactly what a one-shot, serial decode gives.
enum CoderStreamingChecks {
    static let all: [CheckDefinition] = [incremental, concurrency]

    static let incremental = CheckDefinition(
        id: "coder.incremental", title: "incremental decoding (1 byte, 13 bytes, random chunks) equals one-shot", scope: .coder,
        applies: Applies.flag(IP_CODER_INCREMENTAL, "INCREMENTAL"), timeout: { 60 + 24.0 * Double($0) }
    ) { context in
        let coder = try context.coder()
        let samples = try Samples.require(context, coder).sorted { $0.bytes.count < $1.bytes.count }.prefix(context.strictness >= 8 ? 6 : 2)
        var random = SeededRandom(seed: context.settings.seed)
        // Byte-at-a-time over a whole file is quadratic: below strictness 10 only the first bytes go one at a time.
        let byteByByte = context.strictness >= 10 ? Int.max : 1024 * context.strictness
        var runs = 0
        for sample in samples {
            let oneShot = coder.decode(sample.bytes, label: "decode \(sample.name) in one shot")
            guard let expected = oneShot.value else { continue }
            let count = sample.bytes.count
            let schedules: [(String, [Int])] = [
                ("1 byte at a time" + (count > byteByByte ? " for the first \(byteByByte) bytes, then 4096" : ""),
                 Array(repeating: 1, count: min(count, byteByByte)) + Array(repeating: 4096, count: max(0, count - byteByByte) / 4096 + 1)),
                ("13 bytes at a time", Array(repeating: 13, count: count / 13 + 1)),
                ("random chunks (seed \(context.settings.seed))", randomChunks(count, &random)),
            ]
            for (name, chunks) in schedules {
                let outcome = coder.incremental(sample.bytes, chunks: chunks, label: "incremental \(sample.name), \(name)")
                runs += 1
                context.fail(outcome.problems, "\(sample.name), \(name)")
                guard let image = outcome.value else {
                    context.fail("\(sample.name), \(name): the final update returned \(outcome.statusText)")
                    continue
                }
                if image != expected {
                    context.fail("\(sample.name), \(name): the final image (\(image.summary)) differs from the one-shot decode "
                                 + "(\(expected.summary), mean difference \(Int(image.meanDifference(to: expected).rounded())))")
                }
            }
        }
        guard runs > 0 else { throw context.skip("no sample decodes in one shot") }
        context.note("\(runs) incremental decodes of \(samples.count) sample(s) equal the one-shot decode")
    }

    static func randomChunks(_ total: Int, _ random: inout SeededRandom) -> [Int] {
        var chunks: [Int] = []
        var sum = 0
        while sum < total {
            let chunk = Bool.random(using: &random) ? Int.random(in: 1...64, using: &random) : Int.random(in: 1...8192, using: &random)
            chunks.append(chunk)
            sum += chunk
        }
        return chunks
    }

    /// A coder that claims IP_CODER_THREAD_SAFE is called concurrently by the host: same results as serial calls.
    static let concurrency = CheckDefinition(
        id: "coder.concurrency", title: "concurrent decodes on 4 threads equal serial results", scope: .coder,
        applies: Applies.flag(IP_CODER_THREAD_SAFE, "THREAD_SAFE"), timeout: { 60 + 12.0 * Double($0) }
    ) { context in
        let coder = try context.coder()
        let samples = Array(try Samples.require(context, coder).prefix(4))
        let requests = [(0, 0), (64, 64)]
        var serial: [Int: DecodedImage] = [:]
        var jobs: [(sample: Int, request: Int)] = []
        for (s, sample) in samples.enumerated() {
            for (r, request) in requests.enumerated() {
                let outcome = coder.decode(sample.bytes, CoderUnderTest.options(width: request.0, height: request.1),
                                           label: "serial decode of \(sample.name) at \(request.0)x\(request.1)")
                if let image = outcome.value { serial[s * requests.count + r] = image; jobs.append((s, r)) }
            }
        }
        guard !jobs.isEmpty else { throw context.skip("no sample decodes") }
        let rounds = max(2, context.strictness / 2)
        let mismatches = Mutex<[String]>([])
        let seed = context.settings.seed
        let (allJobs, expected) = (jobs, serial)
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            var random = SeededRandom(seed: seed &+ UInt64(thread))
            for _ in 0..<rounds {
                for job in allJobs.shuffled(using: &random) {
                    let sample = samples[job.sample], request = requests[job.request]
                    let outcome = coder.decode(sample.bytes, CoderUnderTest.options(width: request.0, height: request.1),
                                               label: "thread \(thread): decode \(sample.name) at \(request.0)x\(request.1)")
                    if outcome.value != expected[job.sample * requests.count + job.request] {
                        mismatches.withLock {
                            $0.append("\(sample.name) at \(request.0)x\(request.1) on thread \(thread): "
                                      + (outcome.value == nil ? outcome.statusText : "different pixels") + " (serial: OK)")
                        }
                    }
                    _ = coder.probe(sample.bytes, label: "thread \(thread): probe \(sample.name)")
                }
            }
        }
        let found = mismatches.withLock { $0 }
        for mismatch in found.prefix(10) { context.fail("concurrent decode differs: \(mismatch)") }
        if found.count > 10 { context.fail("… \(found.count - 10) more concurrent mismatches") }
        context.note("\(4 * rounds * jobs.count) concurrent decodes on 4 threads equal the serial results")
    }
}
