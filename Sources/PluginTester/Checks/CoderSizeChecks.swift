import PipelineHost
import PluginAPI

/// Decoding at thumbnail sizes, first-frame-only, and pages or frames that do not exist.
enum CoderSizeChecks {
    static let all: [CheckDefinition] = [thumbnails, firstFrame, outOfRange]

    struct Request {
        let width: Int, height: Int, mode: Int32, upscale: Bool
        var label: String {
            let mode = [IP_SCALE_FIT: "fit", IP_SCALE_FILL: "fill", IP_SCALE_ASPECT_FILL: "aspect-fill"][mode] ?? "?"
            return "\(width)x\(height) \(mode)\(upscale ? " upscale" : "")"
        }
    }

    static func requests(for sample: Sample) -> [Request] {
        let w = sample.width, h = sample.height
        return [
            Request(width: 64, height: 64, mode: IP_SCALE_FIT, upscale: false),
            Request(width: 64, height: 64, mode: IP_SCALE_FILL, upscale: false),
            Request(width: 64, height: 64, mode: IP_SCALE_ASPECT_FILL, upscale: false),
            Request(width: 1, height: 1, mode: IP_SCALE_FIT, upscale: false),
            Request(width: 1, height: 1, mode: IP_SCALE_ASPECT_FILL, upscale: false),
            Request(width: 0, height: 33, mode: IP_SCALE_FIT, upscale: false),
            Request(width: 47, height: 0, mode: IP_SCALE_FIT, upscale: false),
            Request(width: 2 * w, height: 2 * h, mode: IP_SCALE_FIT, upscale: false),
            Request(width: 2 * w, height: 2 * h, mode: IP_SCALE_FIT, upscale: true),
            Request(width: w + 17, height: max(1, h / 2), mode: IP_SCALE_ASPECT_FILL, upscale: false),
            Request(width: w + 17, height: h + 5, mode: IP_SCALE_FILL, upscale: false),
        ]
    }

    /// With IP_CODER_SCALES the output must be exactly the host placement's size; without it, an image the host can
    /// resample to that size: at most the full size, at least the drawn size, and giving the same placement.
    static let thumbnails = CheckDefinition(id: "coder.thumbnails", title: "decode at fit/fill/aspect-fill, 1x1 and larger-than-source sizes",
                                            scope: .coder, applies: Applies.decodes, timeout: { 60 + 12.0 * Double($0) }) { context in
        let coder = try context.coder()
        let samples = try Samples.require(context, coder).prefix(context.strictness >= 8 ? 12 : 3)
        let scales = coder.info.has(IP_CODER_SCALES)
        let vector = coder.info.has(IP_CODER_VECTOR)
        var count = 0
        for sample in samples {
            for request in requests(for: sample) {
                let flags = request.upscale ? UInt32(IP_DECODE_ALLOW_UPSCALE) : 0
                let options = CoderUnderTest.options(width: request.width, height: request.height, mode: request.mode, flags: flags)
                let where_ = "\(sample.name) at \(request.label)"
                // Limit the largest outputs: 2x a big source is not worth the time.
                if request.upscale && sample.width * sample.height > 4_000_000 { continue }
                let outcome = coder.decode(sample.bytes, options, label: "decode \(where_)")
                context.fail(outcome.problems, where_)
                guard let image = outcome.value else {
                    context.fail("\(where_): decode returned \(outcome.statusText)")
                    continue
                }
                count += 1
                context.fail(image.valueProblems(), where_)
                // Vector coders always render at the requested size (there is no "larger than the source").
                let wanted = place(Double(sample.width), Double(sample.height), request.width, request.height,
                                   request.mode, upscale: request.upscale || vector)
                if scales {
                    let tolerance = vector ? 1 : 0
                    if abs(image.width - Int(wanted.out_width)) > tolerance || abs(image.height - Int(wanted.out_height)) > tolerance {
                        context.fail("\(where_): the coder SCALES but returned \(image.width)x\(image.height); the host's placement gives "
                                     + "\(wanted.out_width)x\(wanted.out_height)")
                    }
                } else {
                    let fromResult = place(Double(image.width), Double(image.height), request.width, request.height,
                                           request.mode, upscale: request.upscale)
                    let drawnWidth = min(sample.width, Int((Double(sample.width) * wanted.scale_x - 1e-6).rounded(.up)))
                    let drawnHeight = min(sample.height, Int((Double(sample.height) * wanted.scale_y - 1e-6).rounded(.up)))
                    if image.width > sample.width || image.height > sample.height {
                        context.fail("\(where_): returned \(image.width)x\(image.height), larger than the source \(sample.width)x\(sample.height) "
                                     + "(without SCALES the host does any upscaling)")
                    } else if image.width != sample.width || image.height != sample.height {
                        if image.width + 1 < drawnWidth || image.height + 1 < drawnHeight {
                            context.fail("\(where_): shrunk on load to \(image.width)x\(image.height), below the \(drawnWidth)x\(drawnHeight) "
                                         + "the host draws: the thumbnail would be upscaled")
                        }
                        if fromResult.out_width != wanted.out_width || fromResult.out_height != wanted.out_height {
                            context.fail("\(where_): shrunk on load to \(image.width)x\(image.height), from which the host would make "
                                         + "\(fromResult.out_width)x\(fromResult.out_height) instead of \(wanted.out_width)x\(wanted.out_height)")
                        }
                    }
                }
            }
        }
        context.note("\(count) decodes at \(requests(for: samples.first!).count) requested sizes on \(samples.count) sample(s) "
                     + (scales ? "match the host's placement" : "can be resampled to the placement's size"))
    }

