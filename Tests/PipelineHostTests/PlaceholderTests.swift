import Foundation
import PipelineHost
import Testing
import TestSupport

/// Placeholders checked against the reference encoders on the same pixels, and by what they must mean.
@Suite struct PlaceholderTests {
    /// Deterministic test pictures: smooth gradients with noise (so no value sits on a rounding tie for long),
    /// some with an alpha ramp and fully transparent pixels whose stored colour is junk.
    static func picture(width: Int, height: Int, seed: UInt64, alpha: Bool) -> [UInt8] {
        var random = SplitMix64(seed: seed)
        var bytes: [UInt8] = []
        for y in 0..<height {
            for x in 0..<width {
                let noise = Int(random.next() % 24)
                bytes.append(UInt8((x * 255 / max(1, width - 1) + noise) % 256))
                bytes.append(UInt8((y * 200 / max(1, height - 1) + noise / 2 + 30) % 256))
                bytes.append(UInt8(((x + y) * 97 + noise * 3) % 256))
                bytes.append(alpha ? (x < width / 4 ? 0 : UInt8(min(255, 60 + x * 255 / max(1, width)))) : 255)
            }
        }
        return bytes
    }

    static var peerPython: String {
        (ProcessInfo.processInfo.environment["IMAGEPIPE_TEST_TOOLS"] ?? TestPaths.repositoryRoot + "/.build/test-tools") + "/bin/python3"
    }

    /// (blurHash, thumbHash) from the reference encoders (Tests/Peers/placeholder_peers.py).
    static func reference(_ rgba: [UInt8], width: Int, height: Int, componentsX: Int, componentsY: Int) throws -> (String, String) {
        let folder = try TestPaths.temporaryDirectory("placeholders")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let file = try TestFiles.write(rgba, to: folder + "/pixels.rgba")
        let result = try CommandLine.run(peerPython, [TestPaths.repositoryRoot + "/Tests/Peers/placeholder_peers.py", file,
                                                     String(width), String(height), String(componentsX), String(componentsY)])
        guard result.status == 0 else {
            if result.stderr.contains("ModuleNotFoundError") {
                try Skip.because("the reference encoders (blurhash-python, thumbhash-python) are not installed (scripts/bootstrap installs them)", bootstrapProvides: true)
            }
            throw TestSupportError("placeholder_peers.py failed: \(result.stderr)")
        }
        let lines = result.stdout.split(separator: "\n").map(String.init)
        try #require(lines.count == 2, "peer printed: \(result.stdout)")
        return (lines[0], lines[1])
    }

    struct Case: Sendable, CustomTestStringConvertible {
        let width: Int, height: Int, alpha: Bool, componentsX: Int, componentsY: Int
        var testDescription: String { "\(width)x\(height)\(alpha ? " alpha" : "") bh \(componentsX)x\(componentsY)" }
    }

