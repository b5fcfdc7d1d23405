import CAVIF
import PluginAPI
import PluginKit

/// True when this libavif build has an AV1 encoder (aom on Debian). Checked once, when the descriptor is built,
/// so the coder has no encoder (and so no IP_CODER_CAN_ENCODE) on a build without one.
let avifCanEncode = avifCodecName(AVIF_CODEC_CHOICE_AUTO, AVIF_CODEC_FLAG_CAN_ENCODE.rawValue) != nil

/// Routing data for AVIF.
///
/// "ftyp" at offset 4 is shared by every ISO-BMFF format (HEIF, MP4, ...), so the pattern only makes the file a
/// candidate and `sniff` reads the brand list (AVIFSniffer).
/// IP_CODER_FAST_THUMBNAIL without IP_CODER_SCALES: AV1 has no reduced-resolution decode, but a thumbnail's YUV planes
/// are averaged in blocks before the colour conversion (AVIFReduction), and the host resamples that reduced image.
/// IP_CODER_INCREMENTAL: previews from the layers of layered files and the rows of grid images (AVIFIncremental).
/// IP_CODER_THREAD_SAFE: every call creates its own avifDecoder / avifEncoder and the plugin keeps no shared state.
let avifDescriptor = Descriptors.coder(
    id: "org.imagepipe.coder.avif/1", name: "AVIF (libavif)", version: "1.0.0", format: "avif",
    mimeTypes: ["image/avif", "image/avif-sequence"], extensions: ["avif", "avifs"],
    capabilities: IP_CODER_THREAD_SAFE | IP_CODER_FAST_THUMBNAIL,
    patterns: [MagicPattern(offset: 4, ascii: "ftyp", relevance: 100, confirmWithSniff: true)],
    sniffBytes: AVIFSniffer.wantedBytes)

/// The coder's table, built by the kit from the implementations.
let avifCoder = CoderTable.make(descriptor: avifDescriptor, sniffer: AVIFSniffer.self, decoder: AVIFDecoding.self,
                                frames: AVIFFrameIterator.self, incremental: AVIFIncrementalDecoder.self,
                                encoder: avifCanEncode ? AVIFEncoding.self : nil)

extension AVIFSniffer: ImageSniffing {}
extension AVIFDecoding: PluginDecoding {}
extension AVIFFrameIterator: FrameIterating {}
extension AVIFIncrementalDecoder: IncrementalDecoding {}
extension AVIFEncoding: PluginEncoding {}
