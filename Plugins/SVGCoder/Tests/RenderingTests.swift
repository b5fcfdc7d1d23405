import Foundation
import PipelineHost
import TestSupport
import Testing

/// Pixels: against rsvg-convert (the same librsvg), alpha edges, tint, template and currentColor.
@Suite struct RenderingTests {
    /// Test documents the project writes itself: icons, gradients, strokes, clips, patterns, opacity, filters.
    static let documents: [(name: String, svg: [UInt8])] = [
        ("icon", SVGTest.svg(viewBox: "0 0 24 24", """
            <path d="M12 2l3.1 6.3 6.9 1-5 4.9 1.2 6.8L12 17.8 5.8 21l1.2-6.8-5-4.9 6.9-1z" fill="#e0a000" stroke="#603000" stroke-width="1.2" stroke-linejoin="round"/>
            <circle cx="12" cy="12" r="2.5" fill="currentColor" fill-opacity="0.7"/>
            """)),
        ("gradients", SVGTest.svg(width: "160", height: "120", """
            <defs><linearGradient id="l" x1="0" x2="1"><stop offset="0" stop-color="#f00"/><stop offset="1" stop-color="#00f" stop-opacity="0.2"/></linearGradient>
            <radialGradient id="r" cx="0.4" cy="0.4" r="0.6"><stop offset="0" stop-color="#fff"/><stop offset="1" stop-color="#080" stop-opacity="0"/></radialGradient></defs>
            <rect x="5" y="5" width="150" height="50" rx="12" fill="url(#l)"/>
            <ellipse cx="80" cy="88" rx="70" ry="28" fill="url(#r)"/>
            """)),
        ("strokes-and-curves", SVGTest.svg(width: "90.5", height: "70.25", """
            <path d="M5 60 C 20 5, 40 5, 55 60 S 85 110, 88 20" fill="none" stroke="#123456" stroke-width="3.5" stroke-dasharray="7 3"/>
            <polyline points="5,5 30,30 5,55" fill="none" stroke="red" stroke-width="6" stroke-linecap="round" opacity="0.6"/>
            """)),
        ("clip-pattern-group-opacity", SVGTest.svg(viewBox: "0 0 64 48", """
            <defs><clipPath id="c"><circle cx="32" cy="24" r="20"/></clipPath>
            <pattern id="p" width="8" height="8" patternUnits="userSpaceOnUse"><rect width="4" height="4" fill="#909"/><rect x="4" y="4" width="4" height="4" fill="#0aa"/></pattern></defs>
            <rect width="64" height="48" fill="url(#p)" clip-path="url(#c)"/>
            <g opacity="0.5"><rect x="2" y="2" width="30" height="20" fill="#fa0"/><rect x="20" y="12" width="30" height="20" fill="#0af"/></g>
            """)),
        ("blur-filter", SVGTest.svg(width: "80", height: "80", """
            <defs><filter id="b"><feGaussianBlur stdDeviation="3"/></filter></defs>
            <rect x="20" y="20" width="40" height="40" fill="#2a6" filter="url(#b)"/>
            """)),
    ]

    /// Requested sizes: intrinsic, a square fit, a stretched fill, a large upscale and a tiny thumbnail.
    static let requests: [(PixelSize?, ScaleMode)] = [
        (nil, .fit), (PixelSize(width: 64, height: 64), .fit), (PixelSize(width: 200, height: 50), .fill),
        (PixelSize(width: 700, height: 500), .fit), (PixelSize(width: 16, height: 16), .fill),
    ]

    /// The same librsvg draws both, so the pixels must agree: max channel difference <= 2 (un-premultiplied
    /// colour where both alphas > 0, alpha everywhere). In practice the difference is 0.
    @Test(.enabled(if: SVGTest.hasReferenceTools, "rsvg-convert and ImageMagick are needed"), arguments: documents.map(\.name))
    func matchesRsvgConvert(_ name: String) throws {
        let document = try #require(Self.documents.first { $0.name == name })
        let folder = try TestPaths.temporaryDirectory("svg-reference-doc")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = try TestFiles.write(document.svg, to: folder + "/\(name).svg")
        for (size, mode) in Self.requests {
            let image = try SVGTest.decode(document.svg, DecodeOptions(thumbnailSize: size, scaleMode: mode, sourceURL: SVGTest.fileURL(path)))
            // rsvg-convert -w W -h H stretches to exactly W x H, which is what our placement computed.
            let reference = try SVGTest.reference(svgPath: path, width: size == nil ? nil : image.width, height: size == nil ? nil : image.height)
            #expect((image.width, image.height) == (reference.width, reference.height), "\(name) \(String(describing: size))")
            guard (image.width, image.height) == (reference.width, reference.height) else { continue }
            let difference = PixelDifference(image, reference.rgba)
            #expect(difference.maxChannel <= 2, "\(name) at \(image.width)x\(image.height): \(difference)")
            print("reference \(name) \(image.width)x\(image.height) \(mode): \(difference)")
        }
    }

