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
/// C function pointers cannot capture which coder they belong to, and a slot's arguments do not say, so each coder
/// of a plugin gets a numbered set of entry points (`CoderSlots`) that look its implementations up by number. A
/// plugin may define up to four coders.
public enum CoderTable {
    /// The capabilities that say which slots are filled; the kit sets them from the implementations given.
    static let slotCapabilities = UInt64(IP_CODER_CAN_DECODE) | UInt64(IP_CODER_CAN_ENCODE) | UInt64(IP_CODER_ANIMATED)
        | UInt64(IP_CODER_INCREMENTAL)

    public static func make(
        descriptor: StaticTable<ip_coder_descriptor>,
        sniffer: (any ImageSniffing.Type)? = nil,
        decoder: (any PluginDecoding.Type)? = nil,
        frames: (any FrameIterating.Type)? = nil,
        incremental: (any IncrementalDecoding.Type)? = nil,
        encoder: (any PluginEncoding.Type)? = nil
    ) -> StaticTable<ip_coder> {
        let index = CoderSlots.registry.register(CoderSlots.Implementation(
            sniffer: sniffer, decoder: decoder, frames: frames, incremental: incremental, encoder: encoder))
        var derived: UInt64 = 0
        if decoder != nil { derived |= UInt64(IP_CODER_CAN_DECODE) }
        if encoder != nil { derived |= UInt64(IP_CODER_CAN_ENCODE) }
        if frames != nil { derived |= UInt64(IP_CODER_ANIMATED) }
        if incremental != nil { derived |= UInt64(IP_CODER_INCREMENTAL) }
        var routing = descriptor.pointer.pointee
        routing.capabilities = (routing.capabilities & ~slotCapabilities) | derived
        let entry = CoderSlots.entryPoints(index)
        let table = ip_coder(
            struct_size: UInt32(MemoryLayout<ip_coder>.size),
            descriptor: StaticStorage.value(routing),
            sniff: sniffer == nil ? nil : entry.sniff,
            probe: decoder == nil ? nil : entry.probe,
            decode: decoder == nil ? nil : entry.decode,
            frames_open: frames == nil ? nil : entry.frames_open,
            frames_next: frames == nil ? nil : CoderSlots.framesNext,
            frames_close: frames == nil ? nil : CoderSlots.framesClose,
            incremental_open: incremental == nil ? nil : entry.incremental_open,
            incremental_update: incremental == nil ? nil : CoderSlots.incrementalUpdate,
            incremental_close: incremental == nil ? nil : CoderSlots.incrementalClose,
            encode: encoder == nil ? nil : entry.encode)
        return StaticTable(StaticStorage.value(table))
    }
}
