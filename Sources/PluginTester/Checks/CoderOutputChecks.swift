import PluginAPI

/// Encoding (round trips, every input layout, failing sinks) and animation (frame iteration).
enum CoderOutputChecks {
    static let all: [CheckDefinition] = [encode, animation]

    static let encode = CheckDefinition(id: "coder.encode", title: "encode: round trip, RGBA16/premultiplied/padded input, failing sink",
                                        scope: .coder, applies: Applies.encodes, timeout: { 60 + 12.0 * Double($0) }) { context in
        let coder = try context.coder()
        let w = SyntheticImage.width, h = SyntheticImage.height
        // Opaque round trip: pixels must come back close (exactly when lossless worked).
        let opaque = SyntheticImage.rgba8(opaque: true)
        var encoded = coder.encode([(SyntheticImage.image(alpha: IP_ALPHA_NONE), opaque)], quality: 100, flags: UInt32(IP_ENCODE_LOSSLESS),
                                   label: "encode an opaque \(w)x\(h) image losslessly")
        var lossless = true
        if encoded.status == IP_STATUS_UNSUPPORTED {
            lossless = false
            encoded = coder.encode([(SyntheticImage.image(alpha: IP_ALPHA_NONE), opaque)], quality: 100,
                                   label: "encode an opaque \(w)x\(h) image at quality 100")
        }
        context.fail(encoded.problems, "encode")
        guard encoded.ok, let bytes = encoded.value, !bytes.isEmpty else {
            context.fail("encoding an opaque \(w)x\(h) RGBA8 image returned \(encoded.statusText)\(encoded.ok ? " with no bytes" : "")")
            return
        }
        var summary = "\(bytes.count) bytes for \(w)x\(h)\(lossless ? "" : " (lossless refused: lossy)")"
        if coder.info.decodes {
            let decoded = coder.decode(bytes, label: "decode the encoded image")
            if let image = decoded.value {
                let reference = try DecodedImage(packedRGBA8: opaque, width: w, height: h)
                let difference = image.meanDifference(to: reference)
                if image.width != w || image.height != h {
                    context.fail("the round trip gives \(image.width)x\(image.height), not \(w)x\(h)")
                } else if difference > 24 {
                    context.fail("the round trip differs by \(Int(difference.rounded())) per channel on average (quality 100)")
                } else {
                    summary += difference == 0 ? ", round trip exact" : ", round trip within \(String(Int(difference * 10) / 10)) per channel"
                }
            } else {
                context.fail("decoding its own output returned \(decoded.statusText)")
            }
        }
        // Every input layout the host may pass.
        let layouts: [(String, ip_image, [UInt8])] = [
            ("straight-alpha RGBA8", SyntheticImage.image(), SyntheticImage.rgba8()),
            ("premultiplied RGBA8", SyntheticImage.image(alpha: IP_ALPHA_PREMULTIPLIED), SyntheticImage.premultiplied()),
            ("RGBA16", SyntheticImage.image(format: IP_PIXEL_RGBA16), SyntheticImage.rgba16()),
            ("RGBA8 with 12 bytes of row padding", padded(SyntheticImage.image(), padding: 12), pad(SyntheticImage.rgba8(), w, 12)),
        ]
        for (name, image, pixels) in layouts {
            let outcome = coder.encode([(image, pixels)], label: "encode \(name)")
            context.fail(outcome.problems, "encode of \(name)")
            if outcome.ok, coder.info.decodes, let bytes = outcome.value {
                let decoded = coder.decode(bytes, label: "decode the encoded \(name)")
                if let result = decoded.value, result.width != w || result.height != h {
                    context.fail("\(name): the round trip gives \(result.width)x\(result.height)")
                } else if decoded.value == nil {
                    context.fail("\(name): decoding its own output returned \(decoded.statusText)")
                }
            } else if !outcome.ok {
                let text = "encoding \(name) returned \(outcome.statusText)"
                if outcome.status == IP_STATUS_UNSUPPORTED { context.warn(text) } else { context.fail(text) }
            }
        }
        // A sink that fails: the encoder stops and reports it.
        let failing = coder.encode([(SyntheticImage.image(), SyntheticImage.rgba8())], failAfter: 16, label: "encode into a sink that fails after 16 bytes")
        context.fail(failing.problems, "encode into a failing sink")
        if failing.ok { context.fail("encoding into a sink that failed returned OK") }
        context.note(summary)
    }

    static func padded(_ image: ip_image, padding: Int) -> ip_image {
        var copy = image
        copy.stride += UInt32(padding)
        return copy
    }

    /// Rows of `pixels` with `padding` garbage bytes after each (an encoder must honour the stride).
    static func pad(_ pixels: [UInt8], _ width: Int, _ padding: Int) -> [UInt8] {
        var result: [UInt8] = []
        for row in stride(from: 0, to: pixels.count, by: width * 4) {
            result += pixels[row..<row + width * 4] + Array(repeating: 0xEE, count: padding)
        }
        return result
    }

    static let animation = CheckDefinition(id: "coder.animation", title: "frame iteration: count, END, full canvas, frame 1 by index",
                                           scope: .coder, applies: Applies.flag(IP_CODER_ANIMATED, "ANIMATED"),
                                           timeout: { 60 + 12.0 * Double($0) }) { context in
        let coder = try context.coder()
        let samples = try Samples.require(context, coder)
        var iterated = 0
        for sample in samples {
            let limit = sample.frameCount > 0 ? min(sample.frameCount + 5, 2000) : 2000
            let outcome = coder.frames(sample.bytes, maximum: limit, label: "frames of \(sample.name)")
            context.fail(outcome.problems, "frames of \(sample.name)")
            guard outcome.ok, let frames = outcome.value else {
                context.fail("\(sample.name): frame iteration returned \(outcome.statusText)")
                continue
            }
            iterated += 1
            if !outcome.message.isEmpty { context.fail("\(sample.name): no END after \(frames.count) frames (probe said \(sample.frameCount))") }
            if sample.frameCount > 0 && frames.count != sample.frameCount {
                context.fail("\(sample.name): \(frames.count) frames, but probe said \(sample.frameCount)")
            }
            for (index, frame) in frames.enumerated() {
                if frame.width != sample.width || frame.height != sample.height {
                    context.fail("\(sample.name): frame \(index) is \(frame.width)x\(frame.height), not the full canvas \(sample.width)x\(sample.height)")
                    break
                }
                if frame.index != index { context.warn("\(sample.name): frame \(index) reports index \(frame.index)") }
            }
            if frames.count > 1 {
                let second = coder.decode(sample.bytes, CoderUnderTest.options(frame: 1), label: "decode frame 1 of \(sample.name)")
                if let image = second.value, image != frames[1] {
                    context.fail("\(sample.name): decode(frame_index 1) differs from the second iterated frame")
                }
            }
            // Closing early must be fine too.
            _ = coder.frames(sample.bytes, maximum: 1, label: "frames of \(sample.name), closed after one")
        }
        context.note("\(iterated) sample(s) iterated")
    }
}

extension DecodedImage {
    /// A reference image from packed straight RGBA8 pixels.
    init(packedRGBA8 pixels: [UInt8], width: Int, height: Int) throws {
        guard let block = GuardedMemory.allocate(byteCount: pixels.count) else { throw PluginUnderTest.Failure("mmap failed") }
        defer { GuardedMemory.release(block) }
        block.buffer.update(from: pixels, count: pixels.count)
        try self.init(.plain(width: width, height: height, stride: width * 4, format: IP_PIXEL_RGBA8, alpha: IP_ALPHA_STRAIGHT,
                             pixels: block.buffer), block: block)
    }
}