    @Test("BlurHash and ThumbHash equal the reference encoders' on the same pixels", arguments: [
        Case(width: 100, height: 75, alpha: false, componentsX: 4, componentsY: 3),
        Case(width: 64, height: 100, alpha: false, componentsX: 9, componentsY: 9),
        Case(width: 100, height: 100, alpha: true, componentsX: 4, componentsY: 3),
        Case(width: 37, height: 23, alpha: true, componentsX: 1, componentsY: 1),
        Case(width: 3, height: 90, alpha: false, componentsX: 5, componentsY: 2),
        Case(width: 1, height: 1, alpha: false, componentsX: 4, componentsY: 3),
    ])
    func hashesEqualTheReference(_ c: Case) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.peerPython) else {
            try Skip.because("\(Self.peerPython) is missing (scripts/bootstrap makes it)", bootstrapProvides: true)
        }
        let rgba = Self.picture(width: c.width, height: c.height, seed: UInt64(c.width * 1000 + c.height), alpha: c.alpha)
        let sample = try PlaceholderSample(width: c.width, height: c.height, rgba: rgba)
        let (blur, thumb) = try Self.reference(rgba, width: c.width, height: c.height, componentsX: c.componentsX, componentsY: c.componentsY)
        #expect(try BlurHash.encode(sample, componentsX: c.componentsX, componentsY: c.componentsY) == blur)
        #expect(try ThumbHash.encode(sample) == thumb)
    }

    @Test("the average colour weighs pixels by alpha and its BlurHash DC term agrees with it")
    func averageColour() throws {
        // Left half opaque red, right half opaque blue, plus a transparent green column that must not count.
        var rgba: [UInt8] = []
        for _ in 0..<10 {
            for x in 0..<21 {
                rgba += x == 20 ? [0, 255, 0, 0] : x < 10 ? [255, 0, 0, 255] : [0, 0, 255, 255]
            }
        }
        let sample = try PlaceholderSample(width: 21, height: 10, rgba: rgba)
        let average = ColorSummary.average(of: sample)
        #expect(ColorSummary.hex(average) == "#800080")
        #expect(average.alpha == 243) // 200 of 210 pixels opaque
        let placeholders = try Placeholders(sample)
        #expect(placeholders.averageColor == "#800080")
        // BlurHash averages in linear light over white: red+blue (+ a white column) is lighter than #800080.
        let dc = try #require(BlurHash.averageColor(of: placeholders.blurHash))
        #expect(dc.red > 0x80 && dc.blue > 0x80 && dc.green < 0x40, "\(dc)")
    }

    @Test("dominant colours are the image's own colours, most common first, with shares that add up to 1")
    func dominantColours() throws {
        var rgba: [UInt8] = []
        let colours: [[UInt8]] = [[200, 30, 30], [20, 160, 60], [30, 40, 210]]
        for y in 0..<60 {
            for x in 0..<50 {
                // 50 % red, 30 % green, 20 % blue, each with a little noise.
                let band = y < 30 ? 0 : y < 48 ? 1 : 2
                let jitter = UInt8((x * 7 + y * 3) % 5)
                rgba += colours[band].map { $0 + jitter } + [255]
            }
        }
        let sample = try PlaceholderSample(width: 50, height: 60, rgba: rgba)
        let found = ColorSummary.dominant(in: sample, count: 3)
        #expect(found.count == 3)
        #expect(abs(found.map(\.share).reduce(0, +) - 1) < 1e-9)
        #expect(found.map { (($0.share * 10).rounded()) } == [5, 3, 2])
        for (dominant, colour) in zip(found, colours) {
            let parsed = try #require(RGBAColor(parsing: dominant.color))
            #expect(abs(Int(parsed.red) - Int(colour[0]) - 2) <= 2 && abs(Int(parsed.green) - Int(colour[1]) - 2) <= 2
                    && abs(Int(parsed.blue) - Int(colour[2]) - 2) <= 2, "\(dominant.color) for \(colour)")
        }
        // A one-colour image has one dominant colour, whatever count is asked for.
        let flat = try PlaceholderSample(width: 4, height: 4, rgba: [UInt8]((0..<16).flatMap { _ in [9, 99, 199, 255] as [UInt8] }))
        #expect(ColorSummary.dominant(in: flat, count: 5) == [ColorSummary.Dominant(color: "#0963c7", share: 1)])
    }

    @Test("the difference hash is close for a rescaled copy and far for another picture")
    func differenceHash() throws {
        let large = try Image(width: 100, height: 80, bytes: Self.picture(width: 100, height: 80, seed: 7, alpha: false))
        let small = try ImageTransformers.ResizeTo(size: PixelSize(width: 60, height: 48), mode: .fill).transform(large)
        let other = try Image(width: 100, height: 80, bytes: Self.picture(width: 100, height: 80, seed: 7, alpha: false).reversed().map { $0 })
        let a = DifferenceHash.hash(of: try PlaceholderSample(large))
        let b = DifferenceHash.hash(of: try PlaceholderSample(small))
        let c = DifferenceHash.hash(of: try PlaceholderSample(other.with(alphaMode: AlphaMode.none)))
        #expect(DifferenceHash.distance(a, b) <= 6, "\(DifferenceHash.hex(a)) vs \(DifferenceHash.hex(b))")
        #expect(DifferenceHash.distance(a, c) >= 20, "\(DifferenceHash.hex(a)) vs \(DifferenceHash.hex(c))")
        #expect(DifferenceHash.hex(a).count == 16)
    }

    @Test("a sample is at most 100 px, straight alpha, whatever the image's format")
    func sampleFromImages() throws {
        let big = try Image(width: 400, height: 100, pixelFormat: .rgba16, alphaMode: .premultiplied,
                            bytes: [UInt8]((0..<(400 * 100)).flatMap { _ in [0x00, 0x40, 0x00, 0x20, 0x00, 0x00, 0x00, 0x80] as [UInt8] }))
        let sample = try PlaceholderSample(big)
        #expect(sample.width == 100 && sample.height == 25)
        // Premultiplied 16-bit (0x4000, 0x2000, 0, 0x8000) is straight (0x80, 0x40, 0, 0x80) in 8 bits.
        #expect(Array(sample.rgba.prefix(4)) == [128, 64, 0, 128])
        #expect(throws: PipelineError.self) { try ThumbHash.encode(rgba: [0, 0, 0, 255], width: 101, height: 1) }
        #expect(throws: PipelineError.self) { try BlurHash.encode(rgb: [0, 0, 0], width: 1, height: 1, componentsX: 10, componentsY: 1) }
    }
}
