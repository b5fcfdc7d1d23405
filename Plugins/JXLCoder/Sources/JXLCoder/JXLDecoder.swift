import CJXL
import PluginAPI
import PluginKit

/// One libjxl decoder over a whole source held in memory, driven event by event: the basic info and colour first
/// (a probe stops there), then one composited frame per `nextFrame` (libjxl coalesces animation frames onto the
/// canvas and applies the orientation by default, so every frame is a display-oriented full canvas).
///
/// Limits are checked on the header's display size and the frame count before any pixel buffer exists; pixels are
/// written straight into host buffers (`Host.allocatePixels`), so the call's memory budget counts them. libjxl's
/// own working memory is its own (0.7 has no per-call budget hook beyond a memory manager for every allocation).
/// `@unchecked Sendable` is not claimed: one decoder belongs to one call (or one frame iterator), one thread at a time.
final class JXLDecoder {
    let info: JxlBasicInfo
    /// The colour as libjxl reports it: the ICC profile of the pixels it returns, and CICP for PQ and HLG.
    let color: ColorFacts
    /// Output samples: 16-bit when the source has more than 8 bits per sample (or is float), else 8-bit.
    let sixteenBit: Bool
    /// Display size (after the orientation).
    let width: Int, height: Int
    private let decoder: OpaquePointer
    private let runner: UnsafeMutableRawPointer?
    private let limits: ip_limits
    private(set) var framesDecoded = 0
    private var pendingDuration = 0
    private var finished = false

    /// What a decoder is for: the header only (probe of a still), frame headers (counting frames), pixels, or a
    /// preview of the first frame from the bytes received so far (the input is left open; `preview`).
    enum Reading { case header, frameHeaders, pixels, preview, dc }

