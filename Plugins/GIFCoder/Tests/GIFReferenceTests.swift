import Foundation
import PipelineHost
import Testing
import TestSupport

/// Decoded frames against ImageMagick's `-coalesce`, exactly (GIF colours are palette entries: no tolerance).
@Suite("GIF against ImageMagick and gifsicle")
struct GIFReferenceTests {
    /// Frames of `gif` from our frame reader, as packed RGBA8.
    static func ourFrames(_ gif: [UInt8]) throws -> [[UInt8]] {
        try GIFTesting.coders().frames(data: gif).readAll().map(\.bytes)
    }

    static func expectSameFrames(_ ours: [[UInt8]], _ theirs: [[UInt8]], width: Int, _ label: String,
                                 sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(ours.count == theirs.count, "\(label): \(ours.count) frames vs \(theirs.count)", sourceLocation: sourceLocation)
        for (i, (a, b)) in zip(ours, theirs).enumerated() {
            let difference = ReferenceTools.difference(a, b, width: width)
            #expect(difference == nil, "\(label) frame \(i): \(difference ?? "")", sourceLocation: sourceLocation)
        }
    }

    @Test("the hand-written disposal animation matches ImageMagick's coalesced frames")
    func handWritten() throws {
        guard ReferenceTools.hasImageMagick else { try Skip.because(ReferenceTools.missing, bootstrapProvides: true) }
        let gif = GIFDisposalTests.animation()
        let (folder, path) = try GIFTesting.temporaryFile(gif, name: "disposal.gif")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let theirs = try ReferenceTools.coalesce(path, in: folder, width: 6, height: 6)
        Self.expectSameFrames(try Self.ourFrames(gif), theirs, width: 6, "disposal.gif")
    }

    @Test("ImageMagick animations, re-optimised and interlaced by gifsicle, decode to ImageMagick's frames")
    func optimised() throws {
        guard ReferenceTools.hasImageMagick, ReferenceTools.hasGifsicle else { try Skip.because(ReferenceTools.missing, bootstrapProvides: true) }
        let folder = try TestPaths.temporaryDirectory("imagepipe-gif")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Four frames: noise, a gradient, a transparent circle (drawn over the gradient: disposal none), then a
        // half-transparent overlay after a background disposal, then a frame after a "previous" disposal.
        try ReferenceTools.run(
            "convert -size 64x48 -seed 4 -dispose None -delay 7 plasma:fractal -delay 12 gradient:red-blue "
                + "-dispose Background \\( -size 64x48 xc:none -fill green -draw 'circle 32,24 32,10' \\) "
                + "-dispose Previous \\( -size 64x48 xc:none -fill yellow -draw 'rectangle 5,5 30,20' \\) "
                + "-dispose None \\( -size 64x48 xc:none -fill blue -draw 'rectangle 40,30 60,44' \\) "
                + "-loop 0 source.gif", in: folder)
        let reference = try ReferenceTools.coalesce("source.gif", in: folder, width: 64, height: 48)
        #expect(reference.count == 5)
        let variants = [
            ("source.gif", ""),
            ("optimised.gif", "gifsicle -O3 source.gif -o optimised.gif"),
            ("interlaced.gif", "gifsicle -O2 --interlace source.gif -o interlaced.gif"),
            ("unoptimised.gif", "gifsicle --unoptimize source.gif -o unoptimised.gif"),
        ]
        for (name, command) in variants {
            if !command.isEmpty { try ReferenceTools.run(command, in: folder) }
            let gif = try TestFiles.read(folder + "/" + name)
            Self.expectSameFrames(try Self.ourFrames(gif), reference, width: 64, name)
            let info = try GIFTesting.coders().probe(data: gif)
            #expect(info.frameCount == 5, "\(name)")
            #expect(info.loopCount == 0, "\(name): loops forever")
        }
    }

    @Test("a still GIF decodes to ImageMagick's pixels and has duration 0")
    func still() throws {
        guard ReferenceTools.hasImageMagick else { try Skip.because(ReferenceTools.missing, bootstrapProvides: true) }
        let folder = try TestPaths.temporaryDirectory("imagepipe-gif")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try ReferenceTools.run("convert rose: -interlace GIF rose.gif", in: folder)
        let gif = try TestFiles.read(folder + "/rose.gif")
        let theirs = try ReferenceTools.coalesce("rose.gif", in: folder, width: 70, height: 46)
        let image = try GIFTesting.coders().decode(data: gif)
        #expect((image.width, image.height) == (70, 46))
        #expect(image.durationMilliseconds == 0)
        #expect(ReferenceTools.difference(image.bytes, theirs[0], width: 70) == nil)
        let info = try GIFTesting.coders().probe(data: gif)
        #expect(info.frameCount == 1)
        #expect(info.loopCount == nil)
        #expect(info.details.contains("interlaced"))
    }
}
