import Foundation
import PipelineHost
import TestSupport

/// Shared helpers for the HEIF coder's tests: one host with only libHEIFCoder.so, the corpus, and the
/// reference decoder (`heif-convert` from libheif-examples, read back through ImageMagick).
enum HEIFTest {
    static let coderID = "org.imagepipe.coder.heif/1"

    /// One host for every test (the coder is thread-safe; loading it once keeps the tests fast).
    private static let loaded = Result { try PluginSandbox.host(loading: ["libHEIFCoder.so"]) }

    static func host() throws -> PluginHost { try loaded.get() }

    static func decode(_ bytes: [UInt8], _ options: DecodeOptions = DecodeOptions()) throws -> Image {
        try host().coders.decode(data: bytes, options: options)
    }

    static func probe(_ bytes: [UInt8], _ options: DecodeOptions = DecodeOptions()) throws -> ImageInfo {
        try host().coders.probe(data: bytes, options: options)
    }

    /// The corpus folder; the calling test ends skipped when it is absent (never nil: the optional is historical).
    static func corpus(_ test: String) throws -> String? {
        guard let corpus = TestPaths.corpus else { try Skip.because("corpus not found (../shared/corpus or IMAGEPIPE_CORPUS)", bootstrapProvides: false) }
        return corpus
    }

    // MARK: Reference decoder

    static let heifConvert = "/usr/bin/heif-convert"
    static let convert = "/usr/bin/convert"

    /// True when heif-convert and ImageMagick are installed; otherwise the calling test ends skipped (a failure
    /// under make test: bootstrap installs both).
    static func hasReferenceTools(_ test: String) throws -> Bool {
        let fm = FileManager.default
        guard fm.isExecutableFile(atPath: heifConvert), fm.isExecutableFile(atPath: convert) else {
            try Skip.because("heif-convert (libheif-examples) or ImageMagick's convert is not installed", bootstrapProvides: true)
        }
        return true
    }

    /// A reference image as RGBA samples (0...255, or 0...65535 when `depth16`), tightly packed.
    struct Reference {
        let width: Int
        let height: Int
        let samples: [Int]

        /// heif-convert's `v << (16 - bits)` samples re-widened by bit replication, as the coder outputs them.
        func widened(fromBits bits: Int) -> Reference {
            Reference(width: width, height: height, samples: samples.map { sample in
                let v = sample >> (16 - bits)
                return v << (16 - bits) | v >> (2 * bits - 16)
            })
        }
    }

    /// Every top-level image of `path` as heif-convert writes it (file order), read back through ImageMagick.
    static func reference(_ path: String, depth16: Bool = false) throws -> [Reference] {
        let folder = try TestPaths.temporaryDirectory("heif-reference")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let run = try CommandLine.run(heifConvert, ["--quiet", path, folder + "/out.png"])
        guard run.status == 0 else { throw TestSupportError("heif-convert failed: \(run.stderr)") }
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".png") }
            .sorted { pageNumber($0) < pageNumber($1) }
        return try names.map { name in
            let image = try MagickRGBA.read(folder + "/" + name, depth: depth16 ? 16 : 8)
            return Reference(width: image.width, height: image.height, samples: image.samples.map(Int.init))
        }
    }

    /// heif-convert names several images out-1.png, out-2.png ...; a single one out.png.
    private static func pageNumber(_ name: String) -> Int {
        Int(name.split(separator: "-").last?.split(separator: ".").first ?? "") ?? 0
    }
}

/// How far a decoded image is from a reference of the same size: the largest channel difference and how many
/// samples differ at all. Alpha always counts; colour only where both are not fully transparent.
struct SampleDifference: CustomStringConvertible {
    var maxChannel = 0
    var differingSamples = 0
    var samples = 0

    init(_ image: Image, _ reference: HEIFTest.Reference) {
        precondition(image.width == reference.width && image.height == reference.height, "sizes differ")
        for y in 0..<image.height {
            for x in 0..<image.width {
                let p = image.pixel(x: x, y: y)
                let ours = [Int(p.r), Int(p.g), Int(p.b), Int(p.a)]
                let base = (y * image.width + x) * 4
                let theirs = Array(reference.samples[base..<base + 4])
                let channels = ours[3] == 0 && theirs[3] == 0 ? [3] : [0, 1, 2, 3]
                for channel in channels {
                    let difference = abs(ours[channel] - theirs[channel])
                    maxChannel = max(maxChannel, difference)
                    if difference > 0 { differingSamples += 1 }
                }
                samples += 4
            }
        }
    }

    var description: String { "max channel difference \(maxChannel), \(differingSamples) of \(samples) samples differ" }
}
