import PluginAPI

/// A magic-byte pattern as plugin authors write it; `Descriptors.coder` turns it into C data.
public struct MagicPattern: Sendable {
    public var offset: Int
    public var bytes: [UInt8]
    public var mask: [UInt8]?
    public var relevance: Int
    public var confirmWithSniff: Bool
    /// The bytes may start anywhere in offset...offset + searchRange (0 = exactly at offset).
    public var searchRange: Int

    public init(offset: Int = 0, bytes: [UInt8], mask: [UInt8]? = nil, relevance: Int = 100, confirmWithSniff: Bool = false,
                searchRange: Int = 0) {
        self.offset = offset
        self.bytes = bytes
        self.mask = mask
        self.relevance = relevance
        self.confirmWithSniff = confirmWithSniff
        self.searchRange = searchRange
    }

    /// A pattern over the ASCII bytes of `text`.
    public init(offset: Int = 0, ascii text: String, relevance: Int = 100, confirmWithSniff: Bool = false, searchRange: Int = 0) {
        self.init(offset: offset, bytes: Array(text.utf8), relevance: relevance, confirmWithSniff: confirmWithSniff,
                  searchRange: searchRange)
    }
}

/// Builders for the static descriptor tables of the ABI. A coder's capabilities that say which slots are filled
/// (CAN_DECODE, CAN_ENCODE, ANIMATED, INCREMENTAL, TRANSCODES) are set by `CoderTable.make` from its implementations; the
/// rest (VECTOR, SCALES, THREAD_SAFE, ...) are given here. `transcodes` lists the "from>to" pairs a
/// `PluginTranscoding` implementation converts (coder.h).
public enum Descriptors {
    public static func coder(
        id: String, name: String, version: String, format: String,
        mimeTypes: [String], extensions: [String], capabilities: UInt64, priority: Int32 = 100,
        patterns: [MagicPattern], sniffBytes: Int = 0, decodeExtensions: [String] = [], transcodes: [String] = []
    ) -> StaticTable<ip_coder_descriptor> {
        let cPatterns = patterns.map { pattern in
            StaticStorage.value(ip_magic_pattern(
                struct_size: UInt32(MemoryLayout<ip_magic_pattern>.size), offset: UInt32(pattern.offset), length: UInt32(pattern.bytes.count),
                bytes: StaticStorage.bytes(pattern.bytes),
                mask: pattern.mask.map { StaticStorage.bytes($0) },
                relevance: UInt32(pattern.relevance),
                flags: pattern.confirmWithSniff ? UInt32(IP_MAGIC_CONFIRM_WITH_SNIFF) : 0,
                search_range: UInt32(pattern.searchRange)))
        }
        let descriptor = ip_coder_descriptor(
            struct_size: UInt32(MemoryLayout<ip_coder_descriptor>.size),
            id: StaticStorage.cString(id), name: StaticStorage.cString(name),
            version: StaticStorage.cString(version), format: StaticStorage.cString(format),
            mime_types: StaticStorage.cStringList(mimeTypes), extensions: StaticStorage.cStringList(extensions),
            capabilities: capabilities, priority: priority,
            pattern_count: UInt32(cPatterns.count), patterns: StaticStorage.array(cPatterns.map { Optional($0) }),
            sniff_bytes: UInt32(sniffBytes),
            decode_extensions: decodeExtensions.isEmpty ? nil : StaticStorage.cStringList(decodeExtensions),
            transcodes: transcodes.isEmpty ? nil : StaticStorage.cStringList(transcodes))
        return StaticTable(StaticStorage.value(descriptor))
    }

    public static func loader(
        id: String, name: String, version: String, schemes: [String], capabilities: UInt64, priority: Int32 = 100
    ) -> StaticTable<ip_loader_descriptor> {
        StaticTable(StaticStorage.value(ip_loader_descriptor(
            struct_size: UInt32(MemoryLayout<ip_loader_descriptor>.size),
            id: StaticStorage.cString(id), name: StaticStorage.cString(name),
            version: StaticStorage.cString(version), schemes: StaticStorage.cStringList(schemes),
            capabilities: capabilities, priority: priority)))
    }

    public static func cache(
        id: String, name: String, version: String, capabilities: UInt64, priority: Int32 = 100
    ) -> StaticTable<ip_cache_descriptor> {
        StaticTable(StaticStorage.value(ip_cache_descriptor(
            struct_size: UInt32(MemoryLayout<ip_cache_descriptor>.size),
            id: StaticStorage.cString(id), name: StaticStorage.cString(name),
            version: StaticStorage.cString(version), capabilities: capabilities, priority: priority)))
    }
}
