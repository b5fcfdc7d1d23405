import Foundation
import PipelineHost
import Testing
import TestSupport

/// An isolated decode gives exactly the pixels of an in-process decode (same coder, same finishing code, only
/// the process differs), for PNG, SVG and PDF from plugins.d and for sizes, scale modes and tints.
@Suite struct IsolationIdentityTests {
    static let plugins = ["libPNGCoder.so", "libSVGCoder.so", "libPDFCoder.so"]

    static let svg = Array("""
        <svg xmlns="http://www.w3.org/2000/svg" width="120" height="80" viewBox="0 0 120 80">
          <defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1">
            <stop offset="0" stop-color="#0a84ff"/><stop offset="1" stop-color="#ff375f" stop-opacity="0.5"/>
          </linearGradient></defs>
          <rect x="4" y="4" width="112" height="72" rx="12" fill="url(#g)"/>
          <circle cx="60" cy="40" r="24" fill="currentColor" stroke="#000" stroke-width="3"/>
        </svg>
        """.utf8)

    /// A one-page PDF with filled and stroked shapes and a little text.
    static let pdf: [UInt8] = {
        let content = "0.2 0.5 0.8 rg 20 20 160 100 re f 1 0 0 RG 4 w 30 30 m 170 110 l S BT /F1 18 Tf 40 60 Td (isolated) Tj ET"
        let objects = [
            "<< /Type /Catalog /Pages 2 0 R >>",
            "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 140] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
            "<< /Length \(content.utf8.count) >>\nstream\n\(content)\nendstream",
            "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        ]
        var out = "%PDF-1.7\n"
        var offsets: [Int] = []
        for (index, body) in objects.enumerated() {
            offsets.append(out.utf8.count)
            out += "\(index + 1) 0 obj\n\(body)\nendobj\n"
        }
        let xref = out.utf8.count
        out += "xref\n0 \(objects.count + 1)\n0000000000 65535 f \n"
        for offset in offsets { out += String(repeating: "0", count: 10 - String(offset).count) + "\(offset) 00000 n \n" }
        out += "trailer\n<< /Size \(objects.count + 1) /Root 1 0 R >>\nstartxref\n\(xref)\n%%EOF\n"
        return Array(out.utf8)
    }()

    /// A 300x200 RGBA gradient with varying alpha, encoded by the PNG coder.
    static func png(_ host: PluginHost) throws -> [UInt8] {
        var bytes: [UInt8] = []
        for y in 0..<200 {
            for x in 0..<300 { bytes += [UInt8(x * 255 / 299), UInt8(y * 255 / 199), UInt8((x + y) % 256), UInt8(128 + (x % 128))] }
        }
        return try host.coders.encode(try Image(width: 300, height: 200, bytes: bytes), format: "png")
    }

    static let optionSets: [(String, DecodeOptions)] = [
        ("intrinsic", DecodeOptions()),
        ("fit 64", DecodeOptions(thumbnailSize: PixelSize(width: 64, height: 64))),
        ("aspect-fill 50x30", DecodeOptions(thumbnailSize: PixelSize(width: 50, height: 30), scaleMode: .aspectFill)),
        ("fill 40x90", DecodeOptions(thumbnailSize: PixelSize(width: 40, height: 90), scaleMode: .fill)),
        ("template tint", DecodeOptions(thumbnailSize: PixelSize(width: 48, height: 48),
                                        tint: RGBAColor(red: 10, green: 200, blue: 30), template: true)),
        ("currentColor tint", DecodeOptions(tint: RGBAColor(red: 250, green: 120, blue: 0))),
    ]

    @Test(arguments: ["png", "svg", "pdf"])
    func isolatedPixelsEqualInProcessPixels(format: String) throws {
        let host = IsolationSupport.host(try PluginSandbox.directory(with: Self.plugins))
        let pool = try IsolationSupport.attachPool(to: host, size: 1)
        defer { pool.shutdown() }
        let data = switch format {
        case "png": try Self.png(host)
        case "svg": Self.svg
        default: Self.pdf
        }
        for (label, options) in Self.optionSets {
            let local = try host.coders.decode(data: data, options: options, isolation: .inProcess)
            let isolated = try host.coders.decode(data: data, options: options, isolation: .isolated)
            #expect(isolated.width == local.width && isolated.height == local.height, "\(format) \(label)")
            #expect(isolated.pixelFormat == local.pixelFormat && isolated.alphaMode == local.alphaMode, "\(format) \(label)")
            #expect(isolated.bytes == local.bytes, "\(format) \(label): pixels differ")
            let localInfo = try host.coders.probe(data: data, options: options, isolation: .inProcess)
            #expect(try host.coders.probe(data: data, options: options, isolation: .isolated) == localInfo, "\(format) \(label)")
        }
        #expect(pool.statistics.requests == 2 * Self.optionSets.count)
    }

    @Test(arguments: [64 << 20, 0])
    func largeAndSmallInputsAlternateThroughTheInputArenaOrOneShotMemory(arenaLimit: Int) throws {
        // Given a 6 MB PNG of noise (larger than the arena's first 1 MiB, so the arena grows; or with no arena at
        // all, one-shot memfds) and a small one
        let host = IsolationSupport.host(try PluginSandbox.directory(with: ["libPNGCoder.so"]))
        let pool = try IsolationSupport.attachPool(to: host, size: 1, inputArenaLimit: arenaLimit)
        defer { pool.shutdown() }
        var generator = SystemRandomNumberGenerator()
        let noise = (0..<(1500 * 1000 * 4)).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let large = try host.coders.encode(try Image(width: 1500, height: 1000, bytes: noise), format: "png")
        let small = try Self.png(host)
        #expect(large.count > 4 << 20)
        // When they alternate through one worker, then every result is the in-process result
        for data in [small, large, small, large] {
            let options = DecodeOptions(thumbnailSize: PixelSize(width: 100, height: 100))
            let isolated = try host.coders.decode(data: data, options: options, isolation: .isolated)
            #expect(isolated.bytes == (try host.coders.decode(data: data, options: options, isolation: .inProcess)).bytes)
        }
        #expect(pool.statistics.workersStarted == 1)
    }
}
