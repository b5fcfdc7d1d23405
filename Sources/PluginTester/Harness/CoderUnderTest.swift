#if canImport(Glibc)
import Glibc
#endif
import PluginAPI
import VersionedStructs

/// One coder of the plugin under test, called through its C table with `TestHost` services. Every call runs under
/// the watchdog, reads its input from a read-only buffer that ends at a guard page, and reports its status,
/// message and whatever rule it broke, instead of throwing.
/// `@unchecked Sendable`: an immutable copy of a static C table; concurrent use is what THREAD_SAFE promises.
struct CoderUnderTest: @unchecked Sendable {
    let table: CoderEntryPoints
    let info: PluginDescription.Coder
    /// Seconds one call may take before the check ends as timed out.
    let callLimit: Double

    /// A call's result: the status, its message, and the ABI rules the call broke (beyond the status).
    struct Outcome<Value> {
        var status: Int32
        var message: String
        var value: Value?
        var problems: [String] = []
        var ok: Bool { status == IP_STATUS_OK }
        var statusText: String { StatusName.of(status) + (message.isEmpty ? "" : ": \(message)") }
    }

    /// Decode options as the checks build them: the C struct and the limits its pointer will point to.
    struct Options {
        var raw: ip_decode_options
        var limits: ip_limits
        /// Dress the options as a later host would send them: the options and limits structs 64 bytes longer than
        /// this minor's (struct_size says so, the tail is 0xAB), and an extension the plugin cannot know in the
        /// chain. A 1.0 plugin must read only what it knows and decode exactly as without.
        var asNewerHost = false

        /// Runs `body` with the C options, their `limits` pointing to a copy valid for the call.
        func withABI<R>(_ body: (UnsafeMutablePointer<ip_decode_options>) -> R) -> R {
            let tail = asNewerHost ? 64 : 0
            let limitsBytes = MemoryLayout<ip_limits>.size + tail, optionsBytes = MemoryLayout<ip_decode_options>.size + tail
            let limitsCopy = UnsafeMutableRawPointer.allocate(byteCount: limitsBytes, alignment: 16)
            let optionsCopy = UnsafeMutableRawPointer.allocate(byteCount: optionsBytes, alignment: 16)
            let unknownID = strdup("org.imagepipe.test.unknown-extension/1")!
            let unknown = UnsafeMutableRawPointer.allocate(byteCount: 96, alignment: 16)
            defer { limitsCopy.deallocate(); optionsCopy.deallocate(); free(unknownID); unknown.deallocate() }
            limitsCopy.initializeMemory(as: UInt8.self, repeating: 0xAB, count: limitsBytes)
            optionsCopy.initializeMemory(as: UInt8.self, repeating: 0xAB, count: optionsBytes)
            unknown.initializeMemory(as: UInt8.self, repeating: 0xCD, count: 96)
            var limits = self.limits
            limits.struct_size = UInt32(limitsBytes)
            limitsCopy.storeBytes(of: limits, as: ip_limits.self)
            var options = raw
            options.limits = UnsafePointer(limitsCopy.assumingMemoryBound(to: ip_limits.self))
            if asNewerHost {
                options.struct_size = UInt32(optionsBytes)
                unknown.storeBytes(of: ip_decode_extension(struct_size: 96, id: UnsafePointer(unknownID), next: raw.extensions),
                                   as: ip_decode_extension.self)
                options.extensions = UnsafePointer(unknown.assumingMemoryBound(to: ip_decode_extension.self))
            }
            optionsCopy.storeBytes(of: options, as: ip_decode_options.self)
            return body(optionsCopy.assumingMemoryBound(to: ip_decode_options.self))
        }
    }

    /// Options with every field set explicitly (struct_size covers all of them).
    static func options(width: Int = 0, height: Int = 0, mode: Int32 = IP_SCALE_FIT, flags: UInt32 = 0, page: Int = 0, frame: Int = 0,
                        limits: ip_limits = TestCall.defaultLimits) -> Options {
        Options(raw: ip_decode_options(struct_size: UInt32(MemoryLayout<ip_decode_options>.size), thumbnail_width: UInt32(width),
                                       thumbnail_height: UInt32(height), scale_mode: mode, flags: flags, page_index: UInt32(page),
                                       frame_index: UInt32(frame), threads: 0, limits: nil, source_url: nil, extensions: nil),
                limits: limits)
    }

