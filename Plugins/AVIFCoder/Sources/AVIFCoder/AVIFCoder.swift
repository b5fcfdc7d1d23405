import CAVIF
import PluginAPI
import PluginKit

/// True when this libavif build has an AV1 encoder (aom on Debian). Checked once, when the descriptor is built,
/// so the coder never claims IP_CODER_CAN_ENCODE on a build without one.
let avifCanEncode = avifCodecName(AVIF_CODEC_CHOICE_AUTO, AVIF_CODEC_FLAG_CAN_ENCODE.rawValue) != nil

/// Routing data for AVIF. (`nonisolated(unsafe)`: written once by its initialiser, then immutable C data.)
///
/// "ftyp" at offset 4 is shared by every ISO-BMFF format (HEIF, MP4, ...), so the pattern only makes the file a
/// candidate and `sniff` reads the brand list (AVIFSniffer).
/// Not IP_CODER_SCALES: AV1 has no reduced-resolution decode, so the host resamples the full-size result.
/// IP_CODER_INCREMENTAL: previews from the layers of layered files and the rows of grid images (AVIFIncremental).
/// IP_CODER_THREAD_SAFE: every call creates its own avifDecoder / avifEncoder and the plugin keeps no shared state.
nonisolated(unsafe) let avifDescriptor = Descriptors.coder(
    id: "org.imagepipe.coder.avif/1", name: "AVIF (libavif)", version: "1.0.0", format: "avif",
    mimeTypes: ["image/avif", "image/avif-sequence"], extensions: ["avif", "avifs"],
    capabilities: IP_CODER_CAN_DECODE | IP_CODER_ANIMATED | IP_CODER_INCREMENTAL | IP_CODER_THREAD_SAFE
        | (avifCanEncode ? IP_CODER_CAN_ENCODE : 0),
    patterns: [MagicPattern(offset: 4, ascii: "ftyp", relevance: 100, confirmWithSniff: true)],
    sniffBytes: AVIFSniffer.wantedBytes)

/// The coder's vtable. Each slot is a non-capturing C closure that enters Swift through `withStatus`.
nonisolated(unsafe) let avifCoder = StaticStorage.value(ip_coder(
    struct_size: UInt32(MemoryLayout<ip_coder>.size),
    descriptor: avifDescriptor,
    sniff: { data, size in AVIFSniffer.sniff(data, size) },
    probe: { request, info, message in withStatus(message) { try AVIFDecoding.probe(request, into: info) } },
    decode: { request, image, message in withStatus(message) { try AVIFDecoding.decode(request, into: image) } },
    frames_open: { request, iterator, message in
        withStatus(message) { try AVIFFrameIterator.open(request, into: iterator) }
    },
    frames_next: { iterator, call, frame, message in
        withStatus(message) { try AVIFFrameIterator.next(iterator, call: call, into: frame) }
    },
    frames_close: { iterator in AVIFFrameIterator.close(iterator) },
    incremental_open: { options, decoder, message in
        withStatus(message) { try AVIFIncrementalDecoder.open(options, into: decoder) }
    },
    incremental_update: { decoder, data, size, isFinal, call, image, message in
        withStatus(message) {
            try AVIFIncrementalDecoder.update(decoder, data: data, size: size, isFinal: isFinal != 0, call: call, into: image)
        }
    },
    incremental_close: { decoder in AVIFIncrementalDecoder.close(decoder) },
    encode: avifCanEncode
        ? { frames, count, options, call, sink, message in
            withStatus(message) {
                try AVIFEncoding.encode(frames: frames, count: count, options: options, call: call, sink: sink)
            }
        }
        : nil))
