import Synchronization
extension ImageTransformers {
    /// High-quality bitmap resampling in premultiplied alpha (no dark fringes), for thumbnail sizes of raster formats.
    ///
    /// Large reductions first average k x k blocks (exact area average, cheap), then a Lanczos-3 pass does the
    /// remaining factor of at most 2 and any sub-pixel placement (aspect-fill crops). Memory stays at one
    /// float row per source row of the reduced image times the output width.
    public enum Resize {
        /// Most threads one resample uses (0 = every core, the default). A server decoding many images at once may
        /// prefer 1; the pixels are the same whatever the count.
        public static var maximumThreads: Int {
            get { threadLimit.load(ordering: .relaxed) }
            set { threadLimit.store(max(0, newValue), ordering: .relaxed) }
        }
        private static let threadLimit = Atomic<Int>(0)

        static var threads: Int {
            let limit = maximumThreads
            return limit > 0 ? min(limit, LinuxSystem.processorCount) : LinuxSystem.processorCount
        }

        /// Resamples to `size` with `mode` (as `DecodeOptions` would).
        public static func resample(_ image: Image, to size: PixelSize, mode: ScaleMode = .fit, allowUpscale: Bool = false) throws -> Image {
            try resample(image, to: Placement(sourceWidth: image.width, sourceHeight: image.height, request: size,
                                              mode: mode, allowUpscale: allowUpscale))
        }

        /// Covers `box` keeping the aspect ratio and keeps the part `gravity` names of the overflow.
        public static func cover(_ image: Image, box: PixelSize, gravity: Gravity, allowUpscale: Bool) throws -> Image {
            try resample(image, to: Placement(sourceWidth: image.width, sourceHeight: image.height, request: box,
                                              mode: .aspectFill, allowUpscale: allowUpscale)
                .placed(by: gravity, sourceWidth: image.width, sourceHeight: image.height))
        }

        /// The bytes a resample of `image` to `placement` allocates: the float rows between the passes and the output.
        /// The finishing step checks them against the request's memory budget before resampling.
        static func workingBytes(_ image: Image, to placement: Placement) -> Int {
            let blockY = max(1, Int((1.0 / placement.scaleY / 2).rounded(.down)))
            let reducedRows = (image.height + blockY - 1) / blockY
            let rows = min(reducedRows, placement.outputHeight * 6 + 6)  // Lanczos-3 touches at most 6 rows per output row
            let columns = rows.multipliedReportingOverflow(by: placement.outputWidth * 16)
            let output = (placement.outputWidth * image.pixelFormat.bytesPerPixel).multipliedReportingOverflow(by: placement.outputHeight)
            if columns.overflow || output.overflow { return Int.max }
            return columns.partialValue.addingReportingOverflow(output.partialValue).overflow
                ? Int.max : columns.partialValue + output.partialValue
        }