    /// Runs `body` with a request over a guarded, read-only copy of `data`.
    private func withRequest<R>(_ data: [UInt8], _ options: Options, _ call: TestCall,
                                _ body: (UnsafePointer<ip_decode_request>) -> R) -> R {
        let input = GuardedMemory.input(data)
        defer { if let input { GuardedMemory.release(input) } }
        return options.withABI { optionsPointer in
            var request = ip_decode_request(struct_size: UInt32(MemoryLayout<ip_decode_request>.size),
                                            data: input.map { UnsafePointer($0.buffer) }, size: data.count,
                                            options: optionsPointer, call: call.handle)
            return withUnsafePointer(to: &request) { body($0) }
        }
    }

    func sniff(_ data: [UInt8], label: String) -> Int32? {
        guard let sniff = table.sniff else { return nil }
        let input = GuardedMemory.input(data)
        defer { if let input { GuardedMemory.release(input) } }
        return Watchdog.guarding(label, limit: callLimit) { sniff(input.map { UnsafePointer($0.buffer) }, data.count) }
    }

    func probe(_ data: [UInt8], _ options: Options = options(), label: String) -> Outcome<ip_image_info> {
        guard let probe = table.probe else { return Outcome(status: IP_STATUS_UNSUPPORTED, message: "no probe slot") }
        let call = TestCall(limits: options.limits)
        let info = LentStruct<ip_image_info>()
        defer { info.release() }
        var message = [CChar](repeating: 0, count: 1024)
        let status = withRequest(data, options, call) { request in
            message.withUnsafeMutableBufferPointer { m in
                Watchdog.guarding(label, limit: callLimit) {
                    probe(request, info.pointer, ip_message(buffer: m.baseAddress, capacity: m.count))
                }
            }
        }
        var outcome = Outcome(status: status, message: ABICopy.text(message), value: status == IP_STATUS_OK ? info.value() : nil)
        outcome.problems = statusProblems(status, message: outcome.message) + call.problems
        if let overrun = info.overrun("ip_image_info") { outcome.problems.append(overrun) }
        return outcome
    }

    func decode(_ data: [UInt8], _ options: Options = options(), call: TestCall? = nil, label: String) -> Outcome<DecodedImage> {
        guard let decode = table.decode else { return Outcome(status: IP_STATUS_UNSUPPORTED, message: "no decode slot") }
        let call = call ?? TestCall(limits: options.limits)
        let image = LentStruct<ip_image>()
        defer { image.release() }
        var message = [CChar](repeating: 0, count: 1024)
        let status = withRequest(data, options, call) { request in
            message.withUnsafeMutableBufferPointer { m in
                Watchdog.guarding(label, limit: callLimit) {
                    decode(request, image.pointer, ip_message(buffer: m.baseAddress, capacity: m.count))
                }
            }
        }
        var outcome = finishImage(status, image.value(), message: ABICopy.text(message), call: call)
        if let overrun = image.overrun("ip_image") { outcome.problems.append(overrun) }
        return outcome
    }

    /// Validates an image a call returned with OK and copies it out; frees every other buffer of the call.
    func finishImage(_ status: Int32, _ image: ip_image, message: String, call: TestCall) -> Outcome<DecodedImage> {
        var outcome = Outcome<DecodedImage>(status: status, message: message, value: nil)
        outcome.problems = statusProblems(status, message: message)
        if status == IP_STATUS_OK {
            if let block = call.adopt(image.pixels) {
                do {
                    outcome.value = try DecodedImage(image, block: block)
                } catch {
                    outcome.problems.append("\(error)")
                }
                GuardedMemory.release(block)
            } else {
                outcome.problems.append("returned OK with pixels that alloc_pixels did not allocate for this call")
            }
            outcome.problems += colorProblems(image, call: call)
        }
        call.finish()
        outcome.problems += call.problems
        return outcome
    }

