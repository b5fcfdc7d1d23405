import PluginAPI
import VersionedStructs

extension PluginCoder {
    /// Reads the source's facts without decoding pixels.
    /// `source`: the file read by ranges, when `data` is only its prefix (`RangedSource`).
    func probe(_ data: UnsafeRawBufferPointer, options: DecodeOptions, source: RangedSource? = nil) throws -> ImageInfo {
        try probeWithBlocks(data, options: options, source: source).info
    }

    /// The facts and the metadata blocks themselves (what `MetadataPolicy` keeps for an encoder).
    func probeWithBlocks(_ data: UnsafeRawBufferPointer, options: DecodeOptions,
                         source: RangedSource? = nil) throws -> (info: ImageInfo, exif: [UInt8]?, xmp: [UInt8]?) {
        guard let probe = try vtable().probe else { throw cannotDecode }
        var info = ip_image_info()
        info.struct_size = UInt32(MemoryLayout<ip_image_info>.size)
        let probeContext = CallContext(limits: options.limits)
        defer { probeContext.finish() }
        let (status, message) = call(data, options: options, context: probeContext, source: source) { request, m in
            probe(request, &info, m)
        }
        guard status == .ok else { throw PipelineError.decodingFailed(coder: descriptor.id, status: status, message: message) }
        let format = withUnsafeBytes(of: info.format) { Self.cString(in: $0) }
        let details = withUnsafeBytes(of: info.details) { Self.cString(in: $0) }
        let color = try readColor(flags: info.color_flags, iccSize: info.icc_size, icc: info.icc_profile,
                                  cicp: (info.cicp_primaries, info.cicp_transfer, info.cicp_matrix, info.cicp_full_range),
                                  gamma: info.gamma, chromaticities: info.chromaticities, context: probeContext)
        // Host-allocated blocks only (takeBytes refuses any other pointer or a size past the allocation).
        let exif = info.exif_size > 0 ? probeContext.takeBytes(info.exif, count: Int(info.exif_size)) : nil
        let xmp = info.xmp_size > 0 ? probeContext.takeBytes(info.xmp, count: Int(info.xmp_size)) : nil
        let metadata = MetadataSummary(exif: exif, xmp: xmp)
        let facts = ImageInfo(
            format: format.isEmpty ? descriptor.format : format, width: Int(info.width), height: Int(info.height),
            frameCount: Int(info.frame_count), pageCount: max(1, Int(info.page_count)),
            loopCount: info.loop_count < 0 ? nil : Int(info.loop_count), bitDepth: Int(info.bit_depth),
            hasAlpha: info.has_alpha != 0, details: details, coderID: descriptor.id, color: color,
            metadata: metadata.isEmpty ? nil : metadata)
        return (facts, exif, xmp)
    }

    /// Decodes one image (page or frame) as the plugin produces it: at the requested size only if the coder
    /// declares `.scales`, untinted unless it declares `.tints`. The coders manager finishes the rest.
    /// `source`: the file read by ranges, when `data` is only its prefix (`RangedSource`).
    func decodeRaw(_ data: UnsafeRawBufferPointer, options: DecodeOptions, context: CallContext, source: RangedSource? = nil) throws -> Image {
        guard let decode = try vtable().decode else { throw cannotDecode }
        var image = ip_image()
        image.struct_size = UInt32(MemoryLayout<ip_image>.size)
        let (status, message) = call(data, options: options, context: context, source: source) { request, m in decode(request, &image, m) }
        defer { context.finish() }
        guard status == .ok else {
            if context.isCancelled { throw PipelineError.cancelled }
            if let refusal = context.budgetRefusal { throw refusal }
            throw PipelineError.decodingFailed(coder: descriptor.id, status: status, message: message)
        }
        return try adopt(image, context: context)
    }

    private var cannotDecode: PipelineError {
        .decodingFailed(coder: descriptor.id, status: .unsupported, message: "this coder cannot decode")
    }

    /// Whether the coder reads a source by ranges (`RangedSource`) rather than from bytes in memory.
    var readsRanges: Bool { descriptor.decodeExtensions.contains(IP_DECODE_EXTENSION_SOURCE) }

