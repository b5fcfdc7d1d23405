import Foundation
import TestSupport

/// The Debian reference tools the tests compare against: avifdec/avifenc (libavif-bin 0.11.1, the same libavif the
/// plugin links) and ImageMagick's convert to turn PNG into raw RGBA. The real ImageMagick is called by its
/// /usr/bin path so a wrapper earlier on PATH cannot change the bytes.
enum ReferenceTools {
    static let avifdec = "/usr/bin/avifdec"
    static let avifenc = "/usr/bin/avifenc"
    static let convert = "/usr/bin/convert"

    static var available: Bool {
        [avifdec, avifenc, convert].allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static let missingMessage = "SKIPPED: avifdec/avifenc (apt-get install libavif-bin) or ImageMagick's convert "
        + "(apt-get install imagemagick) missing; the lead should add them to bootstrap"

    /// Raw RGBA from `avifdec [--no-strict] -d depth file out.png` → `convert -depth depth rgba:` (16-bit samples
    /// are asked for big-endian and returned as numbers).
    static func decode(_ path: String, depth: Int, strict: Bool = true, index: Int = 0) throws -> Raster {
        let folder = try TestPaths.temporaryDirectory("avifdec")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var arguments = ["-d", String(depth), "--index", String(index)]
        if !strict { arguments.append("--no-strict") }
        let png = folder + "/out.png"
        let run = try CommandLine.run(avifdec, arguments + [path, png])
        guard run.status == 0 else { throw TestSupportError("avifdec \(path): \(run.stdout) \(run.stderr)") }
        return try rasterFromImage(png, depth: depth)
    }

    /// Raw RGBA of any image file ImageMagick reads, with an optional operation (e.g. ["-rotate", "90"]).
    static func rasterFromImage(_ path: String, depth: Int, operations: [String] = []) throws -> Raster {
        let image = try MagickRGBA.read(path, depth: depth, operations: operations)
        return Raster(width: image.width, height: image.height, samples: image.samples)
    }

    /// Runs avifenc with `arguments` on a PNG made from `raster` (8-bit RGBA) and returns the AVIF bytes.
    static func encode(_ raster: Raster, _ arguments: [String]) throws -> [UInt8] {
        let folder = try TestPaths.temporaryDirectory("avifenc")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let png = try writePNG(raster, in: folder)
        let run = try CommandLine.run(avifenc, ["-s", "10", "-j", "1"] + arguments + [png, folder + "/out.avif"])
        guard run.status == 0 else { throw TestSupportError("avifenc \(arguments): \(run.stdout) \(run.stderr)") }
        return try TestFiles.read(folder + "/out.avif")
    }

    /// `raster` as an 8-bit RGBA PNG in `folder` (through ImageMagick).
    static func writePNG(_ raster: Raster, in folder: String, name: String = "in.png") throws -> String {
        let raw = folder + "/" + name + ".rgba", png = folder + "/" + name
        try TestFiles.write(raster.samples.map { UInt8(truncatingIfNeeded: $0) }, to: raw)
        let run = try CommandLine.run(
            convert, ["-size", "\(raster.width)x\(raster.height)", "-depth", "8", "rgba:" + raw, "PNG32:" + png])
        guard run.status == 0 else { throw TestSupportError("convert to PNG: \(run.stderr)") }
        return png
    }

    /// Per-frame durations in milliseconds as `avifdec --info` prints them ("duration 0.10 (1024 timescales)").
    static func durations(_ path: String) throws -> [Int] {
        let run = try CommandLine.run(avifdec, ["--info", path])
        guard run.status == 0 else { throw TestSupportError("avifdec --info \(path): \(run.stderr)") }
        let text = run.stdout
        guard let scaleLine = text.split(separator: "\n").first(where: { $0.contains("timescales per second") }),
              let timescale = Double(scaleLine.split(separator: " ").first(where: { Double($0) != nil }) ?? "")
        else { return [] }
        return text.split(separator: "\n").filter { $0.contains("Decoded frame") }.compactMap { line in
            guard let range = line.range(of: "[duration ") else { return nil }
            let rest = line[range.upperBound...]
            guard let open = rest.firstIndex(of: "("), let units = Double(rest[rest.index(after: open)...].prefix { $0 != " " })
            else { return nil }
            return Int((units * 1000 / timescale).rounded())
        }
    }
}