        static func resample(_ image: Image, to placement: Placement) throws -> Image {
            let blockX = max(1, Int((1.0 / placement.scaleX / 2).rounded(.down)))
            let blockY = max(1, Int((1.0 / placement.scaleY / 2).rounded(.down)))
            let source = PremultipliedRows(image: image, blockX: blockX, blockY: blockY)
            let horizontal = ResamplingKernel(sourceCount: source.width, outputCount: placement.outputWidth,
                                              scale: placement.scaleX * Double(blockX), offset: placement.offsetX)
            let vertical = ResamplingKernel(sourceCount: source.height, outputCount: placement.outputHeight,
                                            scale: placement.scaleY * Double(blockY), offset: placement.offsetY)
            let outW = placement.outputWidth, outH = placement.outputHeight
            // Only the source rows the vertical kernel touches are filtered horizontally.
            let firstRow = vertical.starts.first ?? 0
            let lastRow = zip(vertical.starts, vertical.weights).map { $0 + $1.count - 1 }.max() ?? 0
            var columns = [Float](repeating: 0, count: (lastRow - firstRow + 1) * outW * 4)
            // Both passes split their rows into bands over the cores; each band writes only its own rows, so the
            // result is the same whatever the number of bands.
            let horizontalBands = Bands(count: lastRow - firstRow + 1, costPerItem: source.width * 4 + outW * horizontal.maxTaps,
                                        cores: threads)
            columns.withUnsafeMutableBufferPointer { columns in
                let columnsBase = columns.baseAddress!
                horizontalBands.run { range in
                    var row = [Float](repeating: 0, count: source.width * 4)
                    row.withUnsafeMutableBufferPointer { row in
                        for y in (firstRow + range.lowerBound)..<(firstRow + range.upperBound) {
                            source.load(row: y, into: row.baseAddress!)
                            filterRow(UnsafeRawPointer(row.baseAddress!), into: columnsBase + (y - firstRow) * outW * 4,
                                      kernel: horizontal, count: outW)
                        }
                    }
                }
            }
            let output = try Image(width: outW, height: outH, pixelFormat: image.pixelFormat,
                                   alphaMode: image.alphaMode == .none ? .none : image.alphaMode)
            let maxValue = Float(image.pixelFormat.maxValue)
            let keepPremultiplied = image.alphaMode == .premultiplied
            let verticalBands = Bands(count: outH, costPerItem: outW * 4 * vertical.maxTaps, cores: threads)
            columns.withUnsafeBufferPointer { columns in
                let columnsBase = columns.baseAddress!
                output.withUnsafeMutableRows { pixels in
                    verticalBands.run { range in
                        var accumulator = [Float](repeating: 0, count: outW * 4)
                        accumulator.withUnsafeMutableBufferPointer { acc in
                            for y in range {
                                acc.update(repeating: 0)
                                let start = vertical.starts[y]
                                for (k, w) in vertical.weights[y].enumerated() {
                                    let src = columnsBase + (start + k - firstRow) * outW * 4
                                    for i in 0..<(outW * 4) { acc[i] += src[i] * w }
                                }
                                let rowStart = pixels + y * output.stride
                                for x in 0..<outW {
                                    let a = min(max(acc[x * 4 + 3], 0), maxValue)
                                    var channels = (acc[x * 4], acc[x * 4 + 1], acc[x * 4 + 2])
                                    // Ringing may push a premultiplied channel above alpha or below 0: clamp.
                                    channels.0 = min(max(channels.0, 0), a)
                                    channels.1 = min(max(channels.1, 0), a)
                                    channels.2 = min(max(channels.2, 0), a)
                                    if !keepPremultiplied && a > 0 {
                                        let k = maxValue / a
                                        channels = (channels.0 * k, channels.1 * k, channels.2 * k)
                                    }
                                    store(rowStart, x, output.pixelFormat, channels.0, channels.1, channels.2, a)
                                }
                            }
                        }
                    }
                }
            }
            // Resampling mixes values within one colour space: the result is in the source's.
            return output.with(color: image.color)
        }

