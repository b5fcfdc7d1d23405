/// One frame reduced to palette indices for the encoder.
///
/// - Pixels with alpha < 128 become one transparent index (GIF transparency is on or off).
/// - When the opaque pixels use at most 256 colours (255 with a transparent index), the palette is exact.
/// - Otherwise a median cut (Heckbert 1982) over a 5-5-5-bit histogram picks the colours: the box with the widest
///   channel range is split at its pixel-count median until the palette is full; each entry is the mean of the
///   original 8-bit colours it stands for; pixels map through their histogram cell (no dithering).
///   giflib 5.2.1 still exports `GifQuantizeBuffer` (the same algorithm), but it keeps the sort axis in a static
///   variable, so two threads encoding at once would race; this is the plugin's own, thread-safe version.
struct GIFPalette {
    /// Palette entries as packed 0x00BBGGRR, at most 256 (the transparent entry included).
    var colors: [UInt32] = []
    var transparentIndex: Int?
    var indices: [UInt8]
    var isExact = true

    /// `rgba` is width * height straight RGBA8 pixels, tightly packed.
    init(rgba: UnsafeBufferPointer<UInt8>, pixelCount: Int) {
        indices = [UInt8](repeating: 0, count: pixelCount)
        var hasTransparent = false
        for i in 0..<pixelCount where rgba[i * 4 + 3] < 128 {
            hasTransparent = true
            break
        }
        let capacity = hasTransparent ? 255 : 256
        if !buildExact(rgba, pixelCount, capacity: capacity) {
            isExact = false
            buildMedianCut(rgba, pixelCount, capacity: capacity)
        }
        if hasTransparent {
            transparentIndex = colors.count
            colors.append(0)
            let index = UInt8(colors.count - 1)
            for i in 0..<pixelCount where rgba[i * 4 + 3] < 128 { indices[i] = index }
        }
    }

    private static func packed(_ rgba: UnsafeBufferPointer<UInt8>, _ i: Int) -> UInt32 {
        UInt32(rgba[i * 4]) | UInt32(rgba[i * 4 + 1]) << 8 | UInt32(rgba[i * 4 + 2]) << 16
    }

    /// Exact palette when the opaque colours fit; false (palette untouched) when there are more.
    private mutating func buildExact(_ rgba: UnsafeBufferPointer<UInt8>, _ count: Int, capacity: Int) -> Bool {
        var lookup: [UInt32: UInt8] = [:]
        var found: [UInt32] = []
        for i in 0..<count where rgba[i * 4 + 3] >= 128 {
            let color = Self.packed(rgba, i)
            if let index = lookup[color] {
                indices[i] = index
                continue
            }
            if found.count == capacity { return false }
            lookup[color] = UInt8(found.count)
            indices[i] = UInt8(found.count)
            found.append(color)
        }
        colors = found
        return true
    }

    /// A box of histogram cells (15-bit 5-5-5 keys) with its pixel count and its widest axis.
    private struct Box {
        var cells: [Int]
        var pixels: Int
        var axis = 0
        var range = 0

        init(cells: [Int], histogram: [Int]) {
            self.cells = cells
            pixels = cells.reduce(0) { $0 + histogram[$1] }
            for axis in 0..<3 {
                var low = 31, high = 0
                for cell in cells {
                    let value = GIFPalette.channel(cell, axis)
                    low = min(low, value)
                    high = max(high, value)
                }
                if high - low > range || axis == 0 {
                    range = high - low
                    self.axis = axis
                }
            }
        }
    }

    fileprivate static func channel(_ cell: Int, _ axis: Int) -> Int { (cell >> (10 - 5 * axis)) & 31 }

    private mutating func buildMedianCut(_ rgba: UnsafeBufferPointer<UInt8>, _ count: Int, capacity: Int) {
        var histogram = [Int](repeating: 0, count: 32768)
        var sums = [UInt64](repeating: 0, count: 32768 * 3)
        var cellOf = [UInt16](repeating: 0, count: count)
        for i in 0..<count where rgba[i * 4 + 3] >= 128 {
            let r = Int(rgba[i * 4]), g = Int(rgba[i * 4 + 1]), b = Int(rgba[i * 4 + 2])
            let cell = (r >> 3) << 10 | (g >> 3) << 5 | (b >> 3)
            cellOf[i] = UInt16(cell)
            histogram[cell] += 1
            sums[cell * 3] += UInt64(r)
            sums[cell * 3 + 1] += UInt64(g)
            sums[cell * 3 + 2] += UInt64(b)
        }
        let used = (0..<32768).filter { histogram[$0] > 0 }
        var boxes = [Box(cells: used, histogram: histogram)]
        while boxes.count < capacity {
            // The splittable box with the widest range on any axis.
            var best: (box: Int, axis: Int, range: Int)?
            for (index, box) in boxes.enumerated() where box.cells.count > 1 {
                if best == nil || box.range > best!.range { best = (index, box.axis, box.range) }
            }
            guard let split = best else { break }
            let axis = split.axis
            let sorted = boxes[split.box].cells.sorted {
                let a = Self.channel($0, axis), b = Self.channel($1, axis)
                return a != b ? a < b : $0 < $1
            }
            // Cut where half of the box's pixels lie below, keeping at least one cell on each side.
            let half = boxes[split.box].pixels / 2
            var running = 0, cut = 1
            for (position, cell) in sorted.enumerated().dropLast() {
                running += histogram[cell]
                cut = position + 1
                if running >= half { break }
            }
            let lower = Array(sorted[..<cut]), upper = Array(sorted[cut...])
            boxes[split.box] = Box(cells: lower, histogram: histogram)
            boxes.append(Box(cells: upper, histogram: histogram))
        }
        var paletteOfCell = [UInt8](repeating: 0, count: 32768)
        colors = []
        for (index, box) in boxes.enumerated() {
            var r: UInt64 = 0, g: UInt64 = 0, b: UInt64 = 0
            for cell in box.cells {
                r += sums[cell * 3]
                g += sums[cell * 3 + 1]
                b += sums[cell * 3 + 2]
                paletteOfCell[cell] = UInt8(index)
            }
            let n = UInt64(max(box.pixels, 1))
            colors.append(UInt32((r + n / 2) / n) | UInt32((g + n / 2) / n) << 8 | UInt32((b + n / 2) / n) << 16)
        }
        for i in 0..<count where rgba[i * 4 + 3] >= 128 { indices[i] = paletteOfCell[Int(cellOf[i])] }
    }
}
