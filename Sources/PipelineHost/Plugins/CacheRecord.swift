/// A compact binary form for the registry cache: variable-length integers and length-prefixed strings, written
/// and read field by field by each type (`RecordCoding`).
///
/// Why not JSON and Codable: every CLI command reads the registry cache before doing anything else, and
/// FoundationEssentials' JSONDecoder spent 2.4 ms of a 17 ms `imagepipe coders` on an 11.5 KB file — most of it
/// instantiating generic metadata and answering its dynamic casts on first use, which a one-shot process pays every
/// time. Reading the same facts field by field takes a few microseconds.
///
/// The reader treats the bytes as untrusted (a truncated or corrupted file, another version's layout): a sealed
/// record ends with a checksum of the rest, every length is checked against what is left, and any inconsistency
/// throws, so the caller falls back to inspecting.
struct RecordWriter {
    private(set) var bytes: [UInt8] = []

    /// The bytes followed by their checksum, for `RecordReader(sealed:)`.
    var sealed: [UInt8] {
        var checksum = RecordChecksum.of(bytes[...])
        return bytes + withUnsafeBytes(of: &checksum) { Array($0) }
    }

    mutating func unsigned(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    /// Zig-zag, so small negative numbers stay short.
    mutating func signed(_ value: Int) {
        let wide = Int64(value)
        unsigned(UInt64(bitPattern: (wide << 1) ^ (wide >> 63)))
    }

    mutating func bool(_ value: Bool) { bytes.append(value ? 1 : 0) }

    mutating func bytes(_ value: [UInt8]) {
        unsigned(UInt64(value.count))
        bytes += value
    }

    mutating func string(_ value: String) { bytes(Array(value.utf8)) }

    mutating func optional<T>(_ value: T?, _ write: (inout RecordWriter, T) -> Void) {
        bool(value != nil)
        if let value { write(&self, value) }
    }

    mutating func array<T>(_ values: [T], _ write: (inout RecordWriter, T) -> Void) {
        unsigned(UInt64(values.count))
        for value in values { write(&self, value) }
    }

    mutating func record<T: RecordCoding>(_ value: T) { value.write(to: &self) }
}

struct RecordReader {
    struct Malformed: Error {}

    private let data: [UInt8]
    private var position = 0

    init(_ bytes: [UInt8]) { data = bytes }

    /// Checks and drops the checksum `RecordWriter.sealed` appended; nil when it does not match.
    init?(sealed: [UInt8]) {
        guard sealed.count >= 8 else { return nil }
        let body = sealed.dropLast(8)
        var stored: UInt64 = 0
        withUnsafeMutableBytes(of: &stored) { $0.copyBytes(from: sealed.suffix(8)) }
        guard stored == RecordChecksum.of(body) else { return nil }
        data = Array(body)
    }

    var isAtEnd: Bool { position == data.count }

    mutating func unsigned() throws -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard position < data.count, shift < 64 else { throw Malformed() }
            let byte = data[position]
            position += 1
            value |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return value }
            shift += 7
        }
    }

    mutating func signed() throws -> Int {
        let raw = try unsigned()
        let wide = Int64(bitPattern: raw >> 1) ^ -Int64(bitPattern: raw & 1)
        guard let value = Int(exactly: wide) else { throw Malformed() }
        return value
    }

    mutating func bool() throws -> Bool {
        guard position < data.count, data[position] <= 1 else { throw Malformed() }
        defer { position += 1 }
        return data[position] == 1
    }

    /// A count that must fit in what is left (each element takes at least one byte), so a corrupted length
    /// cannot make the reader reserve or loop over more than the file holds.
    mutating func count() throws -> Int {
        let count = try unsigned()
        guard count <= UInt64(data.count - position) else { throw Malformed() }
        return Int(count)
    }

    mutating func bytes() throws -> [UInt8] {
        let count = try count()
        defer { position += count }
        return Array(data[position..<position + count])
    }

    mutating func string() throws -> String {
        let count = try count()
        defer { position += count }
        guard let text = String(validating: data[position..<position + count], as: UTF8.self) else { throw Malformed() }
        return text
    }

    mutating func optional<T>(_ read: (inout RecordReader) throws -> T) throws -> T? {
        try bool() ? try read(&self) : nil
    }

    mutating func array<T>(_ read: (inout RecordReader) throws -> T) throws -> [T] {
        let count = try count()
        var values: [T] = []
        values.reserveCapacity(count)
        for _ in 0..<count { values.append(try read(&self)) }
        return values
    }

    mutating func record<T: RecordCoding>(_ type: T.Type = T.self) throws -> T { try T(record: &self) }
}

/// 64-bit FNV-1a: catches a truncated, extended or damaged file (not an adversary: the cache directory is the
/// user's own, and the plugin files themselves are checked on every scan).
enum RecordChecksum {
    static func of(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        return hash
    }
}

/// A type the registry cache stores: written and read in the same field order.
protocol RecordCoding {
    init(record: inout RecordReader) throws
    func write(to record: inout RecordWriter)
}