        /// One row of the horizontal pass: `count` output pixels, each the weighted sum of its taps of `row`
        /// (premultiplied RGBA floats).
        ///
        /// Why four outputs at once: one output's sum is a chain of dependent adds, so a loop over one output at a
        /// time waits on the adder's latency at every tap. Four outputs with the same number of taps (all but a few
        /// at the edges) are four independent chains the core overlaps. Each output still adds its own products in
        /// tap order from zero, as the one-at-a-time loop does, so every float is the same.
        @inline(__always)
        static func filterRow(_ row: UnsafeRawPointer, into target: UnsafeMutablePointer<Float>, kernel: ResamplingKernel, count: Int) {
            let out = UnsafeMutableRawPointer(target)
            kernel.weights.withUnsafeBufferPointer { weights in
                kernel.starts.withUnsafeBufferPointer { starts in
                    var o = 0
                    while o + 4 <= count {
                        let taps = weights[o].count
                        guard weights[o + 1].count == taps, weights[o + 2].count == taps, weights[o + 3].count == taps else {
                            filterOne(row, out, weights[o], starts[o], o)
                            o += 1
                            continue
                        }
                        var p0 = row + starts[o] * 16, p1 = row + starts[o + 1] * 16
                        var p2 = row + starts[o + 2] * 16, p3 = row + starts[o + 3] * 16
                        var s0 = SIMD4<Float>(), s1 = SIMD4<Float>(), s2 = SIMD4<Float>(), s3 = SIMD4<Float>()
                        weights[o].withUnsafeBufferPointer { w0 in
                        weights[o + 1].withUnsafeBufferPointer { w1 in
                        weights[o + 2].withUnsafeBufferPointer { w2 in
                        weights[o + 3].withUnsafeBufferPointer { w3 in
                            for k in 0..<taps {
                                s0 += p0.loadUnaligned(as: SIMD4<Float>.self) * w0[k]
                                s1 += p1.loadUnaligned(as: SIMD4<Float>.self) * w1[k]
                                s2 += p2.loadUnaligned(as: SIMD4<Float>.self) * w2[k]
                                s3 += p3.loadUnaligned(as: SIMD4<Float>.self) * w3[k]
                                p0 += 16; p1 += 16; p2 += 16; p3 += 16
                            }
                        }}}}
                        out.storeBytes(of: s0, toByteOffset: o * 16, as: SIMD4<Float>.self)
                        out.storeBytes(of: s1, toByteOffset: (o + 1) * 16, as: SIMD4<Float>.self)
                        out.storeBytes(of: s2, toByteOffset: (o + 2) * 16, as: SIMD4<Float>.self)
                        out.storeBytes(of: s3, toByteOffset: (o + 3) * 16, as: SIMD4<Float>.self)
                        o += 4
                    }
                    while o < count {
                        filterOne(row, out, weights[o], starts[o], o)
                        o += 1
                    }
                }
            }
        }

        @inline(__always)
        private static func filterOne(_ row: UnsafeRawPointer, _ out: UnsafeMutableRawPointer, _ taps: [Float], _ start: Int, _ o: Int) {
            var sum = SIMD4<Float>()
            var p = row + start * 16
            taps.withUnsafeBufferPointer { taps in
                for w in taps {
                    sum += p.loadUnaligned(as: SIMD4<Float>.self) * w
                    p += 16
                }
            }
            out.storeBytes(of: sum, toByteOffset: o * 16, as: SIMD4<Float>.self)
        }

        @inline(__always)
        private static func store(_ row: UnsafeMutablePointer<UInt8>, _ x: Int, _ format: PixelFormat,
                                  _ r: Float, _ g: Float, _ b: Float, _ a: Float) {
            switch format {
            case .rgba8:
                let p = row + x * 4
                p[0] = UInt8(min(255, r + 0.5)); p[1] = UInt8(min(255, g + 0.5))
                p[2] = UInt8(min(255, b + 0.5)); p[3] = UInt8(min(255, a + 0.5))
            case .rgba16:
                let p = UnsafeMutableRawPointer(row + x * 8).assumingMemoryBound(to: UInt16.self)
                p[0] = UInt16(min(65535, r + 0.5)); p[1] = UInt16(min(65535, g + 0.5))
                p[2] = UInt16(min(65535, b + 0.5)); p[3] = UInt16(min(65535, a + 0.5))
            }
        }
    }
}

/// Rows of an image as premultiplied floats (in the image's own 0...max range), optionally averaged over
/// blockX x blockY blocks first.
struct PremultipliedRows {
    let image: Image
    let blockX: Int
    let blockY: Int
    let width: Int
    let height: Int

    init(image: Image, blockX: Int, blockY: Int) {
        self.image = image
        self.blockX = max(1, min(blockX, image.width))
        self.blockY = max(1, min(blockY, image.height))
        width = max(1, image.width / self.blockX)
        height = max(1, image.height / self.blockY)
    }

