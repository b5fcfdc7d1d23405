import Foundation
import PipelineHost
import TestSupport

/// Shared host, fixtures and reference renderings for the PDF coder's tests.
enum PDFTest {
    static let coderID = "org.imagepipe.coder.pdf/1"

    /// One host for every test: the PDF coder is not thread-safe, and the host serialises calls per loaded
    /// coder, so sharing one host keeps parallel tests from running poppler concurrently.
    private static let loaded = Result { try PluginSandbox.host(loading: ["libPDFCoder.so"]) }

    static func coders() throws -> CodersManager { try loaded.get().coders }

    static func decode(_ bytes: [UInt8], _ options: DecodeOptions = DecodeOptions()) throws -> Image {
        try coders().decode(data: bytes, options: options)
    }

    static func probe(_ bytes: [UInt8], _ options: DecodeOptions = DecodeOptions()) throws -> ImageInfo {
        try coders().probe(data: bytes, options: options)
    }

    /// The error a decode throws, or nil when it succeeds.
    static func decodeError(_ bytes: [UInt8], _ options: DecodeOptions = DecodeOptions()) throws -> PipelineError? {
        do {
            _ = try decode(bytes, options)
            return nil
        } catch let error as PipelineError {
            return error
        }
    }
}

/// `pdftocairo` (poppler-utils, the same poppler as the plugin) renders the reference; ImageMagick turns its
/// PNG into straight RGBA8.
enum Reference {
    static let pdftocairo = "/usr/bin/pdftocairo"

    static var available: Bool { FileManager.default.isExecutableFile(atPath: pdftocairo) && MagickRGBA.convert != nil }
    static let missingMessage = "pdftocairo (poppler-utils) or ImageMagick's convert is missing; skipping the reference comparison"

    /// `pdftocairo -png -cropbox [-transp] -f N -l N -singlefile` at `size` (`-scale-to-x/-y`, a stretch to exactly
    /// those pixels) or at 72 dpi when nil. Returns the PNG's size and straight RGBA8 pixels.
    static func render(_ pdf: [UInt8], page: Int = 0, size: PixelSize?, transparent: Bool = false) throws
        -> (width: Int, height: Int, rgba: [UInt8])
    {
        guard MagickRGBA.convert != nil else { throw TestSupportError(missingMessage) }
        let folder = try TestPaths.temporaryDirectory("pdf-reference")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try TestFiles.write(pdf, to: folder + "/in.pdf")
        var arguments = ["-png", "-cropbox", "-f", String(page + 1), "-l", String(page + 1), "-singlefile"]
        if let size {
            arguments += ["-scale-to-x", String(size.width), "-scale-to-y", String(size.height)]
        } else {
            arguments += ["-r", "72"]
        }
        if transparent { arguments.append("-transp") }
        let render = try CommandLine.run(pdftocairo, arguments + [folder + "/in.pdf", folder + "/out"])
        guard render.status == 0 else { throw TestSupportError("pdftocairo failed: \(render.stderr)") }
        let image = try MagickRGBA.read(folder + "/out.png", operations: ["-alpha", "on"])
        return (image.width, image.height, image.bytes)
    }
}

/// How far a decoded image is from a reference rendering.
///
/// The metric: the share of pixels whose every channel is within ±`tolerance`, plus the largest difference seen.
/// Both images are compared as straight RGBA8; a premultiplied image is compared against the reference
/// premultiplied the same way (so fully transparent pixels compare equal whatever colour they carry).
///
/// pdftocairo computes its canvas as ceil(points x scale), which floating-point error can push one pixel past the
/// requested size (e.g. 201 rows for 200); only the top-left overlap is compared then, and a larger gap throws.
struct PixelComparison: CustomStringConvertible {
    let pixels: Int
    let withinTolerance: Int
    let maxChannel: Int
    let tolerance: Int

    init(_ image: Image, reference: (width: Int, height: Int, rgba: [UInt8]), tolerance: Int = 2) throws {
        guard reference.width - image.width >= 0, reference.width - image.width <= 1,
              reference.height - image.height >= 0, reference.height - image.height <= 1 else {
            throw TestSupportError("reference is \(reference.width)x\(reference.height), image \(image.width)x\(image.height)")
        }
        let ours = image.bytes
        let premultiply = image.alphaMode == .premultiplied
        var within = 0, worst = 0
        for y in 0..<image.height {
            for x in 0..<image.width {
                let o = (y * image.width + x) * 4, r = (y * reference.width + x) * 4
                let alpha = Int(reference.rgba[r + 3])
                var pixelWorst = abs(Int(ours[o + 3]) - alpha)
                for channel in 0..<3 {
                    var expected = Int(reference.rgba[r + channel])
                    if premultiply { expected = (expected * alpha + 127) / 255 }
                    pixelWorst = max(pixelWorst, abs(Int(ours[o + channel]) - expected))
                }
                worst = max(worst, pixelWorst)
                if pixelWorst <= tolerance { within += 1 }
            }
        }
        pixels = image.width * image.height
        withinTolerance = within
        maxChannel = worst
        self.tolerance = tolerance
    }

    var shareWithin: Double { Double(withinTolerance) / Double(max(1, pixels)) }

    var description: String {
        let percent = (shareWithin * 10000).rounded() / 100
        return "\(percent)% of \(pixels) pixels within ±\(tolerance), max channel difference \(maxChannel)"
    }
}
