import PluginAPI

/// What a coder can do (the ABI's IP_CODER_* flags).
public struct CoderCapabilities: OptionSet, Sendable, Hashable, Codable {
    public let rawValue: UInt64
    public init(rawValue: UInt64) { self.rawValue = rawValue }

    public static let decode = CoderCapabilities(rawValue: UInt64(IP_CODER_CAN_DECODE))
    public static let encode = CoderCapabilities(rawValue: UInt64(IP_CODER_CAN_ENCODE))
    public static let animated = CoderCapabilities(rawValue: UInt64(IP_CODER_ANIMATED))
    public static let incremental = CoderCapabilities(rawValue: UInt64(IP_CODER_INCREMENTAL))
    public static let vector = CoderCapabilities(rawValue: UInt64(IP_CODER_VECTOR))
    public static let multipage = CoderCapabilities(rawValue: UInt64(IP_CODER_MULTIPAGE))
    public static let fastThumbnail = CoderCapabilities(rawValue: UInt64(IP_CODER_FAST_THUMBNAIL))
    public static let threadSafe = CoderCapabilities(rawValue: UInt64(IP_CODER_THREAD_SAFE))
    /// Host-side, derived: the coder lists the tint extension (IP_DECODE_EXTENSION_TINT) in its descriptor, so it
    /// applies the template tint itself. Never read from the plugin's bits (ABI bit 8 is retired).
    public static let tints = CoderCapabilities(rawValue: 1 << 63)
    public static let scales = CoderCapabilities(rawValue: UInt64(IP_CODER_SCALES))
    public static let recommendsIsolation = CoderCapabilities(rawValue: UInt64(IP_CODER_RECOMMENDS_ISOLATION))
    /// ABI 1.1: converts whole files to another format without pixels (`CoderDescriptor.transcodes`).
    public static let transcodes = CoderCapabilities(rawValue: UInt64(IP_CODER_TRANSCODES))

    /// Names for listings, in a stable order.
    public static let names: [(CoderCapabilities, String)] = [
        (.decode, "decode"), (.encode, "encode"), (.animated, "animated"), (.incremental, "incremental"),
        (.vector, "vector"), (.multipage, "multipage"), (.fastThumbnail, "fast-thumbnail"),
        (.threadSafe, "thread-safe"), (.tints, "tints"), (.scales, "scales"),
        (.recommendsIsolation, "recommends-isolation"), (.transcodes, "transcodes"),
    ]

    public var names: [String] { Self.names.filter { contains($0.0) }.map(\.1) }
}

/// One magic-byte pattern, copied out of the plugin.
public struct MagicPatternDescriptor: Sendable, Hashable, Codable {
    public let offset: Int
    public let bytes: [UInt8]
    public let mask: [UInt8]?
    public let relevance: Int
    public let confirmWithSniff: Bool
    /// The bytes may start anywhere in offset...offset + searchRange.
    public let searchRange: Int

    /// True when `data` holds the pattern (a zero-length pattern matches anything).
    func matches(_ data: UnsafeRawBufferPointer) -> Bool {
        var start = offset
        while start <= offset + searchRange, start + bytes.count <= data.count {
            if matches(data, at: start) { return true }
            start += 1
        }
        return false
    }

    private func matches(_ data: UnsafeRawBufferPointer, at start: Int) -> Bool {
        for index in 0..<bytes.count {
            let m = mask?[index] ?? 0xFF
            if data[start + index] & m != bytes[index] & m { return false }
        }
        return true
    }
}

/// A coder's routing data, copied out of its static descriptor so it outlives any plugin call.
public struct CoderDescriptor: Sendable, Hashable, Codable {
    public let id: String
    public let name: String
    public let version: String
    public let format: String
    public let mimeTypes: [String]
    public let extensions: [String]
    public let capabilities: CoderCapabilities
    public let priority: Int
    public let patterns: [MagicPatternDescriptor]
    public let sniffBytes: Int
    /// IDs of the decode extensions the coder honours (decode_extensions.h).
    public let decodeExtensions: [String]
    /// The format pairs its transcode slot converts without pixels (ABI 1.1), e.g. jpeg → jxl.
    public let transcodes: [FormatPair]
    /// The plugin that provides it.
    public let pluginID: String

