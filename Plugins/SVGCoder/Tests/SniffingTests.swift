import Foundation
import PipelineHost
import TestSupport
import Testing

/// Which bytes the SVG coder claims when the host picks a coder by sniffing.
@Suite struct SniffingTests {
    static let rect = #"<rect width="10" height="10"/>"#

    static let accepted: [(String, String)] = [
        ("bare root", #"<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">\#(rect)</svg>"#),
        ("UTF-8 BOM", "\u{FEFF}" + #"<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>"#),
        ("XML prolog", #"<?xml version="1.0" encoding="UTF-8" standalone="no"?>"# + "\n" + #"<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>"#),
        ("comments and stylesheet PI", "<?xml version=\"1.0\"?>\n<!-- Created with Inkscape -->\n<?xml-stylesheet href=\"a.css\"?>\n<!-- <html> in a comment -->\n" + #"<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>"#),
        ("public DOCTYPE", "<?xml version=\"1.0\"?>\n<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" \"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\">\n" + #"<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>"#),
        ("DOCTYPE with internal subset", "<!DOCTYPE svg [\n  <!ENTITY ns_svg \"http://www.w3.org/2000/svg\">\n  <!-- a ] and > inside a comment -->\n  <!ENTITY Rect '<rect width=\"5\" height=\"5\"/>'>\n]>\n" + #"<svg xmlns="&ns_svg;" width="10" height="10">&Rect;</svg>"#),
        ("whitespace before root", "\n\n   \t\r\n" + #"<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>"#),
        ("attributes before xmlns", #"<svg width="10" height="10" version="1.1" xmlns:xlink="http://www.w3.org/1999/xlink" xmlns="http://www.w3.org/2000/svg"/>"#),
        ("prefixed root", #"<svg:svg xmlns:svg="http://www.w3.org/2000/svg" width="10" height="10"/>"#),
        ("single quotes and newlines", "<svg\n  width='10'\n  height='10'\n  xmlns='http://www.w3.org/2000/svg'\n/>"),
        ("no namespace at all (librsvg renders it)", #"<svg width="10" height="10">\#(rect)</svg>"#),
    ]

    static let rejected: [(String, String)] = [
        ("HTML5", "<!DOCTYPE html>\n<html><body><svg xmlns=\"http://www.w3.org/2000/svg\"></svg></body></html>"),
        ("XHTML", #"<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><body/></html>"#),
        ("HTML without doctype", "<html><head><title>svg</title></head></html>"),
        ("plain XML", #"<?xml version="1.0"?><root><svg xmlns="http://www.w3.org/2000/svg"/></root>"#),
        ("RSS", #"<?xml version="1.0"?><rss version="2.0"><channel/></rss>"#),
        ("svg in another namespace", #"<svg xmlns="http://example.com/not-svg" width="10"/>"#),
        ("undeclared prefix", #"<x:svg width="10"/>"#),
        ("prefix bound elsewhere", #"<x:svg xmlns:x="http://example.com/"/>"#),
        ("svg-like name", #"<svgfoo xmlns="http://www.w3.org/2000/svg"/>"#),
        ("upper case", #"<SVG xmlns="http://www.w3.org/2000/svg"/>"#),
        ("text before markup", #"hello <svg xmlns="http://www.w3.org/2000/svg"/>"#),
        ("namespace entity bound elsewhere", "<!DOCTYPE svg [<!ENTITY ns \"http://example.com/\">]><svg xmlns=\"&ns;\"/>"),
        ("JSON", #"{"svg": "<svg xmlns=\"http://www.w3.org/2000/svg\"/>"}"#),
    ]

    @Test(arguments: accepted.map(\.0))
    func claimsSVG(_ name: String) throws {
        let text = try #require(Self.accepted.first { $0.0 == name }?.1)
        #expect(try SVGTest.host().coders.coder(forData: Array(text.utf8))?.descriptor.id == SVGTest.coderID)
        // And librsvg agrees: what sniffing accepts, probe can read.
        _ = try SVGTest.probe(Array(text.utf8))
    }

    @Test(arguments: rejected.map(\.0))
    func rejectsOtherMarkup(_ name: String) throws {
        let text = try #require(Self.rejected.first { $0.0 == name }?.1)
        #expect(try SVGTest.host().coders.coder(forData: Array(text.utf8)) == nil)
    }

    @Test func rejectsBinaryAndEmptyInput() throws {
        let host = try SVGTest.host()
        #expect(host.coders.coder(forData: []) == nil)
        #expect(host.coders.coder(forData: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]) == nil)
        #expect(host.coders.coder(forData: Array(repeating: 0, count: 100)) == nil)
        #expect(host.coders.coder(forData: Array("%PDF-1.7\n".utf8)) == nil)
    }

    @Test func utf16WithByteOrderMark() throws {
        let text = #"<?xml version="1.0" encoding="UTF-16"?><svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>"#
        let little: [UInt8] = [0xFF, 0xFE] + text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        let big: [UInt8] = [0xFE, 0xFF] + text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        let host = try SVGTest.host()
        #expect(host.coders.coder(forData: little)?.descriptor.id == SVGTest.coderID)
        #expect(host.coders.coder(forData: big)?.descriptor.id == SVGTest.coderID)
        let html = "<!DOCTYPE html><html></html>"
        #expect(host.coders.coder(forData: [0xFF, 0xFE] + html.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }) == nil)
    }

    /// gzip-compressed SVG (.svgz) is claimed after inflating its first bytes; other gzip data is not.
    @Test func gzipCompressedSVGAndOtherGzip() throws {
        let folder = try TestPaths.temporaryDirectory("svg-sniff")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let svg = "<?xml version=\"1.0\"?>\n<!-- compressed -->\n" + #"<svg xmlns="http://www.w3.org/2000/svg" width="12" height="8"><rect width="12" height="8" fill="red"/></svg>"#
        try TestFiles.write(Array(svg.utf8), to: folder + "/icon.svg")
        try TestFiles.write(Array("<html><body>not svg</body></html>".utf8), to: folder + "/page.html")
        #expect(try CommandLine.shell("cd '\(folder)' && gzip -9 -k icon.svg page.html").status == 0)
        let svgz = try TestFiles.read(folder + "/icon.svg.gz")
        let host = try SVGTest.host()
        #expect(host.coders.coder(forData: svgz)?.descriptor.id == SVGTest.coderID)
        #expect(host.coders.coder(forData: try TestFiles.read(folder + "/page.html.gz")) == nil)
        // A stream cut short (no gzip trailer) still decides from what inflates.
        #expect(host.coders.coder(forData: Array(svgz.prefix(svgz.count - 12)))?.descriptor.id == SVGTest.coderID)
        #expect(host.coders.coder(forData: [0x1F, 0x8B, 0x08, 0x00, 0xFF, 0xFF]) == nil)

        let image = try SVGTest.decode(svgz)
        #expect((image.width, image.height) == (12, 8))
        #expect(image.rgba(6, 4) == [255, 0, 0, 255])
        #expect(try SVGTest.probe(svgz).width == 12)
    }
}
