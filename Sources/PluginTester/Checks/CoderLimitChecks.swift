import Dispatch
import PipelineHost
import PluginAPI
import Synchronization

/// Limits (refuse before allocating) and cancellation (stop soon after the host asks).
enum CoderLimitChecks {
    static let all: [CheckDefinition] = [limits, cancellation]

    /// Problems of a call, split: asking alloc_pixels beyond the limits is a warning (the host refuses it anyway),
    /// everything else a failure.
    static func report(_ problems: [String], _ where_: String, _ context: CheckContext) {
        for problem in problems {
            if problem.contains("beyond the call's limits") { context.warn("\(where_): \(problem)") } else { context.fail("\(where_): \(problem)") }
        }
    }

    static let limits = CheckDefinition(id: "coder.limits", title: "limits below the image → LIMIT_EXCEEDED without allocating",
                                        scope: .coder, applies: Applies.decodes) { context in
        let coder = try context.coder()
        let samples = try Samples.require(context, coder).filter { $0.width * $0.height >= 4 }.prefix(4)
        guard !samples.isEmpty else { throw context.skip("no sample larger than 2x2") }
        var refused = 0
        for sample in samples {
            let w = sample.width, h = sample.height
            var cases: [(String, ip_limits)] = []
            var pixels = TestCall.defaultLimits
            pixels.max_pixels = UInt64(w * h - 1)
            cases.append(("max_pixels \(w * h - 1) for \(w)x\(h)", pixels))
            var dimension = TestCall.defaultLimits
            dimension.max_dimension = UInt32(max(w, h) - 1)
            cases.append(("max_dimension \(max(w, h) - 1) for \(w)x\(h)", dimension))
            for (what, limits) in cases {
                let outcome = coder.decode(sample.bytes, CoderUnderTest.options(limits: limits), label: "decode \(sample.name) with \(what)")
                report(outcome.problems, "\(sample.name) with \(what)", context)
                if outcome.ok {
                    context.fail("\(sample.name): decoded despite \(what)")
                } else if outcome.status != IP_STATUS_LIMIT_EXCEEDED {
                    context.fail("\(sample.name): \(what) gave \(outcome.statusText), not LIMIT_EXCEEDED")
                } else {
                    refused += 1
                }
            }
            var input = TestCall.defaultLimits
            input.max_input_bytes = UInt64(max(1, sample.bytes.count - 1))
            let outcome = coder.decode(sample.bytes, CoderUnderTest.options(limits: input),
                                       label: "decode \(sample.name) with max_input_bytes \(sample.bytes.count - 1)")
            if outcome.ok { context.warn("\(sample.name): max_input_bytes \(sample.bytes.count - 1) is ignored (the input has \(sample.bytes.count))") }
            // Animations: max_frames bounds what an iteration produces.
            if coder.info.has(IP_CODER_ANIMATED), sample.frameCount > 2 {
                var frames = TestCall.defaultLimits
                frames.max_frames = 2
                let iterated = coder.frames(sample.bytes, CoderUnderTest.options(limits: frames), maximum: 10,
                                            label: "frames of \(sample.name) with max_frames 2")
                report(iterated.problems, "\(sample.name) with max_frames 2", context)
                if iterated.ok, let produced = iterated.value, produced.count > 2 {
                    context.fail("\(sample.name): max_frames 2 but the iteration produced \(produced.count) frames")
                }
            }
        }
        context.note("\(refused) decodes over a pixel or dimension limit refused with LIMIT_EXCEEDED")
    }

    static let cancellation = CheckDefinition(id: "coder.cancellation", title: "cancellation (before and during a decode) is honoured promptly",
                                              scope: .coder, applies: Applies.decodes) { context in
        let coder = try context.coder()
        var inputs = Samples.load(context, coder).usable.map { ($0.name, $0.bytes, $0.width * $0.height) }
        if coder.info.encodes, inputs.map(\.2).max() ?? 0 < 400_000 {
            let encoded = SyntheticImage.encode(coder, width: 1536, height: 1024, fast: true, label: "encode a 1536x1024 image to cancel")
            if encoded.ok, let bytes = encoded.value { inputs.append(("its own 1536x1024 encoding", bytes, 1536 * 1024)) }
        }
        guard let (name, bytes, _) = inputs.max(by: { $0.2 < $1.2 }) else { throw context.skip("no sample to decode") }

        // Cancelled before the call: nothing to decode.
        let early = TestCall()
        early.cancel()
        let started = ChildProcess.now()
        let cancelled = coder.decode(bytes, call: early, label: "decode \(name) with a call cancelled beforehand")
        let earlySeconds = ChildProcess.now() - started
        let full = ChildProcess.now()
        let reference = coder.decode(bytes, label: "decode \(name) to time it")
        let fullSeconds = ChildProcess.now() - full
        guard reference.ok else { throw context.skip("\(name) does not decode: \(reference.statusText)") }
        if cancelled.status == IP_STATUS_CANCELLED {
            context.note("a cancelled call returned CANCELLED in \(milliseconds(earlySeconds)) (a full decode of \(name) takes \(milliseconds(fullSeconds)))")
        } else if cancelled.ok {
            if early.pollCount > 0 {
                context.fail("is_cancelled answered 1 (\(early.pollCount) polls) but decode still returned OK")
            } else if fullSeconds >= 0.02 {
                context.warn("never polled is_cancelled during a \(milliseconds(fullSeconds)) decode of \(name): poll between rows or tiles")
            } else {
                context.note("no cancellation poll in a \(milliseconds(fullSeconds)) decode (too short to matter)")
            }
        } else {
            context.warn("a cancelled call returned \(cancelled.statusText), not CANCELLED")
        }

        // Cancelled from another thread while decoding.
        guard fullSeconds >= 0.03 else {
            context.note("mid-decode cancellation not tried: a decode takes only \(milliseconds(fullSeconds))")
            return
        }
        let call = TestCall()
        let cancelTime = Mutex<Double?>(nil)
        let delay = fullSeconds / 4
        DispatchQueue.global().async {
            let until = ChildProcess.now() + delay
            while ChildProcess.now() < until { usleepSeconds(0.001) }
            cancelTime.withLock { $0 = ChildProcess.now() }
            call.cancel()
        }
        let outcome = coder.decode(bytes, call: call, label: "decode \(name), cancelled from another thread after \(milliseconds(delay))")
        let returned = ChildProcess.now()
        guard let at = cancelTime.withLock({ $0 }), at < returned else {
            context.note("the decode finished before the cancellation arrived")
            return
        }
        let latency = returned - at
        if outcome.status == IP_STATUS_CANCELLED {
            if latency > max(0.1, fullSeconds / 2) {
                context.warn("took \(milliseconds(latency)) to honour a cancellation (a whole decode takes \(milliseconds(fullSeconds))): poll more often")
            } else {
                context.note("cancelled from another thread: returned CANCELLED \(milliseconds(latency)) later")
            }
        } else if outcome.ok {
            context.warn("finished the decode (\(milliseconds(latency)) after being cancelled) instead of returning CANCELLED")
        } else {
            context.warn("cancelled mid-decode returned \(outcome.statusText), not CANCELLED")
        }
    }

    static func milliseconds(_ seconds: Double) -> String { "\(Int((seconds * 1000).rounded())) ms" }
}

#if canImport(Glibc)
import Glibc
#endif

func usleepSeconds(_ seconds: Double) { usleep(UInt32(max(0, seconds) * 1_000_000)) }