    init(reading pointer: UnsafePointer<ip_coder_descriptor>?, pluginID: String) throws {
        let raw = try ABIReading.read(pointer, as: ip_coder_descriptor.self, named: "coder descriptor")
        id = try ABIReading.identifier(raw.id, named: "coder id")
        name = try ABIReading.string(raw.name, named: "coder name")
        version = try ABIReading.string(raw.version, named: "coder version")
        format = try ABIReading.string(raw.format, named: "coder format", maxLength: 31).lowercased()
        mimeTypes = try ABIReading.stringList(raw.mime_types, named: "mime_types")
        extensions = try ABIReading.stringList(raw.extensions, named: "extensions").map { $0.lowercased() }
        decodeExtensions = raw.decode_extensions == nil ? [] : try ABIReading.stringList(raw.decode_extensions, named: "decode_extensions")
        let coderID = id
        transcodes = raw.transcodes == nil ? [] : try ABIReading.stringList(raw.transcodes, named: "transcodes").map { pair in
            guard let pair = FormatPair(pair) else {
                throw ABIReading.Failure("coder \(coderID): transcodes entry '\(pair)' is not 'from>to' (two lower-case format names)")
            }
            return pair
        }
        var capabilities = CoderCapabilities(rawValue: raw.capabilities & ~CoderCapabilities.tints.rawValue)
        if decodeExtensions.contains(IP_DECODE_EXTENSION_TINT) { capabilities.insert(.tints) }
        self.capabilities = capabilities
        priority = Int(raw.priority)
        sniffBytes = Int(raw.sniff_bytes)
        guard raw.pattern_count <= 64 else { throw ABIReading.Failure("coder \(id) declares \(raw.pattern_count) magic patterns (max 64)") }
        var patterns: [MagicPatternDescriptor] = []
        for index in 0..<Int(raw.pattern_count) {
            guard let list = raw.patterns else { throw ABIReading.Failure("coder \(id): patterns is NULL") }
            let p = try ABIReading.read(list[index], as: ip_magic_pattern.self, named: "coder \(id) magic pattern \(index)")
            guard p.length <= 1024, p.offset <= 65536, p.search_range <= 65536 else {
                throw ABIReading.Failure("coder \(id): magic pattern \(index) is out of range (offset \(p.offset), length \(p.length))")
            }
            guard p.length == 0 || p.bytes != nil else { throw ABIReading.Failure("coder \(id): magic pattern \(index) has no bytes") }
            guard (1...100).contains(p.relevance) else {
                throw ABIReading.Failure("coder \(id): magic pattern \(index) relevance \(p.relevance) is outside 1...100")
            }
            let bytes = p.length == 0 ? [] : Array(UnsafeBufferPointer(start: p.bytes, count: Int(p.length)))
            let mask = p.mask.map { Array(UnsafeBufferPointer(start: $0, count: Int(p.length))) }
            patterns.append(MagicPatternDescriptor(
                offset: Int(p.offset), bytes: bytes, mask: mask, relevance: Int(p.relevance),
                confirmWithSniff: p.flags & UInt32(IP_MAGIC_CONFIRM_WITH_SNIFF) != 0, searchRange: Int(p.search_range)))
        }
        self.patterns = patterns
        self.pluginID = pluginID
    }
}

/// A conversion from one format to another, as a transcoding coder lists it ("jpeg>jxl").
public struct FormatPair: Sendable, Hashable, Codable, CustomStringConvertible {
    public let source: String
    public let target: String

    public init(source: String, target: String) {
        self.source = source
        self.target = target
    }

    /// Parses "from>to": two non-empty lower-case names of at most 31 characters, different from each other.
    init?(_ text: String) {
        let parts = text.split(separator: ">", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0] != parts[1] else { return nil }
        let valid = parts.allSatisfy { part in
            (1...31).contains(part.count) && part.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-") }
        }
        guard valid else { return nil }
        self.init(source: String(parts[0]), target: String(parts[1]))
    }

    public var description: String { "\(source)>\(target)" }
}
