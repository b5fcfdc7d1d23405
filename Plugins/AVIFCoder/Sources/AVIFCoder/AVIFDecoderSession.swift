import CAVIF
import Glibc
import PluginAPI
import PluginKit

/// One libavif decoder over borrowed bytes, configured from a request's options; destroyed with the session.
///
/// The bytes are not copied (avifDecoderSetIOMemory): they must outlive the session, which the ABI guarantees
/// for a call and, for frame iterators, until frames_close. A streaming session (incremental decoding) reads an
/// AVIFStreamInput instead, which owns its copy of the bytes so far.
final class AVIFDecoderSession {
    let decoder: UnsafeMutablePointer<avifDecoder>
    private let memory: UnsafeBufferPointer<UInt8>
    private let stream: AVIFStreamInput?

    /// The input as far as it is known (all of it, except in a streaming session that is still receiving).
    var data: UnsafeBufferPointer<UInt8> { stream?.bytes ?? memory }

    /// The strictness policy: libavif's default (everything avifdec checks) minus two checks that reject real,
    /// otherwise valid files: CLAP_VALID refuses a clean aperture at an odd offset in 4:2:0 (kimono.crop.avif;
    /// this plugin crops after colour conversion, so any integral rectangle works) and PIXI_REQUIRED refuses files
    /// written by libheif <= 1.11 (libheif-example.avif). ALPHA_ISPE_REQUIRED stays: an alpha item without its
    /// size is refused, as avifdec does.
    static let strictFlags: avifStrictFlags = AVIF_STRICT_ALPHA_ISPE_REQUIRED.rawValue

    init(data: UnsafeBufferPointer<UInt8>, options: DecodeOptionsCopy) throws {
        guard let base = data.baseAddress, !data.isEmpty else { throw PluginFailure.invalidData("empty input") }
        guard let decoder = avifDecoderCreate() else {
            throw PluginFailure(IP_STATUS_NO_MEMORY, "libavif could not create a decoder")
        }
        self.decoder = decoder
        memory = data
        stream = nil
        Self.configure(decoder, options)
        try check(avifDecoderSetIOMemory(decoder, base, data.count), "to read the input")
    }

    /// A session over bytes that are still arriving: parse and decode return AVIF_RESULT_WAITING_ON_IO until the
    /// bytes they need are in `input`. Grid cells are decoded as they arrive (allowIncremental) and the layers of a
    /// layered ("progressive") file become frames (allowProgressive), except when the request's frame limit is
    /// below 4: libavif counts layers (at most 4 in AV1) against imageCountLimit and would refuse the file, which
    /// the one-shot decode (best layer only) does not.
    init(stream input: AVIFStreamInput, options: DecodeOptionsCopy) throws {
        guard let decoder = avifDecoderCreate() else {
            throw PluginFailure(IP_STATUS_NO_MEMORY, "libavif could not create a decoder")
        }
        self.decoder = decoder
        memory = UnsafeBufferPointer(start: nil, count: 0)
        stream = input
        Self.configure(decoder, options)
        decoder.pointee.allowIncremental = AVIF_TRUE
        // Exif can sit at the end of the file, and parsing would wait for it; nothing here uses it (AVIF has no
        // Exif orientation: irot/imir govern).
        decoder.pointee.ignoreExif = AVIF_TRUE
        let countLimit = decoder.pointee.imageCountLimit
        decoder.pointee.allowProgressive = countLimit == 0 || countLimit >= 4 ? AVIF_TRUE : AVIF_FALSE
        // Without a destroy function the decoder leaves the avifIO to `input`, which outlives the decoder.
        avifDecoderSetIO(decoder, input.io)
    }

    deinit { avifDecoderDestroy(decoder) }

    /// Limits, threads and strictness from the request (see README "Limits").
    private static func configure(_ decoder: UnsafeMutablePointer<avifDecoder>, _ options: DecodeOptionsCopy) {
        let threads = options.threads > 0 ? Int(options.threads) : sysconf(Int32(_SC_NPROCESSORS_ONLN))
        decoder.pointee.maxThreads = Int32(clamping: max(1, threads))
        decoder.pointee.strictFlags = strictFlags
        decoder.pointee.ignoreXMP = AVIF_TRUE  // only a probe reports it (AVIFDecoding.probe turns it back on)
        let limits = options.limits
        // libavif's own defaults (16384 x 16384 pixels, 32768 per side) are upper bounds: tighten, never widen.
        if limits.max_pixels > 0 {
            decoder.pointee.imageSizeLimit = UInt32(min(limits.max_pixels, UInt64(decoder.pointee.imageSizeLimit)))
        }
        if limits.max_dimension > 0 {
            decoder.pointee.imageDimensionLimit = min(limits.max_dimension, decoder.pointee.imageDimensionLimit)
        }
        // A caller that wants only the first frame never iterates, so only libavif's sanity limit applies then.
        if limits.max_frames > 0, options.flags & UInt32(IP_DECODE_FIRST_FRAME_ONLY) == 0 {
            decoder.pointee.imageCountLimit = limits.max_frames
        }
    }

    /// Reads the container (no AV1 decoding): sizes, depth, alpha, transforms, frame count and timing.
    func parse() throws { try check(avifDecoderParse(decoder), "to parse the file") }

    var image: UnsafeMutablePointer<avifImage> { decoder.pointee.image }
    var imageCount: Int { Int(decoder.pointee.imageCount) }
    var imageIndex: Int { Int(decoder.pointee.imageIndex) }
    var alphaPresent: Bool { decoder.pointee.alphaPresent != AVIF_FALSE }

    /// Decodes the next frame into `image`; false after the last one.
    func decodeNext() throws -> Bool {
        let result = avifDecoderNextImage(decoder)
        if result == AVIF_RESULT_NO_IMAGES_REMAINING { return false }
        try check(result, "to decode frame \(imageIndex + 1)")
        return true
    }

    /// Decodes frame `index` (libavif decodes from the nearest keyframe before it).
    func decode(frame index: Int) throws {
        try check(avifDecoderNthImage(decoder, UInt32(index)), "to decode frame \(index)")
    }

    /// Display duration of the current frame in milliseconds (0 for a still image).
    var frameDurationMilliseconds: UInt32 {
        guard imageCount > 1 else { return 0 }
        let milliseconds = (decoder.pointee.imageTiming.duration * 1000).rounded()
        return milliseconds.isFinite && milliseconds > 0 ? UInt32(min(milliseconds, Double(UInt32.max))) : 0
    }

    /// Duration of frame `index` in milliseconds, read from the sample table without decoding.
    func durationMilliseconds(ofFrame index: Int) -> UInt32 {
        var timing = avifImageTiming()
        guard avifDecoderNthImageTiming(decoder, UInt32(index), &timing) == AVIF_RESULT_OK else { return 0 }
        let milliseconds = (timing.duration * 1000).rounded()
        return milliseconds.isFinite && milliseconds > 0 ? UInt32(min(milliseconds, Double(UInt32.max))) : 0
    }

    func check(_ result: avifResult, _ stage: String) throws {
        guard result != AVIF_RESULT_OK else { return }
        let diagnostics = withUnsafeBytes(of: decoder.pointee.diag.error) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        throw AVIFFailure.make(result, diagnostics: diagnostics, data: data, stage: stage)
    }
}
