import PipelineHost
import Testing

extension CorpusManifest {
    /// The one check every coder's corpus tests make of the manifest's `bad/` rows of its format: decoding fails
    /// with a one-line `PipelineError`, or succeeds where the manifest allows either ("ok-or-error"); a crash or a
    /// hang ends the test run itself. Returns how many rows were checked, for the caller's own lower bound.
    @discardableResult
    public static func expectBadRowsFailCleanly(_ rows: [CorpusManifestRow], corpus: String, coders: CodersManager,
                                                sourceLocation: SourceLocation = #_sourceLocation) throws -> Int {
        let bad = rows.filter { $0.path.hasPrefix("bad/") }
        for row in bad {
            let bytes = try TestFiles.read(corpus + "/" + row.path)
            do {
                _ = try coders.decode(data: bytes)
                #expect(row.outcome == "ok-or-error", "\(row.path) decoded although the manifest says \(row.outcome)",
                        sourceLocation: sourceLocation)
            } catch let error as PipelineError {
                #expect(!"\(error)".contains("\n"), "\(row.path): \(error)", sourceLocation: sourceLocation)
            }
        }
        return bad.count
    }
}
