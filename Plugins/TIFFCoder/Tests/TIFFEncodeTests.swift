import Foundation
import PipelineHost
import Testing
import TestSupport

/// Writing TIFF: what the encoder writes is read back exactly by ImageMagick's reader (its own libtiff build) and by
/// this coder, in every compression, at 8 and 16 bits, with straight alpha, pages and an ICC profile.
@Suite("TIFF encoding")
struct TIFFEncodeTests {
    static func coders() throws -> CodersManager { try PluginSandbox.host(loading: ["libTIFFCoder.so"]).coders }

    /// A deterministic picture with every alpha level in its bottom half (the top half opaque when `alpha` is false).
    static func picture(width: Int = 61, height: Int = 37, sixteen: Bool = false, alpha: Bool = true, seed: UInt64 = 1) throws -> Image {
        var random = SplitMix64(seed: seed)
        var samples: [UInt16] = []
        for y in 0..<height {
            for x in 0..<width {
                let a: UInt16 = alpha && y >= height / 2 ? UInt16((x * 65535) / max(1, width - 1)) : 65535
                samples += [UInt16(truncatingIfNeeded: random.next()), UInt16(truncatingIfNeeded: random.next()),
                            UInt16(truncatingIfNeeded: random.next()), a]
            }
        }
        let bytes = sixteen ? samples.flatMap { withUnsafeBytes(of: $0) { Array($0) } } : samples.map { UInt8($0 >> 8) }
        return try Image(width: width, height: height, pixelFormat: sixteen ? .rgba16 : .rgba8, alphaMode: alpha ? .straight : .none, bytes: bytes)
    }

    /// The file read back by ImageMagick as RGBA samples (straight alpha), at `depth` bits.
    static func magick(_ bytes: [UInt8], depth: Int, folder: String, name: String) throws -> [UInt16] {
        let path = try TestFiles.write(bytes, to: folder + "/" + name + ".tif")
        return try MagickRGBA.read(path, depth: depth).samples
    }

    static func samples(_ image: Image) -> [UInt16] {
        image.pixelFormat == .rgba16
            ? image.bytes.withUnsafeBytes { Array($0.bindMemory(to: UInt16.self)) }
            : image.bytes.map(UInt16.init)
    }

    @Test("deflate, lzw and none: 8-bit RGBA and RGB read back exactly by ImageMagick and by this coder", arguments: ["deflate", "lzw", "none"])
    func compressions(_ compression: String) throws {
        _ = try Skip.unlessTool("convert")
        let coders = try Self.coders()
        let folder = try TestPaths.temporaryDirectory("tiff-encode")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for alpha in [true, false] {
            let source = try Self.picture(alpha: alpha)
            let encoded = try coders.encode(source, format: "tiff", options: EncodeOptions(settings: ["compression": compression]))
            let info = try coders.probe(data: encoded)
            #expect(info.hasAlpha == alpha && info.bitDepth == 8, "\(info.details)")
            let name = compression == "none" ? "uncompressed" : compression == "lzw" ? "LZW" : "Deflate"
            #expect(info.details.contains(name), "\(info.details)")
            #expect(try Self.magick(encoded, depth: 8, folder: folder, name: "\(compression)-\(alpha)") == Self.samples(source),
                    "\(compression), alpha \(alpha): ImageMagick reads other samples")
            if !alpha {
                #expect(try coders.decode(data: encoded).bytes == source.bytes, "\(compression): this coder reads other samples")
            }
        }
    }

    @Test("16-bit input writes 16-bit samples, exact through ImageMagick; 8-bit input asked for 16 bits is widened × 257")
    func sixteenBit() throws {
        _ = try Skip.unlessTool("convert")
        let coders = try Self.coders()
        let folder = try TestPaths.temporaryDirectory("tiff-encode-16")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let source = try Self.picture(sixteen: true)
        let encoded = try coders.encode(source, format: "tiff")
        #expect(try coders.probe(data: encoded).bitDepth == 16)
        #expect(try Self.magick(encoded, depth: 16, folder: folder, name: "sixteen") == Self.samples(source))
        let eight = try Self.picture(alpha: false)
        let widened = try coders.encode(eight, format: "tiff", options: EncodeOptions(bitDepth: 16))
        #expect(try coders.probe(data: widened).bitDepth == 16)
        #expect(try Self.magick(widened, depth: 16, folder: folder, name: "widened") == Self.samples(eight).map { $0 * 257 })
    }

    @Test("frames become pages, each with its own pixels; an ICC profile is embedded and read back")
    func pagesAndProfile() throws {
        let coders = try Self.coders()
        let frames = try (1...3).map { try Self.picture(alpha: false, seed: UInt64($0)) }
        let encoded = try coders.encode(frames: frames, format: "tiff")
        #expect(try coders.probe(data: encoded).pageCount == 3)
        for (index, frame) in frames.enumerated() {
            #expect(try coders.decode(data: encoded, options: DecodeOptions(pageIndex: index)).bytes == frame.bytes, "page \(index)")
        }
        let iccPath = "/usr/share/color/icc/ghostscript/a98.icc"
        guard FileManager.default.fileExists(atPath: iccPath) else {
            try Skip.because("\(iccPath) (ghostscript) is missing", bootstrapProvides: true)
        }
        let profile = try TestFiles.read(iccPath)
        let tagged = try coders.encode(frames[0].with(color: ColorDescription(iccProfile: profile)), format: "tiff")
        #expect(try coders.probe(data: tagged).color?.iccProfile == profile)
        #expect(try coders.decode(data: tagged, options: DecodeOptions(colorOutput: .keep)).bytes == frames[0].bytes)
    }

    @Test("a misspelt setting or an unknown compression is refused by name")
    func refusals() throws {
        let coders = try Self.coders()
        let source = try Self.picture()
        for (settings, text) in [(["compresion": "lzw"], "unknown encoder setting 'compresion'"), (["compression": "jpeg"], "compression=jpeg")] {
            do {
                _ = try coders.encode(source, format: "tiff", options: EncodeOptions(settings: settings))
                Issue.record("\(settings) was accepted")
            } catch let error as PipelineError {
                #expect(error.status == .unsupported && "\(error)".contains(text), "\(error)")
            }
        }
    }
}
