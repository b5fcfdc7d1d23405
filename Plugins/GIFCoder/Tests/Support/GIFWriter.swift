/// Writes GIF files byte by byte, so tests know exactly what every frame holds.
///
/// The LZW stream uses literal codes only and a clear code often enough that the code width never grows, which
/// every decoder must accept and which keeps the writer a few lines long (files are larger than real encoders').
struct GIFWriter {
    private(set) var bytes: [UInt8] = []

    /// RGB palette entries.
    typealias Palette = [(UInt8, UInt8, UInt8)]

    init(width: Int, height: Int, globalPalette: Palette? = nil, version: String = "GIF89a", backgroundIndex: UInt8 = 0) {
        bytes += Array(version.utf8)
        bytes += Self.word(width) + Self.word(height)
        if let palette = globalPalette {
            let bits = Self.tableBits(palette.count)
            bytes.append(0x80 | 0x70 | UInt8(bits - 1))
            bytes += [backgroundIndex, 0]
            bytes += Self.table(palette, bits: bits)
        } else {
            bytes += [0x70, backgroundIndex, 0]
        }
    }

    /// NETSCAPE2.0 application extension with the stored repetition count (0 = forever).
    mutating func loop(_ repetitions: Int) {
        bytes += [0x21, 0xFF, 11] + Array("NETSCAPE2.0".utf8) + [3, 1] + Self.word(repetitions) + [0]
    }

    /// Graphic control extension.
    mutating func control(disposal: Int = 0, delayCentiseconds: Int = 0, transparentIndex: Int? = nil) {
        let packed = UInt8((disposal & 7) << 2) | (transparentIndex == nil ? 0 : 1)
        bytes += [0x21, 0xF9, 4, packed] + Self.word(delayCentiseconds) + [UInt8(transparentIndex ?? 0), 0]
    }

    /// A comment extension (ignored by decoders).
    mutating func comment(_ text: String) {
        bytes += [0x21, 0xFE, UInt8(text.utf8.count)] + Array(text.utf8) + [0]
    }

    /// An image descriptor, optional local table and LZW data for `indices` (row-major, top to bottom; written in
    /// interlace order when `interlaced`).
    mutating func image(left: Int = 0, top: Int = 0, width: Int, height: Int, indices: [UInt8],
                        localPalette: Palette? = nil, interlaced: Bool = false, codeSize: Int? = nil) {
        precondition(indices.count == width * height)
        bytes.append(0x2C)
        bytes += Self.word(left) + Self.word(top) + Self.word(width) + Self.word(height)
        var packed: UInt8 = interlaced ? 0x40 : 0
        var bits = 8
        if let palette = localPalette {
            bits = Self.tableBits(palette.count)
            packed |= 0x80 | UInt8(bits - 1)
        }
        bytes.append(packed)
        if let palette = localPalette { bytes += Self.table(palette, bits: bits) }
        var ordered: [UInt8] = []
        if interlaced {
            for (start, step) in [(0, 8), (4, 8), (2, 4), (1, 2)] {
                for y in stride(from: start, to: height, by: step) { ordered += indices[(y * width)..<((y + 1) * width)] }
            }
        } else {
            ordered = indices
        }
        let minimum = codeSize ?? max(2, localPalette == nil ? 8 : bits)
        bytes.append(UInt8(minimum))
        bytes += Self.subBlocks(Self.lzwLiterals(ordered, minimumCodeSize: minimum))
    }

    mutating func trailer() { bytes.append(0x3B) }

    /// Raw bytes, for malformed files.
    mutating func raw(_ extra: [UInt8]) { bytes += extra }

    // MARK: - Encoding pieces

    static func word(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8((value >> 8) & 0xFF)] }

    static func tableBits(_ count: Int) -> Int {
        var bits = 1
        while (1 << bits) < count { bits += 1 }
        return bits
    }

    static func table(_ palette: Palette, bits: Int) -> [UInt8] {
        var out: [UInt8] = []
        for i in 0..<(1 << bits) {
            let c = i < palette.count ? palette[i] : (0, 0, 0)
            out += [c.0, c.1, c.2]
        }
        return out
    }

    /// Literal codes of width minimumCodeSize + 1, a clear code before every run of (2^size - 3) literals, then EOI.
    static func lzwLiterals(_ values: [UInt8], minimumCodeSize: Int) -> [UInt8] {
        let clear = 1 << minimumCodeSize, end = clear + 1, width = minimumCodeSize + 1
        let run = max(1, (1 << minimumCodeSize) - 3)
        var out: [UInt8] = []
        var accumulator = 0, bitCount = 0
        func emit(_ code: Int) {
            accumulator |= code << bitCount
            bitCount += width
            while bitCount >= 8 {
                out.append(UInt8(accumulator & 0xFF))
                accumulator >>= 8
                bitCount -= 8
            }
        }
        for (i, value) in values.enumerated() {
            if i % run == 0 { emit(clear) }
            emit(Int(value))
        }
        emit(end)
        if bitCount > 0 { out.append(UInt8(accumulator & 0xFF)) }
        return out
    }

    /// Data split into sub-blocks of at most 255 bytes, ended by a zero-length block.
    static func subBlocks(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var index = 0
        while index < data.count {
            let n = min(255, data.count - index)
            out.append(UInt8(n))
            out += data[index..<(index + n)]
            index += n
        }
        out.append(0)
        return out
    }
}
