import PluginAPI

/// A C table that lives for the process, as a value any thread may read: what the kit's builders return, so that
/// plugins keep their tables in plain `let`s.
/// `@unchecked Sendable`: the pointee is written once, before the pointer is shared, and never again.
public struct StaticTable<Table>: @unchecked Sendable {
    public let pointer: UnsafePointer<Table>
    public init(_ pointer: UnsafePointer<Table>) { self.pointer = pointer }
}

extension StaticTable where Table == Void {
    /// A factory table of any type, kept untyped (get_factory answers `const void *`).
    init<Factory>(factory: UnsafePointer<Factory>) { pointer = UnsafeRawPointer(factory).assumingMemoryBound(to: Void.self) }
    var raw: UnsafeRawPointer { UnsafeRawPointer(pointer) }
}

/// Builds a coder's `ip_coder` table from its Swift implementations.
///
/// The table fills ABI 1.1's "2" slots only, which are told the coder they serve, so every coder of every kit plugin
/// shares one set of C entry points (`CoderSlots`) and a plugin may define any number of coders. A 1.0 host would
/// find the 1.0 slots empty, so a kit plugin refuses such a host in init (`PluginEntry`).
public enum CoderTable {
    /// The capabilities that say which slots are filled; the kit sets them from the implementations given.
    static let slotCapabilities = UInt64(IP_CODER_CAN_DECODE) | UInt64(IP_CODER_CAN_ENCODE) | UInt64(IP_CODER_ANIMATED)
        | UInt64(IP_CODER_INCREMENTAL) | UInt64(IP_CODER_TRANSCODES)

    public static func make(
        descriptor: StaticTable<ip_coder_descriptor>,
        sniffer: (any ImageSniffing.Type)? = nil,
        decoder: (any PluginDecoding.Type)? = nil,
        frames: (any FrameIterating.Type)? = nil,
        incremental: (any IncrementalDecoding.Type)? = nil,
        encoder: (any PluginEncoding.Type)? = nil,
        transcoder: (any PluginTranscoding.Type)? = nil
    ) -> StaticTable<ip_coder> {
        var derived: UInt64 = 0
        if decoder != nil { derived |= UInt64(IP_CODER_CAN_DECODE) }
        if encoder != nil { derived |= UInt64(IP_CODER_CAN_ENCODE) }
        if frames != nil { derived |= UInt64(IP_CODER_ANIMATED) }
        if incremental != nil { derived |= UInt64(IP_CODER_INCREMENTAL) }
        if transcoder != nil { derived |= UInt64(IP_CODER_TRANSCODES) }
        var routing = descriptor.pointer.pointee
        routing.capabilities = (routing.capabilities & ~slotCapabilities) | derived
        var table = ip_coder()
        table.struct_size = UInt32(MemoryLayout<ip_coder>.size)
        table.descriptor = StaticStorage.value(routing)
        table.sniff2 = sniffer == nil ? nil : CoderSlots.sniff
        table.probe2 = decoder == nil ? nil : CoderSlots.probe
        table.decode2 = decoder == nil ? nil : CoderSlots.decode
        table.frames_open2 = frames == nil ? nil : CoderSlots.framesOpen
        table.frames_next = frames == nil ? nil : CoderSlots.framesNext
        table.frames_close = frames == nil ? nil : CoderSlots.framesClose
        table.incremental_open2 = incremental == nil ? nil : CoderSlots.incrementalOpen
        table.incremental_update = incremental == nil ? nil : CoderSlots.incrementalUpdate
        table.incremental_close = incremental == nil ? nil : CoderSlots.incrementalClose
        table.encode2 = encoder == nil ? nil : CoderSlots.encode
        table.transcode = transcoder == nil ? nil : CoderSlots.transcode
        let pointer = StaticStorage.value(table)
        CoderSlots.registry.register(CoderSlots.Implementation(
            sniffer: sniffer, decoder: decoder, frames: frames, incremental: incremental, encoder: encoder,
            transcoder: transcoder),
            for: UnsafeRawPointer(pointer))
        return StaticTable(pointer)
    }
}
