import Foundation
import PipelineHost
import Testing
import TestSupport

/// Still images against dwebp (the same libwebp, so the expected tolerance is 0) and against their sources.
@Suite("WebP still decoding")
struct WebPDecodeTests {
    static func expectMatchesDwebp(_ webp: String, in folder: String, alpha: AlphaMode,
                                   sourceLocation: SourceLocation = #_sourceLocation) throws -> Image {
        let bytes = try TestFiles.read(folder + "/" + webp)
        let image = try WebPTesting.coders().decode(data: bytes)
        let reference = try WebPTesting.dwebp(webp, in: folder)
        #expect((image.width, image.height) == (reference.width, reference.height), sourceLocation: sourceLocation)
        #expect(image.pixelFormat == .rgba8, sourceLocation: sourceLocation)
        #expect(image.alphaMode == alpha, sourceLocation: sourceLocation)
        #expect(image.durationMilliseconds == 0, sourceLocation: sourceLocation)
        let difference = WebPTesting.compare(image.bytes, reference.bytes, width: image.width)
        #expect(difference.maxChannel == 0, "\(webp) vs dwebp: \(difference)", sourceLocation: sourceLocation)
        return image
    }

    @Test("lossy: identical to dwebp")
    func lossy() throws {
        guard WebPTesting.hasTools else { try Skip.because(WebPTesting.missing, bootstrapProvides: true) }
        let folder = try WebPTesting.workspace()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try WebPTesting.run("cwebp -quiet -q 80 rose.png -o rose.webp && cwebp -quiet -q 60 -m 6 photo.png -o photo.webp", in: folder)
        _ = try Self.expectMatchesDwebp("rose.webp", in: folder, alpha: .none)
        _ = try Self.expectMatchesDwebp("photo.webp", in: folder, alpha: .none)
        let info = try WebPTesting.coders().probe(data: try TestFiles.read(folder + "/photo.webp"))
        #expect((info.width, info.height, info.frameCount, info.loopCount, info.hasAlpha) == (640, 480, 1, nil, false))
        #expect(info.details == "lossy")
        #expect(info.format == "webp")
        #expect(info.coderID == WebPTesting.coderID)
    }

    @Test("lossless: identical to dwebp and to the source PNG")
    func lossless() throws {
        guard WebPTesting.hasTools else { try Skip.because(WebPTesting.missing, bootstrapProvides: true) }
        let folder = try WebPTesting.workspace()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try WebPTesting.run("cwebp -quiet -lossless -exact rose.png -o rose.webp && cwebp -quiet -lossless -exact alpha.png -o alpha.webp", in: folder)
        let rose = try Self.expectMatchesDwebp("rose.webp", in: folder, alpha: .none)
        #expect(WebPTesting.compare(rose.bytes, try WebPTesting.png("rose.png", in: folder).bytes, width: 70).maxChannel == 0)
        let alpha = try Self.expectMatchesDwebp("alpha.webp", in: folder, alpha: .straight)
        #expect(WebPTesting.compare(alpha.bytes, try WebPTesting.png("alpha.png", in: folder).bytes, width: 96).maxChannel == 0)
        let info = try WebPTesting.coders().probe(data: try TestFiles.read(folder + "/alpha.webp"))
        #expect(info.details == "lossless, alpha")
        #expect(info.hasAlpha)
    }

    @Test("lossy with an alpha plane: identical to dwebp, straight alpha")
    func lossyAlpha() throws {
        guard WebPTesting.hasTools else { try Skip.because(WebPTesting.missing, bootstrapProvides: true) }
        let folder = try WebPTesting.workspace()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try WebPTesting.run("cwebp -quiet -q 75 -alpha_q 100 alpha.png -o alpha.webp", in: folder)
        let image = try Self.expectMatchesDwebp("alpha.webp", in: folder, alpha: .straight)
        // The alpha plane is lossless at alpha_q 100: compare it with the source's.
        let source = try WebPTesting.png("alpha.png", in: folder).bytes
        let alphas = stride(from: 3, to: source.count, by: 4).map { abs(Int(image.bytes[$0]) - Int(source[$0])) }
        #expect(alphas.max() == 0)
        #expect(try WebPTesting.coders().probe(data: try TestFiles.read(folder + "/alpha.webp")).details == "lossy, alpha")
    }

    @Test("metadata flags and the ICCP chunk are reported; a profile Little CMS cannot read leaves the pixels as stored")
    func metadata() throws {
        guard WebPTesting.hasTools else { try Skip.because(WebPTesting.missing, bootstrapProvides: true) }
        let folder = try WebPTesting.workspace()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try WebPTesting.run("cwebp -quiet rose.png -o rose.webp && printf 'not really an ICC profile' > fake.icc && "
                            + "webpmux -set icc fake.icc rose.webp -o icc.webp", in: folder)
        let info = try WebPTesting.coders().probe(data: try TestFiles.read(folder + "/icc.webp"))
        #expect(info.details == "lossy, ICC profile")
        #expect(info.color?.iccProfile == Array("not really an ICC profile".utf8))
        _ = try Self.expectMatchesDwebp("icc.webp", in: folder, alpha: .none)
    }

    @Test("a frame index other than 0 of a still image is .notFound, as is a page other than 0")
    func notFound() throws {
        guard WebPTesting.hasTools else { try Skip.because(WebPTesting.missing, bootstrapProvides: true) }
        let folder = try WebPTesting.workspace()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try WebPTesting.run("cwebp -quiet rose.png -o rose.webp", in: folder)
        let bytes = try TestFiles.read(folder + "/rose.webp")
        let coders = try WebPTesting.coders()
        #expect(failureStatus { _ = try coders.decode(data: bytes, options: DecodeOptions(frameIndex: 1)) } == .notFound)
        #expect(failureStatus { _ = try coders.decode(data: bytes, options: DecodeOptions(pageIndex: 1)) } == .notFound)
        let frames = try coders.frames(data: bytes).readAll()
        #expect(frames.count == 1)
        #expect(frames.first?.durationMilliseconds == 0)
    }
}