    /// The colour facts of a result: an ICC profile must come from alloc_bytes for this call and fit its buffer
    /// (the guard page catches a read past it), and flags must be ones the ABI defines.
    func colorProblems(_ image: ip_image, call: TestCall) -> [String] {
        var problems: [String] = []
        let known = UInt32(IP_COLOR_ICC | IP_COLOR_CICP | IP_COLOR_SRGB | IP_COLOR_GAMMA | IP_COLOR_CHROMATICITIES)
        if image.color_flags & ~known != 0 { problems.append("set colour flags the ABI does not define (\(image.color_flags))") }
        guard image.color_flags & UInt32(IP_COLOR_ICC) != 0 else { return problems }
        guard let block = call.adopt(image.icc_profile) else {
            return problems + ["reported an ICC profile that alloc_bytes did not allocate for this call"]
        }
        if Int(image.icc_size) > block.byteCount || image.icc_size == 0 {
            problems.append("icc_size \(image.icc_size) does not fit its \(block.byteCount)-byte alloc_bytes buffer")
        }
        GuardedMemory.release(block)
        return problems
    }

    /// Every frame through frames_open/next/close, up to `maximum` frames.
    func frames(_ data: [UInt8], _ options: Options = options(), maximum: Int, label: String)
        -> Outcome<[DecodedImage]> {
        guard let open = table.framesOpen, let next = table.table.frames_next, let close = table.table.frames_close else {
            return Outcome(status: IP_STATUS_UNSUPPORTED, message: "no frames slots")
        }
        let call = TestCall(limits: options.limits)
        return withRequest(data, options, call) { request -> Outcome<[DecodedImage]> in
            var iterator: OpaquePointer?
            var message = [CChar](repeating: 0, count: 1024)
            let status = message.withUnsafeMutableBufferPointer { m in
                Watchdog.guarding("\(label): frames_open", limit: callLimit) {
                    open(request, &iterator, ip_message(buffer: m.baseAddress, capacity: m.count))
                }
            }
            guard status == IP_STATUS_OK else {
                return Outcome(status: status, message: ABICopy.text(message), problems: statusProblems(status, message: ABICopy.text(message)))
            }
            defer { Watchdog.guarding("\(label): frames_close", limit: callLimit) { close(iterator) } }
            var frames: [DecodedImage] = []
            var problems: [String] = []
            while frames.count < maximum {
                var image = ip_image()
                image.struct_size = UInt32(MemoryLayout<ip_image>.size)
                let frameCall = TestCall(limits: options.limits)
                let status = message.withUnsafeMutableBufferPointer { m in
                    Watchdog.guarding("\(label): frames_next #\(frames.count)", limit: callLimit) {
                        next(iterator, frameCall.handle, &image, ip_message(buffer: m.baseAddress, capacity: m.count))
                    }
                }
                if status == IP_STATUS_END {
                    frameCall.finish()
                    return Outcome(status: IP_STATUS_OK, message: "", value: frames, problems: problems + frameCall.problems)
                }
                let outcome = finishImage(status, image, message: ABICopy.text(message), call: frameCall)
                problems += outcome.problems
                guard let frame = outcome.value else {
                    return Outcome(status: outcome.ok ? IP_STATUS_INTERNAL : status, message: outcome.message, value: frames, problems: problems)
                }
                frames.append(frame)
            }
            return Outcome(status: IP_STATUS_OK, message: "stopped after \(maximum) frames", value: frames, problems: problems)
        }
    }

