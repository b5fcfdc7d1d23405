import PluginAPI

/// Decodes while bytes arrive, through a coder's incremental slots: each update gets every byte received so
/// far and returns a preview when the coder can draw one (progressive JPEG scans, WebP rows ...).
///
/// Not Sendable: one decoder serves one transfer, from one task at a time, as the ABI's thread tag requires.
public final class IncrementalDecoder {
    public let coder: PluginCoder
    private let manager: CodersManager
    private let options: DecodeOptions
    private let decoder: OpaquePointer?
    private let table: ip_coder
    private let context: CallContext

    init(coder: PluginCoder, manager: CodersManager, options: DecodeOptions) throws {
        let table = try coder.vtable()
        guard coder.descriptor.capabilities.contains(.incremental), let open = table.incremental_open else {
            throw PipelineError.decodingFailed(coder: coder.descriptor.id, status: .unsupported, message: "this coder does not decode incrementally")
        }
        var message = MessageBuffer()
        var opened: OpaquePointer?
        let status = options.withABI { abi in message.withMessage { m in coder.calling { PluginStatus(abi: open(abi, &opened, m)) } } }
        guard status == .ok else { throw PipelineError.decodingFailed(coder: coder.descriptor.id, status: status, message: message.text) }
        self.coder = coder
        self.manager = manager
        self.options = options
        self.table = table
        decoder = opened
        context = CallContext(limits: options.limits)
    }

    deinit {
        if let close = table.incremental_close { coder.calling { close(decoder) } }
    }

    /// Feeds all bytes received so far; returns a preview (or, with `isFinal`, the finished image) resized and
    /// tinted like a normal decode, or nil when the coder cannot draw anything yet.
    public func update(data: [UInt8], isFinal: Bool) throws -> Image? {
        guard let update = table.incremental_update else { return nil }
        var image = ip_image()
        image.struct_size = UInt32(MemoryLayout<ip_image>.size)
        var message = MessageBuffer()
        let status = data.withUnsafeBufferPointer { bytes in
            message.withMessage { m in
                coder.calling { PluginStatus(abi: update(decoder, bytes.baseAddress, bytes.count, isFinal ? 1 : 0, context.handle, &image, m)) }
            }
        }
        defer { context.finish() }
        switch status {
        case .ok: return try manager.finish(try coder.adopt(image, context: context), coder: coder, options: options)
        case .needMore: return nil
        default: throw PipelineError.decodingFailed(coder: coder.descriptor.id, status: status, message: message.text)
        }
    }
}

extension CodersManager {
    /// An incremental decoder for a source whose first bytes are `prefix`, or nil when the coder that sniffing
    /// picks cannot decode incrementally (or nothing can be picked from so few bytes yet).
    public func incrementalDecoder(forPrefix prefix: [UInt8], options: DecodeOptions = DecodeOptions()) throws -> IncrementalDecoder? {
        guard let coder = coder(forData: prefix), coder.descriptor.capabilities.contains(.incremental) else { return nil }
        return try IncrementalDecoder(coder: coder, manager: self, options: options)
    }
}
