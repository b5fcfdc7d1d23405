import Foundation
import PipelineHost
import TestSupport
import Testing

/// Intrinsic sizes, rendering at a requested size (fit / fill / aspect-fill), crispness and limits.
@Suite struct SizingTests {
    /// Root attributes and the probe size rsvg-convert 2.54 gives them at 96 dpi (checked live below too).
    static let intrinsicCases: [(name: String, svg: [UInt8], width: Int, height: Int)] = [
        ("px", SVGTest.svg(width: "20", height: "30"), 20, 30),
        ("fractional px rounds up", SVGTest.svg(width: "20.2", height: "10.7"), 21, 11),
        ("cm and in", SVGTest.svg(width: "2cm", height: "1in", viewBox: "0 0 10 10"), 76, 96),
        ("pt", SVGTest.svg(width: "72pt", height: "36pt"), 96, 48),
        ("mm", SVGTest.svg(width: "25.4mm", height: "50.8mm"), 96, 192),
        ("em (12 px font)", SVGTest.svg(width: "10em", height: "5ex"), 120, 30),
        ("viewBox only", SVGTest.svg(viewBox: "0 0 100 200"), 100, 200),
        ("percent + viewBox", SVGTest.svg(width: "100%", height: "100%", viewBox: "0 0 480 360"), 480, 360),
        ("50% takes the viewBox size", SVGTest.svg(width: "50%", height: "50%", viewBox: "0 0 100 200"), 100, 200),
        ("width + percent height", SVGTest.svg(width: "200", height: "100%", viewBox: "0 0 100 50"), 200, 100),
        ("percent width + height", SVGTest.svg(width: "100%", height: "25", viewBox: "0 0 100 50"), 50, 25),
        ("no size: extent of the drawing", SVGTest.svg(#"<rect x="10" y="5" width="30.5" height="20"/>"#), 31, 20),
    ]

    @Test(arguments: intrinsicCases.map(\.name))
    func intrinsicSizeMatchesRsvgConvert(_ name: String) throws {
        let item = try #require(Self.intrinsicCases.first { $0.name == name })
        let info = try SVGTest.probe(item.svg)
        #expect((info.width, info.height) == (item.width, item.height))
        #expect(info.format == "svg" && info.frameCount == 1 && info.pageCount == 1 && info.hasAlpha && info.bitDepth == 8)
        #expect(info.coderID == SVGTest.coderID)
        let image = try SVGTest.decode(item.svg)
        #expect((image.width, image.height) == (item.width, item.height))
        if SVGTest.hasReferenceTools {
            let folder = try TestPaths.temporaryDirectory("svg-size")
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let reference = try SVGTest.reference(svgPath: try TestFiles.write(item.svg, to: folder + "/a.svg"))
            #expect((reference.width, reference.height) == (item.width, item.height), "rsvg-convert disagrees")
        }
    }

    @Test func probeDetailsDescribeTheRoot() throws {
        let info = try SVGTest.probe(SVGTest.svg(width: "100%", height: "100%", viewBox: "0 0 480 360"))
        #expect(info.details.contains("width=100% height=100% viewBox=0 0 480 360"))
        #expect(info.details.contains("size from viewBox"))
        let mm = try SVGTest.probe(SVGTest.svg(width: "206.5mm", height: "328mm"))
        #expect(mm.details.contains("width=206.5mm height=328mm viewBox=none"))
    }

    /// Policy where rsvg-convert gives up: nothing at all → 100x100 transparent; an explicit zero → error.
    @Test func emptyAndZeroSizedDocuments() throws {
        let empty = try SVGTest.decode(Array("<svg xmlns=\"http://www.w3.org/2000/svg\"/>".utf8))
        #expect((empty.width, empty.height) == (100, 100))
        #expect(empty.bytes.allSatisfy { $0 == 0 })
        #expect(try SVGTest.probe(Array("<svg xmlns=\"http://www.w3.org/2000/svg\"/>".utf8)).details.contains("default 100x100"))
        for zero in [SVGTest.svg(width: "0", height: "0", "<rect width='9' height='9'/>"), SVGTest.svg(width: "10", height: "0"),
                     SVGTest.svg(viewBox: "0 0 0 0", "<rect width='9' height='9'/>")] {
            #expect { try SVGTest.decode(zero) } throws: { $0.pluginStatus == .invalidData }
        }
    }

    /// A 100 x 50 document of four vertical stripes: red, green, blue, yellow, 25 units each.
    static let stripes = SVGTest.svg(width: "100", height: "50", viewBox: "0 0 100 50", """
        <rect x="0" width="25" height="50" fill="#f00"/><rect x="25" width="25" height="50" fill="#0f0"/>
        <rect x="50" width="25" height="50" fill="#00f"/><rect x="75" width="25" height="50" fill="#ff0"/>
        """)
    static let red = [255, 0, 0, 255], green = [0, 255, 0, 255], blue = [0, 0, 255, 255], yellow = [255, 255, 0, 255]

    @Test func fitKeepsTheAspectRatioInsideTheBox() throws {
        let image = try SVGTest.decode(Self.stripes, DecodeOptions(thumbnailSize: PixelSize(width: 64, height: 64), scaleMode: .fit))
        #expect((image.width, image.height) == (64, 32))
        #expect(image.rgba(8, 16) == Self.red && image.rgba(24, 16) == Self.green)
        #expect(image.rgba(40, 16) == Self.blue && image.rgba(56, 16) == Self.yellow)
        #expect(image.rgba(15, 0) == Self.red && image.rgba(16, 31) == Self.green)
    }

    @Test func fillStretchesToTheBox() throws {
        let image = try SVGTest.decode(Self.stripes, DecodeOptions(thumbnailSize: PixelSize(width: 64, height: 64), scaleMode: .fill))
        #expect((image.width, image.height) == (64, 64))
        #expect(image.rgba(15, 63) == Self.red && image.rgba(16, 0) == Self.green)
        #expect(image.rgba(47, 32) == Self.blue && image.rgba(48, 32) == Self.yellow)
    }

    @Test func aspectFillCoversTheBoxAndCropsCentred() throws {
        // Scale 64/50 = 1.28: the document is 128 x 64 and the middle 64 columns remain (green | blue).
        let image = try SVGTest.decode(Self.stripes, DecodeOptions(thumbnailSize: PixelSize(width: 64, height: 64), scaleMode: .aspectFill))
        #expect((image.width, image.height) == (64, 64))
        #expect(image.rgba(0, 0) == Self.green && image.rgba(31, 63) == Self.green)
        #expect(image.rgba(32, 0) == Self.blue && image.rgba(63, 63) == Self.blue)
    }

    @Test func oneSideDerivesTheOther() throws {
        let wide = try SVGTest.decode(Self.stripes, DecodeOptions(thumbnailSize: PixelSize(width: 300, height: 0)))
        #expect((wide.width, wide.height) == (300, 150))
        let tall = try SVGTest.decode(Self.stripes, DecodeOptions(thumbnailSize: PixelSize(width: 0, height: 10)))
        #expect((tall.width, tall.height) == (20, 10))
    }

    /// Vectors render larger than their nominal size without allowUpscale: that is what a size means for them.
    @Test func upscalesWithoutBeingAsked() throws {
        for mode in ScaleMode.allCases {
            let image = try SVGTest.decode(Self.stripes, DecodeOptions(thumbnailSize: PixelSize(width: 400, height: 200), scaleMode: mode))
            #expect((image.width, image.height) == (400, 200), "\(mode)")
        }
    }

    /// A 16-unit icon at 512 px keeps hard edges: it is rendered at 512, not rendered at 16 and scaled up.
    @Test func renderingAtSizeIsCrisp() throws {
        let icon = SVGTest.svg(viewBox: "0 0 16 16", #"<rect x="4" y="4" width="8" height="8" fill="black"/>"#)
        let image = try SVGTest.decode(icon, DecodeOptions(thumbnailSize: PixelSize(width: 512, height: 512)))
        #expect((image.width, image.height) == (512, 512))
        // The square covers exactly 128..<384 on both axes.
        for i in stride(from: 0, to: 512, by: 1) {
            let inside = (128..<384).contains(i)
            #expect(image.pixel(x: i, y: 256).a == (inside ? 255 : 0), "x=\(i)")
            #expect(image.pixel(x: 256, y: i).a == (inside ? 255 : 0), "y=\(i)")
        }
        #expect(image.rgba(128, 128) == [0, 0, 0, 255] && image.rgba(127, 127)[3] == 0 && image.rgba(383, 383)[3] == 255)
    }

    @Test func onlyPageAndFrameZeroExist() throws {
        #expect { try SVGTest.decode(Self.stripes, DecodeOptions(pageIndex: 1)) } throws: { $0.pluginStatus == .notFound }
        #expect { try SVGTest.decode(Self.stripes, DecodeOptions(frameIndex: 1)) } throws: { $0.pluginStatus == .notFound }
    }

    @Test func hugeDocumentsAndRequestsFailBeforeAllocating() throws {
        let huge = SVGTest.svg(width: "100000", height: "100000", "<rect width='10' height='10'/>")
        let info = try SVGTest.probe(huge)
        #expect((info.width, info.height) == (100000, 100000))
        // Default limits (16384 x 16384 pixels, 65535 per side).
        #expect { try SVGTest.decode(huge) } throws: { $0.pluginStatus == .limitExceeded }
        // No host limits at all: cairo's 32767 px per side still refuses it, before any allocation.
        let none = DecodeLimits(maxPixels: 0, maxDimension: 0, maxFrames: 0, maxInputBytes: 0)
        #expect { try SVGTest.decode(huge, DecodeOptions(limits: none)) } throws: { $0.pluginStatus == .limitExceeded }
        // A small document asked for a huge size.
        let big = DecodeOptions(thumbnailSize: PixelSize(width: 100000, height: 100000))
        #expect { try SVGTest.decode(Self.stripes, big) } throws: { $0.pluginStatus == .limitExceeded }
        // A tight pixel limit.
        let tight = DecodeOptions(thumbnailSize: PixelSize(width: 64, height: 64), limits: DecodeLimits(maxPixels: 1000))
        #expect { try SVGTest.decode(Self.stripes, tight) } throws: { $0.pluginStatus == .limitExceeded }
        // A fitting limit passes: 64 x 32 = 2048 pixels.
        let fits = DecodeOptions(thumbnailSize: PixelSize(width: 64, height: 64), limits: DecodeLimits(maxPixels: 2048))
        #expect(try SVGTest.decode(Self.stripes, fits).width == 64)
    }

    @Test func inputSizeLimit() throws {
        let options = DecodeOptions(limits: DecodeLimits(maxInputBytes: 100))
        #expect(Self.stripes.count > 100)
        #expect { try SVGTest.decode(Self.stripes, options) } throws: { $0.pluginStatus == .limitExceeded }
        #expect { try SVGTest.probe(Self.stripes, options) } throws: { $0.pluginStatus == .limitExceeded }
    }

    @Test func malformedInputIsAnError() throws {
        let cases: [[UInt8]] = [
            Array(#"<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect"#.utf8),
            Array(#"<svg xmlns="http://www.w3.org/2000/svg" width="10"></g>"#.utf8),
            Array(#"<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">&undefined;</svg>"#.utf8),
        ]
        for bytes in cases {
            #expect { try SVGTest.decode(bytes) } throws: { $0.pluginStatus == .invalidData }
        }
    }
}
