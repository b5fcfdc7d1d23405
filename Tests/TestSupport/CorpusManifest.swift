import Foundation

/// One row of the shared corpus's manifest.tsv (columns described in ../shared/corpus/README.md).
public struct CorpusManifestRow: Sendable {
    /// Path relative to the corpus folder.
    public let path: String
    /// "test", "reference" or "resource".
    public let role: String
    public let format: String
    /// The `expected_outcome` column: "ok", "error", "reference-tool-fails" or "limit".
    public let outcome: String
    public let width: Int?
    public let height: Int?
    /// Frames (AVIF), top-level images (HEIF) or pages (PDF).
    public let framesOrPages: Int?
    /// "yes" / "no"; nil for "-" (formats without a raster alpha).
    public let hasAlpha: Bool?
    public let bitDepth: Int?
    public let details: String
    public let referenceTool: String
    public let referenceResult: String
}

/// Reads the shared corpus's manifest, the way every plugin's corpus tests did on their own.
public enum CorpusManifest {
    /// The rows of `corpus`/manifest.tsv whose role is "test", columns found by the header's names. Rows with
    /// fewer fields than the header needs are skipped.
    public static func testRows(in corpus: String) throws -> [CorpusManifestRow] {
        let text = try String(contentsOfFile: corpus + "/manifest.tsv", encoding: .utf8)
        let lines = text.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        guard let header = lines.first else { throw TestSupportError("manifest.tsv is empty") }
        let names = ["path", "role", "format", "expected_outcome", "width", "height", "frames_or_pages", "has_alpha",
                     "bit_depth", "details", "reference_tool", "reference_result"]
        let columns = try names.map { name in
            guard let index = header.firstIndex(of: name) else { throw TestSupportError("manifest.tsv lacks the column \(name)") }
            return index
        }
        let needed = columns.max()! + 1
        return lines.dropFirst().compactMap { fields in
            guard fields.count >= needed else { return nil }
            let f = columns.map { fields[$0] }
            guard f[1] == "test" else { return nil }
            return CorpusManifestRow(
                path: f[0], role: f[1], format: f[2], outcome: f[3], width: Int(f[4]), height: Int(f[5]),
                framesOrPages: Int(f[6]), hasAlpha: f[7] == "yes" ? true : f[7] == "no" ? false : nil,
                bitDepth: Int(f[8]), details: f[9], referenceTool: f[10], referenceResult: f[11])
        }
    }
}