    /// Runs a probe or decode slot with the request both take (the bytes, the options in ABI form, the call) and a
    /// message buffer, under the coder's lock if it is not thread-safe; returns its status and message. A ranged
    /// `source` goes first on the options' extension chain.
    private func call(_ data: UnsafeRawBufferPointer, options: DecodeOptions, context: CallContext, source: RangedSource?,
                      _ slot: (UnsafePointer<ip_decode_request>, ip_message) -> ip_status) -> (PluginStatus, String) {
        var message = MessageBuffer()
        let status = options.withABI { abiOptions in
            withSource(source, on: abiOptions) { effective in
                var request = ip_decode_request(
                    struct_size: UInt32(MemoryLayout<ip_decode_request>.size),
                    data: data.baseAddress?.assumingMemoryBound(to: UInt8.self), size: data.count,
                    options: effective, call: context.handle)
                return message.withMessage { m in calling { PluginStatus(abi: slot(&request, m)) } }
            }
        }
        return (status, message.text)
    }

    /// `options` with the ranged source's extension ahead of their own. A coder that does not read ranges is never
    /// handed a prefix (the routes check `readsRanges`); this is the last guard.
    private func withSource<R>(_ source: RangedSource?, on options: UnsafePointer<ip_decode_options>,
                               _ body: (UnsafePointer<ip_decode_options>) -> R) -> R {
        guard let source else { return body(options) }
        precondition(readsRanges, "\(descriptor.id) was handed a ranged source it does not read")
        var copy = options.pointee
        return source.withExtension(next: copy.extensions) { head in
            copy.extensions = head
            return withUnsafePointer(to: &copy) { body($0) }
        }
    }

    /// Validates a returned ip_image and takes ownership of its buffer.
    func adopt(_ image: ip_image, context: CallContext) throws -> Image {
        func misbehaved(_ message: String) -> PipelineError { .pluginMisbehaved(plugin: descriptor.pluginID, message: "\(descriptor.id): \(message)") }
        guard let format = PixelFormat(abi: image.format) else { throw misbehaved("unknown pixel format \(image.format)") }
        guard let alpha = AlphaMode(abi: image.alpha_mode) else { throw misbehaved("unknown alpha mode \(image.alpha_mode)") }
        guard let storage = context.adopt(image.pixels) else {
            throw misbehaved("returned pixels that were not allocated by alloc_pixels for this call")
        }
        let width = Int(image.width), height = Int(image.height), stride = Int(image.stride)
        guard width > 0, height > 0, stride >= width * format.bytesPerPixel, stride * (height - 1) + width * format.bytesPerPixel <= storage.byteCount else {
            throw misbehaved("image \(width)x\(height) stride \(stride) does not fit its \(storage.byteCount)-byte buffer")
        }
        let color = try readColor(flags: image.color_flags, iccSize: image.icc_size, icc: image.icc_profile,
                                  cicp: (image.cicp_primaries, image.cicp_transfer, image.cicp_matrix, image.cicp_full_range),
                                  gamma: image.gamma, chromaticities: image.chromaticities, context: context)
        return Image(width: width, height: height, stride: stride, pixelFormat: format, alphaMode: alpha,
                     durationMilliseconds: Int(image.duration_ms), index: Int(image.index), color: color, storage: storage)
    }

    /// The colour facts of a result; a profile pointer the call did not allocate is the plugin's fault.
    private func readColor(flags: UInt32, iccSize: UInt32, icc: UnsafeMutablePointer<UInt8>?,
                           cicp: (UInt16, UInt16, UInt16, UInt16), gamma: UInt32,
                           chromaticities: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32),
                           context: CallContext) throws -> ColorDescription? {
        let c = chromaticities
        do {
            return try ColorDescription(flags: flags, iccSize: iccSize, icc: icc, cicp: cicp, gamma: gamma,
                                        chromaticities: [c.0, c.1, c.2, c.3, c.4, c.5, c.6, c.7],
                                        takeICC: { context.takeBytes($0, count: $1) })
        } catch let error as ColorDescriptionError {
            throw PipelineError.pluginMisbehaved(plugin: descriptor.pluginID, message: "\(descriptor.id): \(error.description)")
        }
    }

    static func cString(in bytes: UnsafeRawBufferPointer) -> String {
        String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }
}
