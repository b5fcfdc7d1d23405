import PluginAPI

extension PluginCoder {
    /// Reads the source's facts without decoding pixels.
    func probe(_ data: UnsafeRawBufferPointer, options: DecodeOptions) throws -> ImageInfo {
        guard let probe = try vtable().probe else { throw cannotDecode }
        var info = ip_image_info()
        info.struct_size = UInt32(MemoryLayout<ip_image_info>.size)
        let (status, message) = call(data, options: options, context: CallContext(limits: options.limits)) { request, m in
            probe(request, &info, m)
        }
        guard status == .ok else { throw PipelineError.decodingFailed(coder: descriptor.id, status: status, message: message) }
        let format = withUnsafeBytes(of: info.format) { Self.cString(in: $0) }
        let details = withUnsafeBytes(of: info.details) { Self.cString(in: $0) }
        return ImageInfo(
            format: format.isEmpty ? descriptor.format : format, width: Int(info.width), height: Int(info.height),
            frameCount: Int(info.frame_count), pageCount: max(1, Int(info.page_count)),
            loopCount: info.loop_count < 0 ? nil : Int(info.loop_count), bitDepth: Int(info.bit_depth),
            hasAlpha: info.has_alpha != 0, details: details, coderID: descriptor.id)
    }

    /// Decodes one image (page or frame) as the plugin produces it: at the requested size only if the coder
    /// declares `.scales`, untinted unless it declares `.tints`. The coders manager finishes the rest.
    func decodeRaw(_ data: UnsafeRawBufferPointer, options: DecodeOptions, context: CallContext) throws -> Image {
        guard let decode = try vtable().decode else { throw cannotDecode }
        var image = ip_image()
        image.struct_size = UInt32(MemoryLayout<ip_image>.size)
        let (status, message) = call(data, options: options, context: context) { request, m in decode(request, &image, m) }
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

    /// Runs a probe or decode slot with the request both take (the bytes, the options in ABI form, the call) and a
    /// message buffer, under the coder's lock if it is not thread-safe; returns its status and message.
    private func call(_ data: UnsafeRawBufferPointer, options: DecodeOptions, context: CallContext,
                      _ slot: (UnsafePointer<ip_decode_request>, ip_message) -> ip_status) -> (PluginStatus, String) {
        var message = MessageBuffer()
        let status = options.withABI { abiOptions in
            var request = ip_decode_request(
                struct_size: UInt32(MemoryLayout<ip_decode_request>.size),
                data: data.baseAddress?.assumingMemoryBound(to: UInt8.self), size: data.count,
                options: abiOptions, call: context.handle)
            return message.withMessage { m in calling { PluginStatus(abi: slot(&request, m)) } }
        }
        return (status, message.text)
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
        return Image(width: width, height: height, stride: stride, pixelFormat: format, alphaMode: alpha,
                     durationMilliseconds: Int(image.duration_ms), index: Int(image.index), storage: storage)
    }

    static func cString(in bytes: UnsafeRawBufferPointer) -> String {
        String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }
}