    /// A decoder of `data`, or, when libjxl refuses a container as invalid or truncated, of the codestream taken out
    /// of it (`JXLContainer`: libjxl 0.7 misreads 64-bit box sizes). `retained` keeps that codestream alive for the
    /// decoder's life (libjxl reads the input in place).
    static func make(_ data: UnsafeBufferPointer<UInt8>, limits: ip_limits, threads: UInt32, reading: Reading) throws -> JXLDecoder {
        do {
            return try JXLDecoder(data, limits: limits, threads: threads, reading: reading)
        } catch let failure as PluginFailure where failure.status == ip_status(IP_STATUS_INVALID_DATA) || failure.status == ip_status(IP_STATUS_TRUNCATED) {
            guard let codestream = JXLContainer.codestream(data) else { throw failure }
            let stored = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(1, codestream.count))
            _ = stored.initialize(from: codestream)
            do {
                let decoder = try JXLDecoder(UnsafeBufferPointer(rebasing: stored[0..<codestream.count]), limits: limits, threads: threads,
                                             reading: reading)
                decoder.retained = stored
                return decoder
            } catch {
                stored.deallocate()
                throw failure
            }
        }
    }

    /// The extracted codestream a fallback decoder reads (see `make`); freed with the decoder.
    private var retained: UnsafeMutableBufferPointer<UInt8>?

    /// Reads up to the colour encoding. `threads`: the request's bound (0 = libjxl's default of the machine's cores).
    init(_ data: UnsafeBufferPointer<UInt8>, limits: ip_limits, threads: UInt32, reading: Reading) throws {
        guard let decoder = JxlDecoderCreate(nil) else { throw PluginFailure(IP_STATUS_NO_MEMORY, "libjxl could not create a decoder") }
        self.decoder = decoder
        self.limits = limits
        let workers = threads == 0 ? JxlThreadParallelRunnerDefaultNumWorkerThreads() : Int(threads)
        runner = workers > 1 ? JxlThreadParallelRunnerCreate(nil, workers) : nil
        var failure: PluginFailure?
        func check(_ status: JxlDecoderStatus, _ what: String) {
            if failure == nil, status != JXL_DEC_SUCCESS { failure = .internalError("libjxl refused \(what)") }
        }
        if let runner { check(JxlDecoderSetParallelRunner(decoder, JxlThreadParallelRunner, runner), "its thread runner") }
        var events = Int32(JXL_DEC_BASIC_INFO.rawValue | JXL_DEC_COLOR_ENCODING.rawValue)
        if reading != .header { events |= Int32(JXL_DEC_FRAME.rawValue) }
        if reading == .pixels || reading == .preview || reading == .dc { events |= Int32(JXL_DEC_FULL_IMAGE.rawValue) }
        if reading == .dc { events |= Int32(JXL_DEC_FRAME_PROGRESSION.rawValue) }
        check(JxlDecoderSubscribeEvents(decoder, events), "the event subscription")
        // Previews flush after every pass of the frame, not only after its DC (libjxl's default detail).
        if reading == .preview { check(JxlDecoderSetProgressiveDetail(decoder, kPasses), "progressive detail") }
        if reading == .dc { check(JxlDecoderSetProgressiveDetail(decoder, kDC), "progressive detail") }
        // Straight alpha whatever the file stores, as the host expects from a coder that says so.
        check(JxlDecoderSetUnpremultiplyAlpha(decoder, 1), "unpremultiplied alpha")
        check(JxlDecoderSetInput(decoder, data.baseAddress, data.count), "its input")
        if reading != .preview { JxlDecoderCloseInput(decoder) }
        var basic = JxlBasicInfo()
        var colorFacts = ColorFacts()
        var haveInfo = false, haveColor = false
        while failure == nil, !haveColor {
            switch JxlDecoderProcessInput(decoder) {
            case JXL_DEC_BASIC_INFO:
                check(JxlDecoderGetBasicInfo(decoder, &basic), "the basic info")
                haveInfo = true
            case JXL_DEC_COLOR_ENCODING:
                colorFacts = Self.readColor(decoder, basic: basic)
                haveColor = true
            case JXL_DEC_NEED_MORE_INPUT where reading == .preview:
                failure = PluginFailure(IP_STATUS_NEED_MORE, "the JPEG XL header has not all arrived")
            case JXL_DEC_NEED_MORE_INPUT:
                failure = .truncated(haveInfo ? "the JPEG XL file ends before its colour encoding" : "the JPEG XL file ends inside its header")
            case JXL_DEC_ERROR:
                failure = .invalidData(haveInfo ? "libjxl could not read the colour encoding" : "not a valid JPEG XL header")
            case JXL_DEC_SUCCESS:
                failure = .invalidData("the JPEG XL file has no image")
            default:
                continue
            }
        }
        info = basic
        color = colorFacts
        sixteenBit = basic.bits_per_sample > 8 || basic.exponent_bits_per_sample > 0
        let rotated = basic.orientation.rawValue >= JXL_ORIENT_TRANSPOSE.rawValue
        width = Int(rotated ? basic.ysize : basic.xsize)
        height = Int(rotated ? basic.xsize : basic.ysize)
        if failure == nil { failure = Self.limitFailure(width: width, height: height, limits) }
        if failure == nil, Self.hasBlackChannel(decoder, basic) {
            // libjxl 0.7 returns the colour channels of a CMYK image without applying K (and without a CMYK→RGB
            // step), so its pixels would be silently wrong: refuse instead.
            failure = .unsupported("CMYK JPEG XL (a black extra channel) is not decoded: libjxl 0.7 gives its colour channels without K")
        }
        // Every stored property is set, so deinit frees the decoder and the runner (Swift runs it when an
        // initializer throws after that point).
        if let failure { throw failure }
    }

    deinit {
        JxlDecoderDestroy(decoder)
        if let runner { JxlThreadParallelRunnerDestroy(runner) }
        retained?.deallocate()
    }

    var isAnimated: Bool { info.have_animation != 0 }
    var hasAlpha: Bool { info.alpha_bits > 0 }

    /// Loop count as the ABI counts (0 = forever; libjxl's num_loops has the same meaning).
    var loopCount: Int32 { isAnimated ? Int32(clamping: info.animation.num_loops) : -1 }

    /// Counts the frames by their headers, skipping their pixels (a decoder made for `.frameHeaders`); at most
    /// `limit` + 1 are counted, so a hostile frame count stops early.
    func countFrames(upTo limit: Int) throws -> Int {
        var count = 0
        while count <= limit {
            switch JxlDecoderProcessInput(decoder) {
            case JXL_DEC_FRAME:
                count += 1
                _ = JxlDecoderSkipCurrentFrame(decoder)
            case JXL_DEC_SUCCESS: return count
            case JXL_DEC_NEED_MORE_INPUT: throw PluginFailure.truncated("the JPEG XL file ends inside frame \(count)")
            case JXL_DEC_ERROR: throw PluginFailure.invalidData("libjxl could not read the header of frame \(count)")
            default: continue
            }
        }
        return count
    }

    /// The next composited frame in a new host buffer, or nil after the last. `duration_ms` and `index` are set.
    func nextFrame(call: OpaquePointer?) throws -> ip_image? {
        guard !finished else { return nil }
        if limits.max_frames > 0, framesDecoded >= Int(limits.max_frames) {
            throw PluginFailure.limitExceeded("the animation has more than \(limits.max_frames) frames (the frame limit)")
        }
        var output: ip_image?
        var format = JxlPixelFormat(num_channels: 4, data_type: sixteenBit ? JXL_TYPE_UINT16 : JXL_TYPE_UINT8,
                                    endianness: JXL_NATIVE_ENDIAN, align: 0)
        while true {
            try Host.checkCancellation(call)
            switch JxlDecoderProcessInput(decoder) {
            case JXL_DEC_FRAME:
                var header = JxlFrameHeader()
                if JxlDecoderGetFrameHeader(decoder, &header) == JXL_DEC_SUCCESS { pendingDuration = durationMilliseconds(header.duration) }
            case JXL_DEC_NEED_IMAGE_OUT_BUFFER:
                output = try allocateOutput(&format, call: call)
            case JXL_DEC_FULL_IMAGE:
                guard var image = output else { throw PluginFailure.internalError("libjxl finished a frame without a buffer") }
                image.alpha_mode = ip_alpha_mode(hasAlpha ? IP_ALPHA_STRAIGHT : IP_ALPHA_NONE)
                image.duration_ms = UInt32(clamping: pendingDuration)
                image.index = UInt32(framesDecoded)
                framesDecoded += 1
                if !isAnimated { finished = true }
                return image
            case JXL_DEC_SUCCESS:
                finished = true
                return nil
            case JXL_DEC_NEED_MORE_INPUT:
                throw PluginFailure.truncated("the JPEG XL file ends inside frame \(framesDecoded)")
            case JXL_DEC_ERROR:
                throw PluginFailure.invalidData("libjxl could not decode frame \(framesDecoded)")
            default:
                continue
            }
        }
    }

    /// The first frame as far as the bytes so far draw it (a decoder made for `.preview`): libjxl's progressive
    /// passes flushed into a host buffer (`JxlDecoderFlushImage`), or the whole frame once its last byte is in.
    /// nil before libjxl can draw anything (the frame's first group has not arrived).
    func preview(call: OpaquePointer?) throws -> ip_image? {
        var output: ip_image?
        var format = JxlPixelFormat(num_channels: 4, data_type: sixteenBit ? JXL_TYPE_UINT16 : JXL_TYPE_UINT8,
                                    endianness: JXL_NATIVE_ENDIAN, align: 0)
        func finished(_ image: ip_image) -> ip_image {
            var image = image
            image.alpha_mode = ip_alpha_mode(hasAlpha ? IP_ALPHA_STRAIGHT : IP_ALPHA_NONE)
            color.write(into: &image, call: call)
            return image
        }
        do {
            while true {
                try Host.checkCancellation(call)
                switch JxlDecoderProcessInput(decoder) {
                case JXL_DEC_NEED_IMAGE_OUT_BUFFER:
                    output = try allocateOutput(&format, call: call)
                case JXL_DEC_FULL_IMAGE:
                    guard let image = output else { throw PluginFailure.internalError("libjxl finished a frame without a buffer") }
                    return finished(image)
                case JXL_DEC_NEED_MORE_INPUT, JXL_DEC_FRAME_PROGRESSION:
                    guard let image = output else { return nil }
                    guard JxlDecoderFlushImage(decoder) == JXL_DEC_SUCCESS else {
                        Host.freePixels(call, image.pixels)
                        return nil
                    }
                    return finished(image)
                case JXL_DEC_SUCCESS:
                    throw PluginFailure.invalidData("the JPEG XL file has no frame")
                case JXL_DEC_ERROR:
                    throw PluginFailure.invalidData("libjxl could not decode the bytes so far")
                default:
                    continue
                }
            }
        } catch {
            if let image = output { Host.freePixels(call, image.pixels) }
            throw error
        }
    }

    /// A host buffer libjxl writes into directly when its rows are packed as the host lays them out (libjxl's
    /// `align` rounds each row up to a multiple), else a scratch buffer copied over at the end (never in practice).
    private func allocateOutput(_ format: inout JxlPixelFormat, call: OpaquePointer?) throws -> ip_image {
        let image = try Host.allocatePixels(call, width: width, height: height, format: sixteenBit ? IP_PIXEL_RGBA16 : IP_PIXEL_RGBA8)
        guard let pixels = image.pixels else { throw PluginFailure.internalError("the host returned no pixels") }
        let packed = width * (sixteenBit ? 8 : 4)
        format.align = Int(image.stride) == packed ? 0 : Int(image.stride)
        var needed = 0
        guard JxlDecoderImageOutBufferSize(decoder, &format, &needed) == JXL_DEC_SUCCESS,
              needed <= Int(image.stride) * height else {
            throw PluginFailure.internalError("libjxl wants \(needed) bytes for a \(width)x\(height) frame; the host gave \(Int(image.stride) * height)")
        }
        guard JxlDecoderSetImageOutBuffer(decoder, &format, pixels, Int(image.stride) * height) == JXL_DEC_SUCCESS else {
            throw PluginFailure.internalError("libjxl refused the output buffer")
        }
        return image
    }

    private func durationMilliseconds(_ ticks: UInt32) -> Int {
        let numerator = Int(info.animation.tps_numerator), denominator = Int(info.animation.tps_denominator)
        guard numerator > 0 else { return 0 }
        return Int((Double(ticks) * 1000 * Double(max(1, denominator)) / Double(numerator)).rounded())
    }

    /// What the host needs to convert the pixels: the ICC profile libjxl describes them with (it synthesises one for
    /// an encoded colour space), and CICP for PQ and HLG, which an ICC profile cannot carry faithfully.
    private static func readColor(_ decoder: OpaquePointer, basic: JxlBasicInfo) -> ColorFacts {
        var facts = ColorFacts()
        var size = 0
        if JxlDecoderGetICCProfileSize(decoder, nil, JXL_COLOR_PROFILE_TARGET_DATA, &size) == JXL_DEC_SUCCESS,
           size > 0, size <= 4 << 20 {
            var profile = [UInt8](repeating: 0, count: size)
            if JxlDecoderGetColorAsICCProfile(decoder, nil, JXL_COLOR_PROFILE_TARGET_DATA, &profile, size) == JXL_DEC_SUCCESS {
                facts.icc = profile
            }
        }
        var encoding = JxlColorEncoding()
        if JxlDecoderGetColorAsEncodedProfile(decoder, nil, JXL_COLOR_PROFILE_TARGET_DATA, &encoding) == JXL_DEC_SUCCESS,
           encoding.transfer_function == JXL_TRANSFER_FUNCTION_PQ || encoding.transfer_function == JXL_TRANSFER_FUNCTION_HLG {
            // libjxl's enums use the H.273 code points (primaries 1/9/11, transfer 16/18). The profile libjxl
            // synthesises for them is left out: with CICP alone the host takes its HDR path (tone mapping), as it
            // does for an AVIF that says the same, instead of clipping through an ICC curve.
            facts.cicp = (UInt16(encoding.primaries.rawValue), UInt16(encoding.transfer_function.rawValue), 0, true)
            facts.icc = nil
        }
        return facts
    }

    /// Whether an extra channel is K, the black of a CMYK image (at most 256 channels are looked at).
    private static func hasBlackChannel(_ decoder: OpaquePointer, _ basic: JxlBasicInfo) -> Bool {
        (0..<min(Int(basic.num_extra_channels), 256)).contains { index in
            var channel = JxlExtraChannelInfo()
            return JxlDecoderGetExtraChannelInfo(decoder, Int(index), &channel) == JXL_DEC_SUCCESS && channel.type == JXL_CHANNEL_BLACK
        }
    }

    private static func limitFailure(width: Int, height: Int, _ limits: ip_limits) -> PluginFailure? {
        if limits.max_dimension > 0, width > Int(limits.max_dimension) || height > Int(limits.max_dimension) {
            return .limitExceeded("\(width)x\(height) exceeds the dimension limit of \(limits.max_dimension)")
        }
        if limits.max_pixels > 0, UInt64(width) * UInt64(height) > limits.max_pixels {
            return .limitExceeded("\(width)x\(height) exceeds the pixel limit of \(limits.max_pixels)")
        }
        return nil
    }

    /// One line for `info`: container or codestream, lossless or not, bit depth, extras.
    func details(container: Bool) -> String {
        var parts = [container ? "container" : "codestream"]
        parts.append(info.uses_original_profile != 0 ? "original colour profile (lossless or modular)" : "XYB (lossy)")
        parts.append(info.exponent_bits_per_sample > 0 ? "\(info.bits_per_sample)-bit float" : "\(info.bits_per_sample)-bit")
        if info.num_color_channels == 1 { parts.append("grey") }
        if hasAlpha { parts.append("alpha (\(info.alpha_bits)-bit\(info.alpha_premultiplied != 0 ? ", premultiplied" : ""))") }
        if info.orientation.rawValue > 1 { parts.append("orientation \(info.orientation.rawValue)") }
        if info.have_preview != 0 { parts.append("preview \(info.preview.xsize)x\(info.preview.ysize)") }
        if Int(info.num_extra_channels) > (hasAlpha ? 1 : 0) { parts.append("\(info.num_extra_channels) extra channels") }
        if color.cicp != nil { parts.append(color.cicp?.transfer == 16 ? "PQ" : "HLG") }
        return parts.joined(separator: ", ")
    }
}
