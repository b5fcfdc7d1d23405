import CHEIF
import PluginAPI
import PluginKit

/// Process-wide facts about libheif, and its one-time initialisation.
enum LibHEIF {
    /// libheif's own per-side limit (MAX_IMAGE_WIDTH/HEIGHT in 1.15); the host's limit only ever tightens it.
    static let defaultMaximumDimension: UInt32 = 32768

    /// True when libheif can encode HEVC here (Debian's libheif1 1.15 links x265 in). Asked while the descriptor
    /// is built, before the host's init: it only reads libheif's built-in plugin list, which exists from load time.
    static let canEncodeHEVC: Bool = heif_have_encoder_for_format(heif_compression_HEVC) != 0

    /// Runs heif_init once, before the first context is used; never paired with heif_deinit.
    ///
    /// Why it is needed although built-in codecs work without it: libheif 1.15 fills its colour-conversion table
    /// lazily and without a lock on the first conversion unless heif_init did it, so two first decodes on two
    /// threads would race. Holding one reference for the life of the process also keeps another user of libheif in
    /// this process from unregistering the codecs with its own heif_deinit. Side effect (libheif's, documented in
    /// the README): heif_init loads codec plugins from LIBHEIF_PLUGIN_PATH or Debian's plugin folder if any exist.
    static func ensureInitialised() { _ = initialised }

    /// A Swift global, so heif_init runs exactly once (thread-safe lazy initialisation). A failure (a broken
    /// external plugin) is logged, not fatal: the built-in codecs and the conversion table are set up before it.
    private static let initialised: Bool = {
        let result = heif_init(nil)
        guard result.code == heif_error_Ok else {
            let text = result.message.map { String(cString: $0) } ?? "code \(result.code.rawValue)"
            Host.log(IP_LOG_WARNING, "heif_init reported: \(text); continuing with the built-in codecs")
            return false
        }
        return true
    }()
}
