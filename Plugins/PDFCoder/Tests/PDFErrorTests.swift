import Foundation
import PipelineHost
import Testing
import TestSupport

/// Sniffing, malformed input and passwords: every failure is a clear error, never a crash.
@Suite("PDF sniffing and errors")
struct PDFErrorTests {
    static let threePages = PDFWriter([
        .init(mediaBox: "0 0 200 100", content: Draw.corners),
        .init(mediaBox: "0 0 200 100", content: Draw.stripes),
        .init(mediaBox: "0 0 200 100", content: Draw.corners),
    ]).bytes

    @Test("%PDF- at offset 0 picks the PDF coder")
    func sniffHeader() throws {
        #expect(try PDFTest.coders().coder(forData: Self.threePages)?.descriptor.id == PDFTest.coderID)
    }

    @Test("%PDF- after junk within the first 1024 bytes is still a PDF, and decodes")
    func sniffLeadingJunk() throws {
        let pdf = Array(String(repeating: "junk before the header\n", count: 40).utf8) + Self.threePages
        #expect(try PDFTest.coders().coder(forData: pdf)?.descriptor.id == PDFTest.coderID)
        let image = try PDFTest.decode(pdf)
        #expect((image.width, image.height) == (200, 100))
    }

    @Test("text without %PDF- in the first 1024 bytes is not claimed")
    func sniffRejects() throws {
        let text = Array(String(repeating: "not a pdf at all\n", count: 70).utf8) + Self.threePages
        #expect(try PDFTest.coders().coder(forData: text) == nil)
        #expect(try PDFTest.coders().coder(forData: Array("hello".utf8)) == nil)
    }

    @Test("a truncated PDF (first half of a 3-page file) is an error, not a crash")
    func truncated() throws {
        let half = Array(Self.threePages.prefix(Self.threePages.count / 2))
        let error = try #require(try PDFTest.decodeError(half))
        #expect(error.status == .truncated || error.status == .invalidData, "\(error)")
    }

    @Test("truncations at many lengths never crash", arguments: [10, 40, 100, 300, 600, 900])
    func truncatedAnywhere(_ length: Int) throws {
        let cut = Array(Self.threePages.prefix(length))
        if let error = try PDFTest.decodeError(cut) {
            #expect([.truncated, .invalidData, .notFound].contains(error.status), "\(error)")
        }
    }

    @Test("a header followed by garbage is INVALID_DATA or TRUNCATED")
    func garbage() throws {
        var generator = SystemRandomNumberGenerator()
        let noise = (0..<2000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let error = try #require(try PDFTest.decodeError(Array("%PDF-1.7\n".utf8) + noise))
        #expect(error.status == .truncated || error.status == .invalidData, "\(error)")
    }

    /// Ghostscript, when installed, encrypts a generated PDF with RC4-128 (nil when it is not installed).
    static func encrypted() throws -> [UInt8]? {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/gs") else { return nil }
        let folder = try TestPaths.temporaryDirectory("pdf-encrypted")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try TestFiles.write(Self.threePages, to: folder + "/plain.pdf")
        let result = try CommandLine.run("/usr/bin/gs", [
            "-q", "-dNOPAUSE", "-dBATCH", "-dSAFER", "-sDEVICE=pdfwrite", "-sOwnerPassword=owner-secret",
            "-sUserPassword=user-secret", "-dEncryptionR=3", "-dKeyLength=128", "-o", folder + "/encrypted.pdf",
            folder + "/plain.pdf",
        ])
        guard result.status == 0 else { throw TestSupportError("gs failed: \(result.stderr)") }
        return try TestFiles.read(folder + "/encrypted.pdf")
    }

    @Test("an encrypted PDF needs its password: none is UNSUPPORTED 'password required'; user or owner password opens it")
    func password() throws {
        guard let pdf = try Self.encrypted() else { try Skip.because("ghostscript (/usr/bin/gs) is missing", bootstrapProvides: true) }
        let none = try #require(try PDFTest.decodeError(pdf))
        #expect(none.status == .unsupported)
        #expect(none.description.contains("password required"), "\(none)")

        let user = try PDFTest.decode(pdf, DecodeOptions(password: "user-secret"))
        #expect((user.width, user.height) == (200, 100))
        #expect(user.rgba(10, 90) == [255, 0, 0, 255])
        let owner = try PDFTest.decode(pdf, DecodeOptions(pageIndex: 2, password: "owner-secret"))
        #expect(owner.index == 2)
        #expect(try PDFTest.probe(pdf, DecodeOptions(password: "user-secret")).pageCount == 3)
    }

    /// Regression: poppler 22.12's poppler_document_new_from_bytes dereferences NULL when a non-NULL password
    /// fails (its UTF-8 retry casts a copied stream to the wrong class). The plugin must not take that path.
    @Test("a wrong password is UNSUPPORTED 'incorrect', not a crash in poppler")
    func wrongPassword() throws {
        guard let pdf = try Self.encrypted() else { try Skip.because("ghostscript (/usr/bin/gs) is missing", bootstrapProvides: true) }
        for password in ["wrong", ""] {
            let error = try #require(try PDFTest.decodeError(pdf, DecodeOptions(password: password)))
            #expect(error.status == .unsupported)
            #expect(error.description.contains("incorrect"), "\(error)")
        }
    }

    @Test("a password given for a document that needs none is ignored")
    func passwordNotNeeded() throws {
        let image = try PDFTest.decode(Self.threePages, DecodeOptions(password: "anything"))
        #expect((image.width, image.height) == (200, 100))
    }

    @Test("the corpus's PDFs with an empty user password open without one; a password-protected one does not", .requiresCorpus)
    func corpusEncryption() throws {
        guard let corpus = TestPaths.corpus else { try Skip.because("corpus not found (../shared/corpus)", bootstrapProvides: false) }
        let emptyPassword = corpus + "/pdf/pdfjs-empty_protected.pdf"
        if FileManager.default.fileExists(atPath: emptyPassword) {
            let bytes = try TestFiles.read(emptyPassword)
            #expect((try PDFTest.decode(bytes)).width == 612)
            #expect((try PDFTest.decode(bytes, DecodeOptions(password: "not it"))).width == 612)
        }
        let protected = corpus + "/bad/pdfjs-saslprep-r6.pdf"
        if FileManager.default.fileExists(atPath: protected) {
            let bytes = try TestFiles.read(protected)
            let error = try #require(try PDFTest.decodeError(bytes))
            #expect(error.status == .unsupported && error.description.contains("password required"), "\(error)")
            let wrong = try #require(try PDFTest.decodeError(bytes, DecodeOptions(password: "wrong")))
            #expect(wrong.status == .unsupported, "\(wrong)")
        }
    }
}
