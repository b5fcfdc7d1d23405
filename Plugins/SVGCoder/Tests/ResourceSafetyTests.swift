import Foundation
import PipelineHost
import TestSupport
import Testing

/// External references: only the SVG's own folder (and below) is readable, and only when the source is a local
/// file: URL. Each test pairs a forbidden reference with an allowed control, so a test that passes because
/// nothing loads at all would show up as a failing control.
@Suite struct ResourceSafetyTests {
    /// root/outside.* (forbidden) and root/doc/inside.* (allowed for root/doc/test.svg).
    struct Layout {
        let root: String
        var doc: String { root + "/doc" }
        var svgPath: String { doc + "/test.svg" }
        var svgURL: String { SVGTest.fileURL(svgPath) }

        init() throws {
            root = try TestPaths.temporaryDirectory("svg-safety")
            try FileManager.default.createDirectory(atPath: root + "/doc/sub", withIntermediateDirectories: true)
            // Valid PNGs, made by rsvg-convert from a solid colour.
            try Self.png(color: "#ff0000", to: root + "/outside.png")
            try Self.png(color: "#0000ff", to: root + "/doc/sub/inside.png")
            let fragment = #"<rect xmlns="http://www.w3.org/2000/svg" width="20" height="20" fill="%@"/>"#
            try TestFiles.write(Array(fragment.replacingOccurrences(of: "%@", with: "#ff0000").utf8), to: root + "/outside.xml")
            try TestFiles.write(Array(fragment.replacingOccurrences(of: "%@", with: "#0000ff").utf8), to: root + "/doc/inside.xml")
            try TestFiles.write(Array("rect { fill: #ff0000 !important; }".utf8), to: root + "/outside.css")
            try TestFiles.write(Array("rect { fill: #0000ff !important; }".utf8), to: root + "/doc/inside.css")
            try TestFiles.write(Array("XXXXXXXX".utf8), to: root + "/doc/inside.txt")
        }

        static func png(color: String, to path: String) throws {
            let svg = SVGTest.svg(width: "20", height: "20", #"<rect width="20" height="20" fill="\#(color)"/>"#)
            let source = try TestFiles.write(svg, to: path + ".svg")
            let result = try CommandLine.run("/usr/bin/rsvg-convert", ["-o", path, source])
            guard result.status == 0 else { throw TestSupportError("rsvg-convert: \(result.stderr)") }
        }

        /// Writes the test document and decodes it with the given source URL (default: its own file: URL).
        func decode(_ body: String, sourceURL: String?? = .none) throws -> Image {
            let svg = Array(("""
                <svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"
                     xmlns:xi="http://www.w3.org/2001/XInclude" width="20" height="20">\(body)</svg>
                """).utf8)
            try TestFiles.write(svg, to: svgPath)
            let url: String? = sourceURL ?? svgURL
            return try SVGTest.decode(svg, DecodeOptions(sourceURL: url))
        }

        func remove() { try? FileManager.default.removeItem(atPath: root) }
    }

    static let red = [255, 0, 0, 255], blue = [0, 0, 255, 255], green = [0, 128, 0, 255]

