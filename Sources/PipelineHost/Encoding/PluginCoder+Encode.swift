import PluginAPI
import VersionedStructs

extension PluginCoder {
    /// Encodes still images (one, or several frames of an animation) to bytes.
    func encode(_ frames: [Image], options: EncodeOptions, metadata: KeptMetadata? = nil, maxOutputBytes: Int = 1 << 30) throws -> [UInt8] {
        guard let encode = try vtable().encode, descriptor.capabilities.contains(.encode) else {
            throw PipelineError.noEncoder(format: descriptor.format)
        }
        let sink = ByteSink(limit: maxOutputBytes)
        let context = CallContext(limits: DecodeLimits())
        let frames = try frames.map { frame in
            let opaque = try EncodeBackground.flattenIfNeeded(frame, format: descriptor.format, background: options.background)
            return try EncodeColor.prepare(opaque, format: descriptor.format)
        }
        // The ICC bytes each frame lends its encoder, alive until the call returns.
        let profiles = frames.map { frame in frame.color?.iccProfile.map { bytes -> UnsafeMutableBufferPointer<UInt8> in
            let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: bytes.count)
            _ = buffer.initialize(from: bytes)
            return buffer
        } }
        defer { profiles.forEach { $0?.deallocate() } }
        var abiFrames = zip(frames, profiles).map { frame, profile in
            var image = ip_image()
            image.struct_size = UInt32(MemoryLayout<ip_image>.size)
            image.width = UInt32(frame.width)
            image.height = UInt32(frame.height)
            image.stride = UInt32(frame.stride)
            image.format = frame.pixelFormat.abi
            image.alpha_mode = frame.alphaMode.abi
            image.pixels = frame.storage.pointer
            image.duration_ms = UInt32(frame.durationMilliseconds)
            image.index = UInt32(frame.index)
            frame.color?.write(into: &image, icc: profile?.baseAddress)
            return image
        }
        var message = MessageBuffer()
        let status = options.withABI(metadata: metadata) { abiOptions in withExtendedLifetime(frames) {
            sink.withABI { abiSink in
                message.withMessage { m in
                    abiFrames.withUnsafeMutableBufferPointer { images in
                        // The ABI takes an array of pointers (so that ip_image may grow), into `images`.
                        var pointers = (0..<images.count).map { Optional(UnsafePointer(images.baseAddress! + $0)) }
                        return calling {
                            PluginStatus(abi: encode(&pointers, UInt32(images.count), abiOptions, context.handle, abiSink, m))
                        }
                    }
                }
            }
        } }
        guard status == .ok else { throw PipelineError.encodingFailed(coder: descriptor.id, status: status, message: message.text) }
        return sink.bytes
    }
}

/// Collects an encoder's output (the ABI's ip_byte_sink) up to a limit.
final class ByteSink {
    private(set) var bytes: [UInt8] = []
    let limit: Int

    init(limit: Int) { self.limit = limit }

    func withABI<R>(_ body: (UnsafePointer<ip_byte_sink>) -> R) -> R {
        var sink = ip_byte_sink(
            struct_size: UInt32(MemoryLayout<ip_byte_sink>.size),
            context: Unmanaged.passUnretained(self).toOpaque(),
            write: { context, data, size in
                guard let context else { return ip_status(IP_STATUS_INTERNAL) }
                let sink = Unmanaged<ByteSink>.fromOpaque(context).takeUnretainedValue()
                guard sink.bytes.count + size <= sink.limit else { return ip_status(IP_STATUS_LIMIT_EXCEEDED) }
                if size > 0, let data { sink.bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: size)) }
                return ip_status(IP_STATUS_OK)
            })
        return withExtendedLifetime(self) { body(&sink) }
    }
}
