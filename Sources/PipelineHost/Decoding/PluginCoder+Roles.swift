/// One plugin coder in the host's decoding and encoding roles, so a caller that wants exactly this coder (no
/// routing) can use it wherever the coders manager goes: the manager is itself a decoder and an encoder, as
/// SDWebImage's `SDImageCodersManager` is itself an `SDImageCoder`, and so is each coder it chooses among. Decodes
/// run in this process through the same plan and finishing step as the manager's in-process route.
extension PluginCoder: ImageDecoding, ImageEncoding {
    /// The coder's magic patterns match the bytes (and its sniff confirms them when a pattern asks for that).
    public func canDecode(_ data: [UInt8]) -> Bool {
        data.withUnsafeBytes { CoderSelection.choose(for: $0, among: [self]) != nil }
    }

    public func probe(data: [UInt8], options: DecodeOptions) throws -> ImageInfo {
        try requireClaims(data, options: options)
        return try data.withUnsafeBytes { try probe($0, options: options) }
    }

    public func decode(data: [UInt8], options: DecodeOptions) throws -> Image {
        try requireClaims(data, options: options)
        let context = CallContext(limits: options.limits)
        return try data.withUnsafeBytes { try DecodePlan.decode($0, coder: self, options: options, context: context) }
    }

    /// `format` is this coder's format name or one of its extensions ("jpg"), and the coder encodes.
    public func canEncode(format: String) -> Bool {
        let key = format.lowercased()
        return descriptor.capabilities.contains(.encode) && (descriptor.format == key || descriptor.extensions.contains(key))
    }

    public func encode(_ image: Image, format: String, options: EncodeOptions) throws -> [UInt8] {
        guard canEncode(format: format) else { throw PipelineError.noEncoder(format: format) }
        return try encode([image], options: options)
    }

    /// The input limit, then the coder's claim on the bytes: what the manager checks before routing to a coder.
    private func requireClaims(_ data: [UInt8], options: DecodeOptions) throws {
        try CodersManager.checkInputSize(data, options: options)
        guard canDecode(data) else {
            throw PipelineError.unknownFormat(bytesSeen: min(data.count, 4096), hint: data.isEmpty ? "empty input" : "not \(descriptor.format)")
        }
    }
}
