import PluginAPI
import VersionedStructs

/// What a transcode gave: the converted file, or why this file cannot be converted without pixels (so that the
/// caller decodes and encodes instead, or tells the user why the lossless conversion it asked for is impossible).
public enum TranscodeOutcome: Sendable, Equatable {
    case converted([UInt8])
    case declined(reason: String)
}

extension PluginCoder {
    /// The coder's transcode slot for `pair` (ABI 1.1). UNSUPPORTED from the plugin is `.declined`, with its reason;
    /// any other failure throws, as an encode's does.
    func transcode(_ data: [UInt8], pair: FormatPair, options: EncodeOptions, limits: DecodeLimits,
                   maxOutputBytes: Int = 1 << 30) throws -> TranscodeOutcome {
        guard descriptor.capabilities.contains(.transcodes), descriptor.transcodes.contains(pair),
              let transcode = try vtable().transcode else {
            return .declined(reason: "\(descriptor.id) does not convert \(pair.source) to \(pair.target)")
        }
        let sink = ByteSink(limit: maxOutputBytes)
        let context = CallContext(limits: limits)
        var message = MessageBuffer()
        let status = data.withUnsafeBufferPointer { bytes in
            pair.source.withCString { source in
                pair.target.withCString { target in
                    options.withABI { optionsPointer in
                        var request = ip_transcode_request(
                            struct_size: UInt32(MemoryLayout<ip_transcode_request>.size), data: bytes.baseAddress,
                            size: bytes.count, source_format: source, target_format: target, options: optionsPointer,
                            call: context.handle)
                        return sink.withABI { abiSink in
                            message.withMessage { m in calling { PluginStatus(abi: transcode(&request, abiSink, m)) } }
                        }
                    }
                }
            }
        }
        switch status {
        case .ok: return .converted(sink.bytes)
        case .unsupported: return .declined(reason: message.text.isEmpty ? "\(descriptor.id) declined this file" : message.text)
        default: throw PipelineError.encodingFailed(coder: descriptor.id, status: status, message: message.text)
        }
    }
}

extension CodersManager {
    /// The coder that converts `pair` without pixels: the first that lists it (the source's coder or the
    /// target's, whichever declared the pair).
    public func transcoder(for pair: FormatPair) -> PluginCoder? {
        coders.first { $0.descriptor.capabilities.contains(.transcodes) && $0.descriptor.transcodes.contains(pair) }
    }

    /// Converts `data` to `target` (a format name or extension) without decoding it to pixels, when a coder offers
    /// that conversion and this file allows it: JPEG → JPEG XL keeping the DCT coefficients, and a JPEG XL made so
    /// → the original JPEG, bit for bit. `source` names the data's format; nil sniffs it.
    ///
    /// Transcoding runs in this process only: a transcoder that the isolation policy sends to a worker is declined
    /// (the caller then takes the pixel path, isolated as usual).
    public func transcode(data: [UInt8], to target: String, from source: String? = nil,
                          options: EncodeOptions = EncodeOptions(), limits: DecodeLimits = DecodeLimits()) throws -> TranscodeOutcome {
        try Self.checkInputSize(data, options: DecodeOptions(limits: limits))
        // A route a worker still has to confirm names only a candidate format (an SVG sniff, say): it is no transcode
        // source, and the reason must not claim to know the format.
        let route = try source == nil ? self.route(for: data, options: DecodeOptions(limits: limits)) : nil
        let sourceFormat = source.map(canonicalFormat) ?? route!.coder.descriptor.format
        let pair = FormatPair(source: sourceFormat, target: canonicalFormat(target))
        guard route?.confirmInWorker != true, let coder = transcoder(for: pair) else {
            let named = route?.confirmInWorker == true ? "this source" : pair.source
            return .declined(reason: "no coder converts \(named) to \(pair.target) without decoding it")
        }
        if try pool(for: coder, isolation: nil) != nil {
            return .declined(reason: "\(coder.descriptor.id) runs isolated, and transcoding runs only in this process")
        }
        return try coder.transcode(data, pair: pair, options: options, limits: limits)
    }

    /// Whether any coder converts some format to `target` without pixels (a cheap test before loading a source).
    public func offersTranscoding(to target: String) -> Bool {
        let target = canonicalFormat(target)
        return coders.contains { $0.descriptor.transcodes.contains { $0.target == target } }
    }

    /// A format's name as its coders state it: "jpg" → "jpeg" through a coder that lists the extension.
    func canonicalFormat(_ name: String) -> String {
        let name = name.lowercased()
        return coders.first { $0.descriptor.format == name }?.descriptor.format
            ?? coders.first { $0.descriptor.extensions.contains(name) }?.descriptor.format ?? name
    }
}
