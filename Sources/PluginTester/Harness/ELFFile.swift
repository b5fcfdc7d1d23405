#if canImport(Glibc)
import Glibc
#endif

/// Just enough ELF to check a plugin before loading it: class, byte order, type, machine, and the defined
/// global symbols of `.dynsym` (what `nm -D --defined-only` prints with an upper-case type).
///
/// Parsed here rather than by running `nm`: small, no tool dependency, and it reads the same table the dynamic
/// linker binds against.
struct ELFFile {
    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    struct Symbol: Equatable {
        let name: String
        /// 1 global, 2 weak, 10 GNU unique.
        let binding: UInt8
    }

    let is64Bit: Bool
    let isLittleEndian: Bool
    /// ET_DYN = 3 for shared objects.
    let type: UInt16
    /// EM_X86_64 = 62, EM_AARCH64 = 183, ...
    let machine: UInt16
    /// Defined, non-local, visible dynamic symbols.
    let exportedSymbols: [Symbol]

    init(bytes: [UInt8]) throws {
        guard bytes.count >= 64, bytes[0] == 0x7F, bytes[1] == 0x45, bytes[2] == 0x4C, bytes[3] == 0x46 else {
            throw Failure("not an ELF file (no \\x7FELF magic)")
        }
        guard bytes[4] == 1 || bytes[4] == 2 else { throw Failure("unknown ELF class \(bytes[4])") }
        guard bytes[5] == 1 || bytes[5] == 2 else { throw Failure("unknown ELF byte order \(bytes[5])") }
        is64Bit = bytes[4] == 2
        isLittleEndian = bytes[5] == 1
        let reader = Reader(bytes: bytes, littleEndian: isLittleEndian)
        type = try reader.u16(16)
        machine = try reader.u16(18)
        exportedSymbols = try ELFFile.dynamicSymbols(reader, is64Bit: is64Bit)
    }

    static func read(path: String) throws -> ELFFile {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Failure("cannot open: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = Glibc.read(fd, &chunk, chunk.count)
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw Failure("cannot read: \(String(cString: strerror(errno)))") }
            if count == 0 { break }
            bytes += chunk[0..<count]
            guard bytes.count <= 1 << 30 else { throw Failure("larger than 1 GiB") }
        }
        return try ELFFile(bytes: bytes)
    }

    /// The machine of the running executable (the host).
    static func hostMachine() -> UInt16? {
        (try? read(path: "/proc/self/exe"))?.machine
    }

    static func machineName(_ machine: UInt16) -> String {
        [3: "x86", 40: "ARM", 62: "x86-64", 183: "AArch64", 243: "RISC-V", 8: "MIPS", 21: "PowerPC64", 22: "S/390"][Int(machine)]
            ?? "machine \(machine)"
    }

    private static func dynamicSymbols(_ r: Reader, is64Bit: Bool) throws -> [Symbol] {
        let sectionOffset = Int(is64Bit ? try r.u64(40) : UInt64(try r.u32(32)))
        let entrySize = Int(try r.u16(is64Bit ? 58 : 46))
        let count = Int(try r.u16(is64Bit ? 60 : 48))
        guard sectionOffset > 0, count > 0 else { throw Failure("no section headers") }
        struct Section { let type: UInt32; let offset: Int; let size: Int; let link: Int; let entrySize: Int }
        var sections: [Section] = []
        for index in 0..<count {
            let base = sectionOffset + index * entrySize
            if is64Bit {
                sections.append(Section(type: try r.u32(base + 4), offset: Int(try r.u64(base + 24)), size: Int(try r.u64(base + 32)),
                                        link: Int(try r.u32(base + 40)), entrySize: Int(try r.u64(base + 56))))
            } else {
                sections.append(Section(type: try r.u32(base + 4), offset: Int(try r.u32(base + 16)), size: Int(try r.u32(base + 20)),
                                        link: Int(try r.u32(base + 24)), entrySize: Int(try r.u32(base + 36))))
            }
        }
        guard let dynsym = sections.first(where: { $0.type == 11 }) else { throw Failure("no .dynsym section") }
        guard sections.indices.contains(dynsym.link) else { throw Failure(".dynsym links to a missing string table") }
        let strings = sections[dynsym.link]
        let symbolSize = dynsym.entrySize > 0 ? dynsym.entrySize : (is64Bit ? 24 : 16)
        var symbols: [Symbol] = []
        for index in 1..<max(1, dynsym.size / symbolSize) {
            let base = dynsym.offset + index * symbolSize
            let nameOffset = Int(try r.u32(base))
            let info = try r.u8(base + (is64Bit ? 4 : 12))
            let other = try r.u8(base + (is64Bit ? 5 : 13))
            let sectionIndex = try r.u16(base + (is64Bit ? 6 : 14))
            let binding = info >> 4
            let visibility = other & 3
            guard sectionIndex != 0, binding != 0, visibility == 0 || visibility == 3 else { continue }
            symbols.append(Symbol(name: try r.cString(strings.offset + nameOffset, limit: strings.offset + strings.size), binding: binding))
        }
        return symbols
    }

    /// Bounds-checked reads: a truncated or hostile file throws instead of trapping.
    private struct Reader {
        let bytes: [UInt8]
        let littleEndian: Bool

        func u8(_ offset: Int) throws -> UInt8 {
            guard offset >= 0, offset < bytes.count else { throw Failure("truncated (offset \(offset) beyond \(bytes.count) bytes)") }
            return bytes[offset]
        }

        func value(_ offset: Int, _ size: Int) throws -> UInt64 {
            guard offset >= 0, offset + size <= bytes.count else { throw Failure("truncated (offset \(offset) beyond \(bytes.count) bytes)") }
            var result: UInt64 = 0
            for index in 0..<size {
                let byte = UInt64(bytes[offset + (littleEndian ? size - 1 - index : index)])
                result = result << 8 | byte
            }
            return result
        }

        func u16(_ offset: Int) throws -> UInt16 { UInt16(try value(offset, 2)) }
        func u32(_ offset: Int) throws -> UInt32 { UInt32(try value(offset, 4)) }
        func u64(_ offset: Int) throws -> UInt64 { try value(offset, 8) }

        func cString(_ offset: Int, limit: Int) throws -> String {
            var end = offset
            while end < min(limit, bytes.count), bytes[end] != 0 { end += 1 }
            guard offset >= 0, end <= bytes.count else { throw Failure("symbol name out of range") }
            return String(decoding: bytes[offset..<end], as: UTF8.self)
        }
    }
}