    @Test func imagesOnlyFromTheDocumentFolderAndBelow() throws {
        let layout = try Layout()
        defer { layout.remove() }
        let image = { (href: String) in #"<image width="20" height="20" xlink:href="\#(href)"/>"# }
        #expect(try layout.decode(image("sub/inside.png")).rgba(10, 10) == Self.blue, "control: a file below the folder loads")
        #expect(try layout.decode(image("../outside.png")).rgba(10, 10)[3] == 0)
        #expect(try layout.decode(image("sub/../../outside.png")).rgba(10, 10)[3] == 0)
        #expect(try layout.decode(image(layout.root + "/outside.png")).rgba(10, 10)[3] == 0)
        #expect(try layout.decode(image(SVGTest.fileURL(layout.root + "/outside.png"))).rgba(10, 10)[3] == 0)
        // A symlink inside the folder that points outside it.
        try FileManager.default.createSymbolicLink(atPath: layout.doc + "/link.png", withDestinationPath: layout.root + "/outside.png")
        #expect(try layout.decode(image("link.png")).rgba(10, 10)[3] == 0)
    }

    @Test func noBaseWithoutALocalFileURL() throws {
        let layout = try Layout()
        defer { layout.remove() }
        let body = #"<image width="20" height="20" xlink:href="sub/inside.png"/>"#
        #expect(try layout.decode(body).rgba(10, 10) == Self.blue, "control")
        #expect(try layout.decode(body, sourceURL: .some(nil)).rgba(10, 10)[3] == 0)
        #expect(try layout.decode(body, sourceURL: "https://example.com/doc/test.svg").rgba(10, 10)[3] == 0)
        #expect(try layout.decode(body, sourceURL: "file://otherhost" + layout.svgPath).rgba(10, 10)[3] == 0)
        #expect(try layout.decode(body, sourceURL: "data:image/svg+xml,<svg/>").rgba(10, 10)[3] == 0)
        // Embedded data: URLs need no base.
        let png = try TestFiles.read(layout.doc + "/sub/inside.png")
        let dataURL = "data:image/png;base64," + Data(png).base64EncodedString()
        #expect(try layout.decode(#"<image width="20" height="20" xlink:href="\#(dataURL)"/>"#, sourceURL: .some(nil)).rgba(10, 10) == Self.blue)
    }

    @Test func cssImportOnlyFromTheDocumentFolder() throws {
        let layout = try Layout()
        defer { layout.remove() }
        let body = { (href: String) in #"<style>@import url("\#(href)");</style><rect width="20" height="20" fill="green"/>"# }
        #expect(try layout.decode(body("inside.css")).rgba(10, 10) == Self.blue, "control")
        #expect(try layout.decode(body("../outside.css")).rgba(10, 10) == Self.green)
        #expect(try layout.decode(body(layout.root + "/outside.css")).rgba(10, 10) == Self.green)
    }

    @Test func xincludeOnlyFromTheDocumentFolder() throws {
        let layout = try Layout()
        defer { layout.remove() }
        let include = { (href: String) in #"<xi:include href="\#(href)"/>"# }
        #expect(try layout.decode(include("inside.xml")).rgba(10, 10) == Self.blue, "control")
        #expect(try layout.decode(include("../outside.xml")).rgba(10, 10)[3] == 0)
        #expect(try layout.decode(include(layout.root + "/outside.xml")).rgba(10, 10)[3] == 0)
        // Text inclusion of a system file draws nothing (the control shows that included text does draw).
        let text = { (href: String) in #"<text x="0" y="16" font-size="16" fill="black"><xi:include href="\#(href)" parse="text"/></text>"# }
        #expect(try layout.decode(text("inside.txt")).bytes.contains { $0 != 0 }, "control: included text is drawn")
        #expect(try layout.decode(text("/etc/passwd")).bytes.allSatisfy { $0 == 0 })
        #expect(try layout.decode(text("file:///etc/passwd")).bytes.allSatisfy { $0 == 0 })
        #expect(try layout.decode(text("../../../../../../../../etc/passwd")).bytes.allSatisfy { $0 == 0 })
    }

    /// Nothing is fetched over the network: a local listener sees no connection attempt.
    @Test func noNetworkAccess() throws {
        let layout = try Layout()
        defer { layout.remove() }
        let listener = try Listener()
        defer { listener.close() }
        let base = "http://127.0.0.1:\(listener.port)"
        _ = try layout.decode(#"<image width="20" height="20" xlink:href="\#(base)/a.png"/>"#)
        _ = try layout.decode(#"<style>@import url("\#(base)/a.css");</style><rect width="5" height="5"/>"#)
        _ = try layout.decode(#"<xi:include href="\#(base)/a.xml"/>"#)
        _ = try layout.decode(#"<image width="20" height="20" xlink:href="\#(base)/a.png"/>"#, sourceURL: "\(base)/doc/test.svg")
        #expect(!listener.hasPendingConnection)
    }
}

/// A TCP listener on 127.0.0.1 that never accepts: any connect() lands in its backlog, which poll() reveals.
private struct Listener {
    let socket: Int32
    let port: UInt16

    init() throws {
        let (descriptor, port) = try LoopbackSocket.bound(listening: true)
        socket = descriptor
        self.port = UInt16(port)
    }

    var hasPendingConnection: Bool {
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, 200) > 0
    }

    func close() { _ = Glibc.close(socket) }
}