    /// Incremental decoding: `chunks` are the sizes of the successive arrivals; returns the final image.
    func incremental(_ data: [UInt8], chunks: [Int], _ options: Options = options(), label: String) -> Outcome<DecodedImage> {
        guard let open = table.incrementalOpen, let update = table.table.incremental_update, let close = table.table.incremental_close else {
            return Outcome(status: IP_STATUS_UNSUPPORTED, message: "no incremental slots")
        }
        var decoder: OpaquePointer?
        var message = [CChar](repeating: 0, count: 1024)
        let status = message.withUnsafeMutableBufferPointer { m in
            Watchdog.guarding("\(label): incremental_open", limit: callLimit) {
                options.withABI { open($0, &decoder, ip_message(buffer: m.baseAddress, capacity: m.count)) }
            }
        }
        guard status == IP_STATUS_OK else {
            return Outcome(status: status, message: ABICopy.text(message), problems: statusProblems(status, message: ABICopy.text(message)))
        }
        defer { Watchdog.guarding("\(label): incremental_close", limit: callLimit) { close(decoder) } }
        var problems: [String] = []
        // Arrival sizes, then one last call with everything and is_final set.
        var arrivals: [Int] = []
        var total = 0
        for chunk in chunks where total < data.count {
            total = min(data.count, total + max(1, chunk))
            arrivals.append(total)
        }
        arrivals.append(data.count)
        for (step, received) in arrivals.enumerated() {
            let final: Int32 = step == arrivals.count - 1 ? 1 : 0
            let call = TestCall(limits: options.limits)
            var image = ip_image()
            image.struct_size = UInt32(MemoryLayout<ip_image>.size)
            let input = GuardedMemory.input(Array(data[0..<received]))
            let status = message.withUnsafeMutableBufferPointer { m in
                Watchdog.guarding("\(label): incremental_update with \(received) of \(data.count) bytes\(final == 1 ? " (final)" : "")",
                                  limit: callLimit) {
                    update(decoder, input.map { UnsafePointer($0.buffer) }, received, final, call.handle, &image,
                           ip_message(buffer: m.baseAddress, capacity: m.count))
                }
            }
            if let input { GuardedMemory.release(input) }
            let outcome = finishImage(status, image, message: ABICopy.text(message), call: call)
            problems += outcome.problems.filter { !problems.contains($0) }
            if final == 1 {
                var result = outcome
                result.problems = problems
                return result
            }
            if status != IP_STATUS_OK && status != IP_STATUS_NEED_MORE {
                return Outcome(status: status, message: "\(outcome.message) (after \(received) of \(data.count) bytes, not final)",
                               problems: problems)
            }
        }
        return Outcome(status: IP_STATUS_INTERNAL, message: "unreachable", problems: problems)
    }

    /// Converts `data` for one of the descriptor's transcode pairs ("from>to") through the ABI 1.1 transcode slot.
    func transcode(_ data: [UInt8], pair: String, label: String) -> Outcome<[UInt8]> {
        guard let transcode = table.transcode else { return Outcome(status: IP_STATUS_UNSUPPORTED, message: "no transcode slot") }
        let formats = pair.split(separator: ">", omittingEmptySubsequences: false).map(String.init)
        guard formats.count == 2 else { return Outcome(status: IP_STATUS_INTERNAL, message: "'\(pair)' is not from>to") }
        final class Sink { var bytes: [UInt8] = [] }
        let sink = Sink()
        var byteSink = ip_byte_sink(struct_size: UInt32(MemoryLayout<ip_byte_sink>.size),
                                    context: Unmanaged.passUnretained(sink).toOpaque(), write: { context, data, size in
            let sink = Unmanaged<Sink>.fromOpaque(context!).takeUnretainedValue()
            if size > 0, let data { sink.bytes += UnsafeBufferPointer(start: data, count: size) }
            return ip_status(IP_STATUS_OK)
        })
        var options = ip_encode_options(struct_size: UInt32(MemoryLayout<ip_encode_options>.size), quality: 0, speed: 0,
                                        bit_depth: 0, flags: 0, loop_count: 0, settings: nil,
                                        exif_size: 0, xmp_size: 0, exif: nil, xmp: nil)
        let call = TestCall()
        var message = [CChar](repeating: 0, count: 1024)
        let input = GuardedMemory.input(data)
        defer { if let input { GuardedMemory.release(input) } }
        let status = formats[0].withCString { source in
            formats[1].withCString { target in
                var request = ip_transcode_request(struct_size: UInt32(MemoryLayout<ip_transcode_request>.size),
                                                   data: input.map { UnsafePointer($0.buffer) }, size: data.count,
                                                   source_format: source, target_format: target, options: &options, call: call.handle)
                return message.withUnsafeMutableBufferPointer { m in
                    Watchdog.guarding(label, limit: callLimit) {
                        transcode(&request, &byteSink, ip_message(buffer: m.baseAddress, capacity: m.count))
                    }
                }
            }
        }
        var outcome = Outcome(status: status, message: ABICopy.text(message), value: sink.bytes)
        outcome.problems = statusProblems(status, message: outcome.message) + call.problems
        return outcome
    }

