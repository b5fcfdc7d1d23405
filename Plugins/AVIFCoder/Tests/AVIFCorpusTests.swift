import Foundation
import PipelineHost
import TestSupport
import Testing

/// The shared third-party corpus (../shared/corpus), driven by manifest.tsv: every AVIF row of avif/ and bad/.
@Suite struct AVIFCorpusTests {
    /// Files the manifest marks `reference-tool-fails` that this plugin's policy decodes: strict libavif refuses
    /// them for a clap at an odd offset and for a missing pixi, two checks the plugin relaxes (see README).
    static let decodedDespiteStrictAvifdec: Set = ["avif/kimono.crop.avif", "avif/libheif-example.avif"]

    /// Valid files: sniffed as AVIF; probe and decode give the manifest's display size (after clap/irot), frame
    /// count, alpha and bit depth; probe reports loop count "not stated".
    @Test(.requiresCorpus) func validFilesMatchTheManifest() throws {
        guard let (corpus, rows) = try AVIFTest.manifestRows() else { try Skip.because("corpus not found (../shared/corpus or IMAGEPIPE_CORPUS)", bootstrapProvides: false) }
        let valid = rows.filter { $0.outcome == "ok" && $0.path.hasPrefix("avif/") || Self.decodedDespiteStrictAvifdec.contains($0.path) }
        #expect(valid.count >= 38)
        var decodedPixels = 0
        for row in valid {
            let bytes = try TestFiles.read(corpus + "/" + row.path)
            #expect(try AVIFTest.coders().coder(forData: bytes)?.descriptor.id == AVIFTest.coderID, "\(row.path) not sniffed")
            let info = try AVIFTest.probe(bytes)
            #expect((info.width, info.height) == (row.width, row.height), "\(row.path): probe \(info.width)x\(info.height)")
            if let frames = row.framesOrPages { #expect(info.frameCount == frames, "\(row.path): \(info.frameCount) frames") }
            if let alpha = row.hasAlpha { #expect(info.hasAlpha == alpha, "\(row.path): alpha") }
            if let depth = row.bitDepth { #expect(info.bitDepth == depth, "\(row.path): depth \(info.bitDepth)") }
            #expect(info.loopCount == nil, "\(row.path): libavif 0.11 cannot know a loop count")
            #expect(info.format == "avif")
            let image = try AVIFTest.decode(bytes, DecodeOptions(highBitDepth: true))
            #expect((image.width, image.height) == (row.width, row.height), "\(row.path): decode \(image.width)x\(image.height)")
            #expect(image.pixelFormat == (info.bitDepth > 8 ? .rgba16 : .rgba8), "\(row.path)")
            #expect(image.hasAlpha == info.hasAlpha, "\(row.path): alpha mode \(image.alphaMode)")
            decodedPixels += image.width * image.height
        }
        print("corpus: \(valid.count) valid AVIF files probed and decoded (\(decodedPixels / 1_000_000) MP)")
    }

    /// Files avifdec 0.11 itself cannot read (two ipma boxes; an audio track): a clean error or an image of the
    /// manifest's size, never a crash. Today they all fail with INVALID_DATA, as libavif refuses them while parsing.
    @Test(.requiresCorpus) func filesTheReferenceToolRejects() throws {
        guard let (corpus, rows) = try AVIFTest.manifestRows() else { return }
        for row in rows where row.outcome == "reference-tool-fails" && !Self.decodedDespiteStrictAvifdec.contains(row.path) {
            let bytes = try TestFiles.read(corpus + "/" + row.path)
            do {
                let image = try AVIFTest.decode(bytes)
                #expect((image.width, image.height) == (row.width, row.height), "\(row.path)")
            } catch let error as PipelineError {
                #expect(error.status == .invalidData, "\(row.path): \(error)")
                print("corpus \(row.path): \(error)")
            }
        }
    }

    /// bad/: each must be refused with the right kind of error, never crash, never allocate the claimed size.
    @Test(.requiresCorpus) func badFilesAreRefused() throws {
        guard let (corpus, rows) = try AVIFTest.manifestRows() else { return }
        let expected: [String: PluginStatus] = [
            "bad/alpha_noispe.avif": .invalidData,  // strict alpha ispe check, kept
            "bad/made-fox-truncated-half.avif": .truncated,
            "bad/made-white_1x1-ispe-65535x65535.avif": .limitExceeded,  // above libavif's 32768 dimension limit
            "bad/sofa_grid1x5_420_dimg_repeat.avif": .invalidData,
        ]
        // Not sniffed as AVIF at all: the host reports an unknown format without calling the coder.
        let notAVIF: Set = ["bad/made-empty.avif", "bad/made-one-byte.avif", "bad/made-png-named-as.avif"]
        for row in rows where row.path.hasPrefix("bad/") {
            let bytes = try TestFiles.read(corpus + "/" + row.path)
            let chosen = try AVIFTest.coders().coder(forData: bytes)
            #expect((chosen == nil) == notAVIF.contains(row.path), "\(row.path): sniffed \(chosen?.descriptor.id ?? "nil")")
            do {
                _ = try AVIFTest.decode(bytes)
                Issue.record("\(row.path) decoded")
            } catch let error as PipelineError {
                if let wanted = expected[row.path] {
                    #expect(error.status == wanted, "\(row.path): \(error)")
                } else if notAVIF.contains(row.path), case .unknownFormat = error {
                } else {
                    Issue.record("\(row.path): unexpected \(error)")
                }
                print("corpus \(row.path): \(error)")
            }
        }
    }

    /// Every other file of bad/ (any format) never crashes the AVIF coder: not sniffed, or an error.
    @Test(.requiresCorpus) func otherHostileFilesNeverCrash() throws {
        let corpus = try Skip.unlessCorpus()
        let names = try FileManager.default.contentsOfDirectory(atPath: corpus + "/bad").sorted()
        for name in names where !name.hasSuffix(".avif") {
            let bytes = try TestFiles.read(corpus + "/bad/" + name)
            if try AVIFTest.coders().coder(forData: bytes) != nil {
                #expect(AVIFTest.decodeStatus(bytes) != nil, "\(name) decoded as AVIF")
            }
        }
    }

    /// HEIF files are not AVIF, except the one whose ftyp names the avif brand (an AV1 item in a .heif file).
    @Test(.requiresCorpus) func heifFilesAreNotClaimed() throws {
        let corpus = try Skip.unlessCorpus()
        for name in try FileManager.default.contentsOfDirectory(atPath: corpus + "/heif").sorted() {
            let bytes = try TestFiles.read(corpus + "/heif/" + name)
            let chosen = try AVIFTest.coders().coder(forData: bytes)?.descriptor.id
            #expect((chosen == AVIFTest.coderID) == (name == "libheif-avif32.heif"), "\(name): \(chosen ?? "not claimed")")
        }
        if let bytes = try AVIFTest.corpusFile("heif/libheif-avif32.heif") {
            #expect(try AVIFTest.decode(bytes).width == 32)
        }
    }
}