    /// 50 % white over nothing is white at half alpha, not grey: straight alpha, rounded un-premultiplication.
    @Test func semiTransparentEdgesHaveNoDarkFringe() throws {
        let half = try SVGTest.decode(SVGTest.svg(width: "8", height: "8", #"<rect width="8" height="8" fill="white" fill-opacity="0.5"/>"#))
        #expect(half.alphaMode == .straight)
        #expect(half.rgba(4, 4) == [255, 255, 255, 128])
        // Every anti-aliased edge pixel of a white circle is white, whatever its alpha.
        let circle = try SVGTest.decode(SVGTest.svg(viewBox: "0 0 10 10", ##"<circle cx="5" cy="5" r="4.3" fill="#fff"/>"##),
                                        DecodeOptions(thumbnailSize: PixelSize(width: 97, height: 97)))
        var edgePixels = 0
        for y in 0..<circle.height {
            for x in 0..<circle.width {
                let p = circle.rgba(x, y)
                guard p[3] > 0 else { continue }
                #expect(p[0] == 255 && p[1] == 255 && p[2] == 255, "(\(x), \(y)) = \(p)")
                if p[3] < 255 { edgePixels += 1 }
            }
        }
        #expect(edgePixels > 50)
        // And a coloured half-transparent fill keeps its exact colour.
        let orange = try SVGTest.decode(SVGTest.svg(width: "4", height: "4", ##"<rect width="4" height="4" fill="#ff8000" opacity="0.25"/>"##))
        let p = orange.rgba(1, 1)
        #expect(p[3] == 64 && p[0] == 255 && abs(p[1] - 128) <= 2 && p[2] == 0, "\(p)")
    }

    static let currentColorIcon = SVGTest.svg(width: "20", height: "10", """
        <rect width="10" height="10" fill="currentColor"/><rect x="10" width="10" height="10" fill="#00ff00" fill-opacity="0.5"/>
        """)

    /// A tint without template mode only sets CSS `color`: currentColor follows it, other colours stay.
    @Test func tintSetsCurrentColor() throws {
        let plain = try SVGTest.decode(Self.currentColorIcon)
        #expect(plain.rgba(5, 5) == [0, 0, 0, 255])  // CSS default colour: black
        let tinted = try SVGTest.decode(Self.currentColorIcon, DecodeOptions(tint: RGBAColor(red: 200, green: 30, blue: 10)))
        #expect(tinted.rgba(5, 5) == [200, 30, 10, 255])
        #expect(tinted.rgba(15, 5) == [0, 255, 0, 128])
        let translucent = try SVGTest.decode(Self.currentColorIcon, DecodeOptions(tint: RGBAColor(red: 0, green: 0, blue: 255, alpha: 128)))
        #expect(translucent.rgba(5, 5) == [0, 0, 255, 128])
        // The tint wins over a color attribute on the root (it is the icon's inherited colour).
        let rooted = Array(#"<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4" color="blue"><rect width="4" height="4" fill="currentColor"/></svg>"#.utf8)
        #expect(try SVGTest.decode(rooted, DecodeOptions(tint: RGBAColor(red: 255, green: 0, blue: 0))).rgba(2, 2) == [255, 0, 0, 255])
    }

    /// Template: the tint colour everywhere, alpha = drawn alpha x tint alpha / 255, straight alpha.
    @Test func templateUsesTheTintWithTheDrawnAlpha() throws {
        let tint = RGBAColor(red: 10, green: 120, blue: 250)
        let image = try SVGTest.decode(Self.currentColorIcon, DecodeOptions(tint: tint, template: true))
        #expect(image.alphaMode == .straight)
        #expect(image.rgba(5, 5) == [10, 120, 250, 255])
        #expect(image.rgba(15, 5) == [10, 120, 250, 128])
        let halfTint = RGBAColor(red: 255, green: 0, blue: 0, alpha: 128)
        let half = try SVGTest.decode(Self.currentColorIcon, DecodeOptions(tint: halfTint, template: true))
        #expect(half.rgba(5, 5) == [255, 0, 0, 128])
        #expect(half.rgba(15, 5) == [255, 0, 0, 64])
        // Transparent stays transparent, at any size.
        let icon = try SVGTest.decode(SVGTest.svg(viewBox: "0 0 16 16", ##"<circle cx="8" cy="8" r="4" fill="#123"/>"##),
                                      DecodeOptions(thumbnailSize: PixelSize(width: 48, height: 48), tint: tint, template: true))
        #expect(icon.rgba(0, 0) == [0, 0, 0, 0] && icon.rgba(24, 24) == [10, 120, 250, 255])
    }
}
