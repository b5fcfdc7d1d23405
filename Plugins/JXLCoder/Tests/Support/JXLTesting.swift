import Foundation
import PipelineHost
import Testing
import TestSupport

/// Shared setup of the JPEG XL plugin tests: a host with only libJXLCoder.so, djxl as the reference decoder.
enum JXLTesting {
    static let library = "libJXLCoder.so"

    /// The coders of a host that loaded only libJXLCoder.so.
    static func coders() throws -> CodersManager {
        try PluginSandbox.host(loading: [library]).coders
    }

    /// A decoded PAM/PGM/PPM (djxl's raw outputs): width, height, channels, 8-bit samples.
    struct Netpbm {
        let width: Int, height: Int, channels: Int
        let samples: [UInt8]

        /// The sample of channel `c` at (x, y), grey replicated into RGB and a missing alpha read as opaque.
        func rgba(x: Int, y: Int) -> [UInt8] {
            let base = (y * width + x) * channels
            switch channels {
            case 1: return [samples[base], samples[base], samples[base], 255]
            case 2: return [samples[base], samples[base], samples[base], samples[base + 1]]
            case 3: return [samples[base], samples[base + 1], samples[base + 2], 255]
            default: return Array(samples[base..<(base + 4)])
            }
        }
    }

    /// Runs djxl on `bytes` and reads its 8-bit PAM output.
    static func djxl(_ bytes: [UInt8]) throws -> Netpbm {
        let tool = try Skip.unlessTool("djxl")
        let folder = try TestPaths.temporaryDirectory("jxl-djxl")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Data(bytes).write(to: URL(fileURLWithPath: folder + "/in.jxl"))
        // djxl picks the Netpbm flavour by the name and refuses one that cannot hold the image (PAM for alpha, PPM
        // for colour, PGM for grey), so each is tried in turn.
        var failures: [String] = []
        for name in ["out.pam", "out.ppm", "out.pgm"] {
            let result = try CommandLine.run(tool, [folder + "/in.jxl", folder + "/" + name, "--bits_per_sample=8"])
            if result.status == 0 { return try readNetpbm(Array(try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name)))) }
            failures.append(result.stderr.split(separator: "\n").last.map(String.init) ?? "")
        }
        throw TestSupportError("djxl failed: \(failures)")
    }

    /// A P5 (grey), P6 (RGB) or P7 (PAM) file with 8-bit samples.
    static func readNetpbm(_ data: [UInt8]) throws -> Netpbm {
        if data.starts(with: Array("P7".utf8)) { return try readPAM(data) }
        guard data.count > 2, data[0] == UInt8(ascii: "P"), data[1] == UInt8(ascii: "5") || data[1] == UInt8(ascii: "6") else {
            throw TestSupportError("not a Netpbm file")
        }
        // "P6\nW H\n255\n": four white-space separated tokens, then one white-space byte, then the samples.
        var tokens: [String] = [], current = "", index = 0
        while tokens.count < 4, index < data.count {
            let byte = data[index]
            if byte == 0x20 || byte == 0x0A || byte == 0x09 || byte == 0x0D {
                if !current.isEmpty { tokens.append(current); current = "" }
            } else {
                current.append(Character(UnicodeScalar(byte)))
            }
            index += 1
        }
        guard tokens.count == 4, let width = Int(tokens[1]), let height = Int(tokens[2]), tokens[3] == "255" else {
            throw TestSupportError("unexpected Netpbm header \(tokens)")
        }
        return Netpbm(width: width, height: height, channels: data[1] == UInt8(ascii: "5") ? 1 : 3, samples: Array(data[index...]))
    }

    /// A PAM (P7) header and its samples; 8-bit only.
    static func readPAM(_ data: [UInt8]) throws -> Netpbm {
        guard let end = data.indices.first(where: { index in
            index + 7 <= data.count && Array(data[index..<(index + 7)]) == Array("ENDHDR\n".utf8)
        }) else { throw TestSupportError("not a PAM") }
        var fields: [String: Int] = [:]
        for line in String(decoding: data[..<end], as: UTF8.self).split(separator: "\n") {
            let parts = line.split(separator: " ")
            if parts.count == 2, let value = Int(parts[1]) { fields[String(parts[0])] = value }
        }
        guard let width = fields["WIDTH"], let height = fields["HEIGHT"], let depth = fields["DEPTH"], fields["MAXVAL"] == 255 else {
            throw TestSupportError("unexpected PAM header \(fields)")
        }
        return Netpbm(width: width, height: height, channels: depth, samples: Array(data[(end + 7)...]))
    }

    /// The largest per-channel difference between a decoded 8-bit image and a reference.
    static func maxDifference(_ image: Image, _ reference: Netpbm) -> Int {
        var worst = 0
        for y in 0..<image.height {
            for x in 0..<image.width {
                let p = image.pixel(x: x, y: y), q = reference.rgba(x: x, y: y)
                let ours = image.pixelFormat == .rgba16 ? [p.r, p.g, p.b, p.a].map { Int(($0 + 128) / 257) } : [Int(p.r), Int(p.g), Int(p.b), Int(p.a)]
                for c in 0..<4 where !(c < 3 && q[3] == 0) { worst = max(worst, abs(ours[c] - Int(q[c]))) }
            }
        }
        return worst
    }

    /// A test picture: smooth gradients with a soft alpha ramp, `sixteen` for RGBA16.
    static func picture(width: Int, height: Int, sixteen: Bool = false, alpha: Bool = true, seed: Int = 0) throws -> Image {
        let bytesPerPixel = sixteen ? 8 : 4
        var bytes = [UInt8](repeating: 0, count: width * height * bytesPerPixel)
        for y in 0..<height {
            for x in 0..<width {
                let values = [(x * 65535) / max(1, width - 1), (y * 65535) / max(1, height - 1), ((x + y + seed) * 997) % 65536,
                              alpha ? 65535 - (x * 30000) / max(1, width - 1) : 65535]
                for c in 0..<4 {
                    let o = (y * width + x) * bytesPerPixel
                    if sixteen {
                        bytes[o + c * 2] = UInt8(values[c] & 0xFF)
                        bytes[o + c * 2 + 1] = UInt8(values[c] >> 8)
                    } else {
                        bytes[o + c] = UInt8(values[c] >> 8)
                    }
                }
            }
        }
        return try Image(width: width, height: height, pixelFormat: sixteen ? .rgba16 : .rgba8,
                         alphaMode: alpha ? .straight : .none, bytes: bytes)
    }
}
