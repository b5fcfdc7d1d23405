import PluginAPI

/// What a plugin provides, read in a check child (`load.dlopen`) and sent to the parent, which plans the other
/// checks from it. Lenient: strings that are missing or broken read as "" here; `descriptors.sanity` judges them.
struct PluginDescription: Codable, Sendable {
    struct Pattern: Codable, Sendable {
        var offset: Int
        var bytes: [UInt8]
        var mask: [UInt8]?
        var relevance: Int
        var confirmWithSniff: Bool
        var searchRange: Int
    }

    struct Coder: Codable, Sendable {
        var id: String
        var format: String
        var extensions: [String]
        var mimeTypes: [String]
        var capabilities: UInt64
        var priority: Int
        var patterns: [Pattern]
        var sniffBytes: Int
        var hasSniff: Bool
        var hasEncode: Bool
        /// The "from>to" pairs of the ABI 1.1 transcode slot (empty without one).
        var transcodes: [String] = []
        var hasTranscode = false

        func has(_ flag: UInt64) -> Bool { capabilities & flag != 0 }
        var decodes: Bool { has(IP_CODER_CAN_DECODE) }
        var encodes: Bool { has(IP_CODER_CAN_ENCODE) && hasEncode }
        var recommendsIsolation: Bool { has(IP_CODER_RECOMMENDS_ISOLATION) }
    }

    struct Loader: Codable, Sendable {
        var id: String
        var schemes: [String]
        var capabilities: UInt64
    }

    struct Cache: Codable, Sendable {
        var id: String
        var capabilities: UInt64
    }

    var pluginID: String
    var name: String
    var version: String
    var abi: String
    var coders: [Coder] = []
    var loaders: [Loader] = []
    var caches: [Cache] = []

    init(plugin: PluginUnderTest) throws {
        let entry = plugin.entry
        pluginID = CText.lenient(entry.id)
        name = CText.lenient(entry.name)
        version = CText.lenient(entry.version)
        abi = "\(entry.abi_major).\(entry.abi_minor)"
        for table in try plugin.coders() {
            let d = try ABICopy.read(table.table.descriptor, as: ip_coder_descriptor.self, named: "ip_coder_descriptor")
            var patterns: [Pattern] = []
            if let list = d.patterns, d.pattern_count <= 64 {
                for index in 0..<Int(d.pattern_count) {
                    guard let pointer = list[index], let p = try? ABICopy.read(pointer, as: ip_magic_pattern.self,
                                                                                named: "ip_magic_pattern") else { continue }
                    let length = Int(min(p.length, 1024))
                    patterns.append(Pattern(
                        offset: Int(p.offset),
                        bytes: p.bytes.map { Array(UnsafeBufferPointer(start: $0, count: length)) } ?? [],
                        mask: p.mask.map { Array(UnsafeBufferPointer(start: $0, count: length)) },
                        relevance: Int(p.relevance), confirmWithSniff: p.flags & UInt32(IP_MAGIC_CONFIRM_WITH_SNIFF) != 0,
                        searchRange: Int(p.search_range)))
                }
            }
            coders.append(Coder(
                id: CText.lenient(d.id), format: CText.lenient(d.format).lowercased(),
                extensions: CText.lenientList(d.extensions).map { $0.lowercased() }, mimeTypes: CText.lenientList(d.mime_types),
                capabilities: d.capabilities, priority: Int(d.priority), patterns: patterns, sniffBytes: Int(d.sniff_bytes),
                hasSniff: table.sniff != nil, hasEncode: table.encode != nil,
                transcodes: d.transcodes == nil ? [] : CText.lenientList(d.transcodes), hasTranscode: table.transcode != nil))
        }
        for table in try plugin.loaders() {
            let d = try ABICopy.read(table.table.descriptor, as: ip_loader_descriptor.self, named: "ip_loader_descriptor")
            loaders.append(Loader(id: CText.lenient(d.id), schemes: CText.lenientList(d.schemes), capabilities: d.capabilities))
        }
        for table in try plugin.caches() {
            let d = try ABICopy.read(table.table.descriptor, as: ip_cache_descriptor.self, named: "ip_cache_descriptor")
            caches.append(Cache(id: CText.lenient(d.id), capabilities: d.capabilities))
        }
    }
}

/// Reading C strings from plugin tables.
enum CText {
    /// The string, or "" when NULL; at most 4096 bytes; invalid UTF-8 repaired.
    static func lenient(_ pointer: UnsafePointer<CChar>?) -> String {
        guard let pointer else { return "" }
        let length = strnlen(pointer, 4096)
        return String(decoding: UnsafeRawBufferPointer(start: pointer, count: length), as: UTF8.self)
    }

    /// A NULL-terminated list (at most 64 entries read).
    static func lenientList(_ list: UnsafePointer<UnsafePointer<CChar>?>?) -> [String] {
        guard let list else { return [] }
        var items: [String] = []
        var index = 0
        while index < 64, let item = list[index] {
            items.append(lenient(item))
            index += 1
        }
        return items
    }

    /// Strict reading for the sanity check: nil with a reason when NULL, empty, too long or not UTF-8.
    static func problem(_ pointer: UnsafePointer<CChar>?, named name: String, maxLength: Int = 1024) -> String? {
        guard let pointer else { return "\(name) is NULL" }
        let length = strnlen(pointer, maxLength + 1)
        if length > maxLength { return "\(name) is longer than \(maxLength) bytes" }
        if length == 0 { return "\(name) is empty" }
        if String(validatingCString: pointer) == nil { return "\(name) is not valid UTF-8" }
        return nil
    }
}

#if canImport(Glibc)
import Glibc
#endif
