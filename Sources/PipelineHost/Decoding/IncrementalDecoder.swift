import PluginAPI
import VersionedStructs

/// Decodes while bytes arrive, through a coder's incremental slots: each update gets every byte received so
/// far and returns a preview when the coder can draw one (progressive JPEG scans, WebP rows ...).
///
/// Not Sendable: one decoder serves one transfer, from one task at a time, as the ABI's thread tag requires.
public final class IncrementalDecoder {
    public let coder: PluginCoder
    private let finishing: FinishingStep
    private let decoder: OpaquePointer?
    private let table: CoderEntryPoints
    private let context: CallContext

    /// `prefix`: the bytes received so far, for the plan's probe (a budget or a gravity needs the source's size:
    /// the headers are at the start of every format that decodes incrementally).
    init(coder: PluginCoder, prefix: [UInt8], options requested: DecodeOptions, transformers: [any ImageTransforming]) throws {
        let table = try coder.vtable()
        guard coder.descriptor.capabilities.contains(.incremental), let open = table.incrementalOpen else {
            throw PipelineError.decodingFailed(coder: coder.descriptor.id, status: .unsupported, message: "this coder does not decode incrementally")
        }
        let plan = try prefix.withUnsafeBytes { bytes in
            try DecodePlan(coder: coder, options: requested, transformers: transformers) { try coder.probe(bytes, options: requested) }
        }
        let options = plan.coderOptions
        var message = MessageBuffer()
        var opened: OpaquePointer?
        let status = options.withABI { abi in message.withMessage { m in coder.calling { PluginStatus(abi: open(abi, &opened, m)) } } }
        guard status == .ok else { throw PipelineError.decodingFailed(coder: coder.descriptor.id, status: status, message: message.text) }
        self.coder = coder
        finishing = plan.finishing
        self.table = table
        decoder = opened
        context = CallContext(limits: options.limits)
    }

    deinit {
        if let close = table.table.incremental_close { coder.calling { close(decoder) } }
    }

    /// Feeds all bytes received so far; returns a preview (or, with `isFinal`, the finished image) finished like a
    /// one-shot decode, the request's transformers included (a preview has the final image's size), or nil when
    /// the coder cannot draw anything yet.
    public func update(data: [UInt8], isFinal: Bool) throws -> Image? {
        guard let update = table.table.incremental_update else { return nil }
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
        case .ok: return try finishing.apply(try coder.adopt(image, context: context))
        case .needMore: return nil
        default: throw PipelineError.decodingFailed(coder: coder.descriptor.id, status: status, message: message.text)
        }
    }
}

extension CodersManager {
    /// An incremental decoder for a source whose first bytes are `prefix`, or nil when the coder that sniffing
    /// picks cannot decode incrementally, or nothing can be picked from so few bytes yet, or the isolation policy
    /// sends this coder to a worker: an incremental decoder keeps state across updates, which a worker request
    /// does not, and decoding in this process what the policy isolates would defeat the policy.
    public func incrementalDecoder(forPrefix prefix: [UInt8], options: DecodeOptions = DecodeOptions(),
                                   transformers: [any ImageTransforming] = []) throws -> IncrementalDecoder? {
        guard let coder = coder(forData: prefix), coder.descriptor.capabilities.contains(.incremental),
              try pool(for: coder, isolation: nil) == nil else { return nil }
        return try IncrementalDecoder(coder: coder, prefix: prefix, options: options, transformers: transformers)
    }
}
