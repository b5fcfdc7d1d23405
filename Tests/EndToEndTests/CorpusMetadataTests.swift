import Foundation
import PipelineHost
import Testing
import TestSupport

/// The Exif that AVIF and HEIF probes hand to `info`, on the corpus's third-party photos (phones, GIMP, libheif's
/// examples), against what libvips' heifload reads from the same files: the same block size and the same camera.
@Suite struct CorpusMetadataTests {
    /// vipsheader's `name: value (value, type, n components, n bytes)` fields of one file.
    private static func vipsFields(_ path: String, tool: String) throws -> [String: String] {
        let run = try CommandLine.run(tool, ["-a", path])
        var fields: [String: String] = [:]
        for line in run.stdout.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let value = String(line[line.index(after: colon)...].drop { $0 == " " })
            // "X (X, ASCII, n components, n bytes)": X is the prefix repeated inside the parentheses (X may hold " (").
            var plain = value
            var search = value.startIndex
            while let open = value.range(of: " (", range: search..<value.endIndex) {
                let candidate = String(value[..<open.lowerBound])
                if value[open.upperBound...].hasPrefix(candidate + ",") { plain = candidate; break }
                search = open.upperBound
            }
            fields[String(line[..<colon])] = plain
        }
        return fields
    }

    @Test(.requiresCorpus) func avifAndHEIFExifMatchesLibvips() throws {
        let corpus = try Skip.unlessCorpus()
        let vipsheader = try Skip.unlessTool("vipsheader")
        let coders = try PluginSandbox.host(loading: ["libAVIFCoder.so", "libHEIFCoder.so"]).coders
        let rows = try CorpusManifest.testRows(in: corpus).filter { ($0.format == "avif" || $0.format == "heif") && $0.outcome == "ok" }
        var withExif = 0, cameras = 0
        for row in rows {
            let path = corpus + "/" + row.path
            guard let info = try? coders.probe(data: try TestFiles.read(path)) else { continue }
            let fields = try Self.vipsFields(path, tool: vipsheader)
            // vips reads a HEIF's primary image only; a file it cannot open says nothing either way.
            guard fields["width"] != nil else { continue }
            let theirs = fields["exif-data"].flatMap { Int($0.split(separator: " ").first ?? "") } ?? 0
            // vips keeps the "Exif\0\0" some writers put before the TIFF header inside the item; ours starts at the
            // byte-order mark (the ABI's form), so the sizes agree or differ by those 6 bytes.
            let ours = info.metadata?.exifBytes ?? 0
            #expect(ours == theirs || (ours > 0 && theirs - ours == 6), "\(row.path): Exif \(ours) bytes, vips \(theirs)")
            if theirs > 0 { withExif += 1 }
            for (field, ours) in [("exif-ifd0-Make", info.metadata?.exif?.make), ("exif-ifd0-Model", info.metadata?.exif?.model),
                                  ("exif-ifd0-Software", info.metadata?.exif?.software)] {
                guard let value = fields[field] else { continue }
                #expect(ours == value, "\(row.path) \(field): ours \(ours ?? "none"), vips \(value)")
                if field == "exif-ifd0-Make" { cameras += 1 }
            }
        }
        #expect(withExif >= 10 && cameras >= 2, "\(withExif) files with Exif, \(cameras) cameras")
        print("corpus Exif: \(withExif) AVIF/HEIF files with Exif as vips reads them, \(cameras) cameras named alike")
    }
}
