import Foundation
import PipelineHost
import TestSupport

/// Shared setup for the AVIF coder's tests: one host that loaded only libAVIFCoder.so, file helpers, the corpus.
enum AVIFTest {
    static let coderID = "org.imagepipe.coder.avif/1"

    /// One host for every test (loading copies the .so and dlopens it; once is enough, the coder is thread-safe).
    private static let loaded = Result { try PluginSandbox.host(loading: ["libAVIFCoder.so"]) }

    static func host() throws -> PluginHost { try loaded.get() }
    static func coders() throws -> CodersManager { try host().coders }

    static func decode(_ bytes: [UInt8], _ options: DecodeOptions = DecodeOptions()) throws -> Image {
        try coders().decode(data: bytes, options: options)
    }

    static func probe(_ bytes: [UInt8], _ options: DecodeOptions = DecodeOptions()) throws -> ImageInfo {
        try coders().probe(data: bytes, options: options)
    }

    /// Every frame of `bytes` through the host's lazy frame reader.
    static func frames(_ bytes: [UInt8], _ options: DecodeOptions = DecodeOptions()) throws -> [Image] {
        try coders().frames(data: bytes, options: options).readAll()
    }

    /// The status a failing decode reports (nil when it succeeds).
    static func decodeStatus(_ bytes: [UInt8], _ options: DecodeOptions = DecodeOptions()) -> PluginStatus? {
        failureStatus { _ = try decode(bytes, options) }
    }

    /// A file of the corpus; the calling test ends skipped when the corpus is absent (never nil).
    static func corpusFile(_ relative: String) throws -> [UInt8]? {
        guard let corpus = TestPaths.corpus else { try Skip.because("corpus not found (../shared/corpus or IMAGEPIPE_CORPUS)", bootstrapProvides: false) }
        return try TestFiles.read(corpus + "/" + relative)
    }

    /// Every AVIF test row of the corpus manifest (avif/ and bad/); the calling test ends skipped without the corpus.
    static func manifestRows() throws -> (corpus: String, rows: [CorpusManifestRow])? {
        let corpus = try Skip.unlessCorpus()
        return (corpus, try CorpusManifest.testRows(in: corpus).filter { $0.format == "avif" })
    }
}