    /// Fills `target` with `width` premultiplied RGBA floats for reduced row `y`.
    func load(row y: Int, into target: UnsafeMutablePointer<Float>) {
        if image.pixelFormat == .rgba8, blockX == 1, blockY == 1 {
            loadUnreduced8(row: y, into: target)
            return
        }
        target.update(repeating: 0, count: width * 4)
        let premultiply = image.alphaMode == .straight
        let maxValue = Float(image.pixelFormat.maxValue)
        let firstSourceRow = y * blockY
        // The last block absorbs the remainder rows/columns so no source pixel is dropped.
        let rowCount = y == height - 1 ? image.height - firstSourceRow : blockY
        image.withUnsafeRows { pixels in
            Self.alphaScale8.withUnsafeBufferPointer { scale8 in
                for sy in firstSourceRow..<(firstSourceRow + rowCount) {
                    let row = pixels + sy * image.stride
                    for x in 0..<width {
                        let firstColumn = x * blockX
                        let columnCount = x == width - 1 ? image.width - firstColumn : blockX
                        var r: Float = 0, g: Float = 0, b: Float = 0, a: Float = 0
                        for sx in firstColumn..<(firstColumn + columnCount) {
                            var pr: Float, pg: Float, pb: Float, pa: Float
                            // alpha / max: from the table for 8 bits (the same quotient, without a divide per pixel).
                            var k: Float
                            switch image.pixelFormat {
                            case .rgba8:
                                let p = row + sx * 4
                                pr = Float(p[0]); pg = Float(p[1]); pb = Float(p[2]); pa = Float(p[3])
                                k = scale8[Int(p[3])]
                            case .rgba16:
                                let p = UnsafeRawPointer(row + sx * 8).assumingMemoryBound(to: UInt16.self)
                                pr = Float(p[0]); pg = Float(p[1]); pb = Float(p[2]); pa = Float(p[3])
                                k = pa / maxValue
                            }
                            if image.alphaMode == .none { pa = maxValue }
                            if premultiply {
                                pr *= k; pg *= k; pb *= k
                            }
                            r += pr; g += pg; b += pb; a += pa
                        }
                        let t = target + x * 4
                        t[0] += r; t[1] += g; t[2] += b; t[3] += a
                    }
                }
            }
            normalize(target, rowCount: rowCount)
        }
    }

    /// `load` of an 8-bit row that no block averages (reductions of less than 4x, the common thumbnail of a
    /// camera-sized or smaller source): one conversion per channel and no sums. Why: the general loop spent more
    /// time here than both filter passes together, on a divide per pixel (alpha / 255, now from `alphaScale8`)
    /// and on accumulating and normalising blocks of one pixel. The floats are the general loop's bit for bit:
    /// its sums start from zero and divide by one, which changes no (non-negative) value.
    private func loadUnreduced8(row y: Int, into target: UnsafeMutablePointer<Float>) {
        let premultiply = image.alphaMode == .straight
        let opaque = image.alphaMode == .none
        image.withUnsafeRows { pixels in
            let row = pixels + y * image.stride
            Self.alphaScale8.withUnsafeBufferPointer { scale in
                for x in 0..<width {
                    let p = row + x * 4, t = target + x * 4
                    let k = premultiply ? scale[Int(p[3])] : 1
                    t[0] = Float(p[0]) * k; t[1] = Float(p[1]) * k; t[2] = Float(p[2]) * k
                    t[3] = opaque ? 255 : Float(p[3])
                }
            }
        }
    }

    /// Divides each output by the number of source pixels it averaged (the last block absorbs the remainder).
    private func normalize(_ target: UnsafeMutablePointer<Float>, rowCount: Int) {
        for x in 0..<width {
            let columnCount = x == width - 1 ? image.width - x * blockX : blockX
            let n = Float(rowCount * columnCount)
            let t = target + x * 4
            t[0] /= n; t[1] /= n; t[2] /= n; t[3] /= n
        }
    }

    /// alpha / 255 for every 8-bit alpha: the factor the general loop computes per pixel, computed once.
    private static let alphaScale8: [Float] = (0...255).map { Float($0) / 255 }
}