    /// IP_DECODE_FIRST_FRAME_ONLY: OK, and the same image as frame 0.
    static let firstFrame = CheckDefinition(id: "coder.first-frame", title: "first-frame-only equals frame 0", scope: .coder,
                                            applies: Applies.decodes) { context in
        let coder = try context.coder()
        let samples = try Samples.require(context, coder)
        var animated = 0
        for sample in samples {
            let first = coder.decode(sample.bytes, CoderUnderTest.options(flags: UInt32(IP_DECODE_FIRST_FRAME_ONLY)),
                                     label: "decode \(sample.name) first frame only")
            context.fail(first.problems, sample.name)
            let frame0 = coder.decode(sample.bytes, CoderUnderTest.options(frame: 0), label: "decode \(sample.name) frame 0")
            guard let a = first.value else { context.fail("\(sample.name): first-frame-only decode returned \(first.statusText)"); continue }
            guard let b = frame0.value else { continue }
            if a != b { context.fail("\(sample.name): first-frame-only gives another image than frame 0 (\(a.summary) vs \(b.summary))") }
            if a.index != 0 { context.fail("\(sample.name): first-frame-only returned index \(a.index)") }
            if sample.frameCount != 1 { animated += 1 }
        }
        context.note("\(samples.count) sample(s)\(animated > 0 ? ", \(animated) animated," : "") agree")
    }

    /// A page or frame past the end is an error (NOT_FOUND), never a crash and never silently another image.
    static let outOfRange = CheckDefinition(id: "coder.out-of-range", title: "page or frame out of range → error", scope: .coder,
                                            applies: Applies.decodes) { context in
        let coder = try context.coder()
        let samples = try Samples.require(context, coder)
        let multipage = coder.info.has(IP_CODER_MULTIPAGE)
        let animated = coder.info.has(IP_CODER_ANIMATED)
        var tried = 0
        for sample in samples {
            var cases: [(String, CoderUnderTest.Options, Bool)] = []
            for page in [sample.pageCount, sample.pageCount + 1000, Int(UInt32.max)] {
                cases.append(("page \(page) of \(sample.pageCount)", CoderUnderTest.options(page: page), multipage))
            }
            // A frame index means nothing to a coder that is not ANIMATED.
            if animated, sample.frameCount > 0 {
                for frame in [sample.frameCount, sample.frameCount + 1_000_000, Int(UInt32.max)] {
                    cases.append(("frame \(frame) of \(sample.frameCount)", CoderUnderTest.options(frame: frame), animated))
                }
            }
            for (what, options, mustRefuse) in cases {
                let outcome = coder.decode(sample.bytes, options, label: "decode \(sample.name) \(what)")
                tried += 1
                context.fail(outcome.problems, "\(sample.name) \(what)")
                if outcome.ok {
                    let text = "\(sample.name): \(what) decoded to an image instead of NOT_FOUND"
                    if mustRefuse { context.fail(text) } else { context.warn(text) }
                } else if outcome.status != IP_STATUS_NOT_FOUND && outcome.status != IP_STATUS_LIMIT_EXCEEDED {
                    context.warn("\(sample.name): \(what) returned \(outcome.statusText) (expected NOT_FOUND)")
                }
            }
        }
        context.note("\(tried) out-of-range pages and frames refused")
    }

    /// The host's placement (the `place` service's implementation) as an ip_placement.
    private static func place(_ width: Double, _ height: Double, _ boxWidth: Int, _ boxHeight: Int, _ mode: ip_scale_mode,
                              upscale: Bool) -> ip_placement {
        let p = Placement(sourceWidth: width, sourceHeight: height, request: PixelSize(width: boxWidth, height: boxHeight),
                          mode: mode, allowUpscale: upscale)
        return ip_placement(struct_size: UInt32(MemoryLayout<ip_placement>.size), out_width: UInt32(p.outputWidth),
                            out_height: UInt32(p.outputHeight), scale_x: p.scaleX, scale_y: p.scaleY,
                            offset_x: p.offsetX, offset_y: p.offsetY)
    }
}
