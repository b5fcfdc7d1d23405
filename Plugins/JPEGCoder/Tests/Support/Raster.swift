import Foundation
import PipelineHost
import TestSupport

/// An 8-bit RGB (or gray) raster: what the reference tools write as PNM and what the tests compare.
struct Raster: Sendable, Equatable {
    var width: Int
    var height: Int
    /// 1 (gray) or 3 (RGB).
    var channels: Int
    var samples: [UInt8]

    init(width: Int, height: Int, channels: Int, samples: [UInt8]) {
        self.width = width
        self.height = height
        self.channels = channels
        self.samples = samples
    }

    /// The RGB channels of a decoded image (alpha dropped).
    init(_ image: Image) {
        let bytes = image.bytes
        var rgb = [UInt8]()
        rgb.reserveCapacity(image.width * image.height * 3)
        for i in stride(from: 0, to: bytes.count, by: 4) { rgb += bytes[i..<(i + 3)] }
        self.init(width: image.width, height: image.height, channels: 3, samples: rgb)
    }

    /// Parses a binary PGM (P5) or PPM (P6) with maxval 255.
    init(pnm bytes: [UInt8]) throws {
        var fields = [String]()
        var index = 0
        while fields.count < 4 && index < bytes.count {
            while index < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[index]) { index += 1 }
            if index < bytes.count, bytes[index] == UInt8(ascii: "#") {
                while index < bytes.count, bytes[index] != 0x0A { index += 1 }
                continue
            }
            let start = index
            while index < bytes.count, ![0x20, 0x0A, 0x0D, 0x09].contains(bytes[index]) { index += 1 }
            fields.append(String(decoding: bytes[start..<index], as: UTF8.self))
        }
        index += 1 // the single whitespace after maxval
        guard fields.count == 4, fields[0] == "P5" || fields[0] == "P6", fields[3] == "255",
              let width = Int(fields[1]), let height = Int(fields[2]) else {
            throw TestSupportError("not an 8-bit binary PNM: \(fields)")
        }
        let channels = fields[0] == "P5" ? 1 : 3
        let count = width * height * channels
        guard bytes.count - index >= count else { throw TestSupportError("PNM data is short") }
        self.init(width: width, height: height, channels: channels, samples: Array(bytes[index..<(index + count)]))
    }

    var pnm: [UInt8] {
        Array("\(channels == 1 ? "P5" : "P6")\n\(width) \(height)\n255\n".utf8) + samples
    }

    /// Gray replicated to RGB, so that a gray reference compares with the decoder's RGBA output.
    var rgb: Raster {
        channels == 3 ? self : Raster(width: width, height: height, channels: 3, samples: samples.flatMap { [$0, $0, $0] })
    }

    /// An opaque RGBA image for the host's encoders and resampler.
    func image() throws -> Image {
        let rgb = self.rgb.samples
        var rgba = [UInt8]()
        rgba.reserveCapacity(width * height * 4)
        for i in stride(from: 0, to: rgb.count, by: 3) { rgba += [rgb[i], rgb[i + 1], rgb[i + 2], 255] }
        return try Image(width: width, height: height, pixelFormat: .rgba8, alphaMode: .none, bytes: rgba)
    }

    func pixel(x: Int, y: Int) -> [UInt8] {
        let start = (y * width + x) * channels
        return Array(samples[start..<(start + channels)])
    }
}

/// How far apart two rasters of the same size are.
struct Difference: CustomStringConvertible {
    var maximum: Int
    var mean: Double
    /// Peak signal-to-noise ratio in dB (infinite when identical).
    var psnr: Double
    var sameSize: Bool

    init(_ a: Raster, _ b: Raster) {
        let a = a.rgb, b = b.rgb
        sameSize = a.width == b.width && a.height == b.height
        guard sameSize, !a.samples.isEmpty else {
            maximum = 255; mean = 255; psnr = 0
            return
        }
        var maximum = 0, sum = 0, squares = 0
        for (x, y) in zip(a.samples, b.samples) {
            let d = abs(Int(x) - Int(y))
            maximum = max(maximum, d)
            sum += d
            squares += d * d
        }
        self.maximum = maximum
        mean = Double(sum) / Double(a.samples.count)
        let mse = Double(squares) / Double(a.samples.count)
        psnr = mse == 0 ? .infinity : 10 * log10(255 * 255 / mse)
    }

    var description: String {
        sameSize ? "max \(maximum), mean \(String(format: "%.3f", mean)), PSNR \(String(format: "%.2f", psnr)) dB" : "sizes differ"
    }
}