    /// Encodes `frames` (borrowed images over `pixels`) through the encode slot into a byte array.
    /// `failAfter` makes the sink fail (IO) once that many bytes were written, to test that the encoder stops.
    func encode(_ frames: [(image: ip_image, pixels: [UInt8])], quality: UInt32 = 0, speed: UInt32 = 0, flags: UInt32 = 0, failAfter: Int? = nil,
                label: String) -> Outcome<[UInt8]> {
        guard let encode = table.encode else { return Outcome(status: IP_STATUS_UNSUPPORTED, message: "no encode slot") }
        final class Sink { var bytes: [UInt8] = []; var failAfter: Int?; var writesAfterFailure = 0; var failed = false }
        let sink = Sink()
        sink.failAfter = failAfter
        var options = ip_encode_options(struct_size: UInt32(MemoryLayout<ip_encode_options>.size), quality: quality, speed: speed,
                                        bit_depth: 0, flags: flags, loop_count: 0, settings: nil,
                                        exif_size: 0, xmp_size: 0, exif: nil, xmp: nil)
        var byteSink = ip_byte_sink(struct_size: UInt32(MemoryLayout<ip_byte_sink>.size),
                                    context: Unmanaged.passUnretained(sink).toOpaque(), write: { context, data, size in
            let sink = Unmanaged<Sink>.fromOpaque(context!).takeUnretainedValue()
            if sink.failed { sink.writesAfterFailure += 1; return ip_status(IP_STATUS_IO) }
            if let limit = sink.failAfter, sink.bytes.count + size > limit { sink.failed = true; return ip_status(IP_STATUS_IO) }
            if size > 0, let data { sink.bytes += UnsafeBufferPointer(start: data, count: size) }
            return ip_status(IP_STATUS_OK)
        })
        let call = TestCall()
        var message = [CChar](repeating: 0, count: 1024)
        // Each frame's pixels in a guarded, read-only buffer: an encoder must not write into a borrowed image.
        let blocks = frames.map { GuardedMemory.input($0.pixels) }
        defer { blocks.forEach { if let block = $0 { GuardedMemory.release(block) } } }
        let images = zip(frames, blocks).map { frame, block -> ip_image in
            var image = frame.image
            image.pixels = block?.buffer
            return image
        }
        let status = message.withUnsafeMutableBufferPointer { m in
            Watchdog.guarding(label, limit: callLimit) {
                images.withUnsafeBufferPointer { images in
                    // The ABI takes an array of pointers (so that ip_image may grow).
                    var pointers = (0..<images.count).map { Optional(images.baseAddress! + $0) }
                    return encode(&pointers, UInt32(images.count), &options, call.handle, &byteSink,
                                  ip_message(buffer: m.baseAddress, capacity: m.count))
                }
            }
        }
        var outcome = Outcome(status: status, message: ABICopy.text(message), value: sink.bytes)
        outcome.problems = statusProblems(status, message: outcome.message) + call.problems
        if sink.writesAfterFailure > 0 {
            outcome.problems.append("kept writing to the sink \(sink.writesAfterFailure) more time(s) after a write failed")
        }
        if sink.failed && status == IP_STATUS_OK {
            outcome.problems.append("returned OK although a sink write failed")
        }
        return outcome
    }

    /// Rules about statuses themselves: known codes only, and an error comes with a message.
    func statusProblems(_ status: Int32, message: String) -> [String] {
        if !StatusName.isKnown(status) { return ["returned \(status), which is not an ip_status code"] }
        if status != IP_STATUS_OK && status != IP_STATUS_NEED_MORE && status != IP_STATUS_END
            && message.allSatisfy({ $0 == " " }) {
            return ["returned \(StatusName.of(status)) without a message"]
        }
        return []
    }
}
