import CHEIF
import Glibc
import HEVCDecoder
import PluginAPI
import PluginKit

/// Decides how libde265 spreads one decode over the cores, just before libheif decodes.
///
/// A grid (phone photos are 512x512 tiles) is already parallel: libheif decodes up to `threads` tiles at once,
/// each on its own thread, so each tile's decoder works on that thread with no workers of its own (workers per
/// tile would multiply the thread count). A single coded picture gets the workers instead: libde265 decodes
/// wavefront rows in parallel, which is what makes a 12 MP HEIC from x265 decode about 1.7x faster on 2 cores.
enum HEVCThreads {
    /// The request's thread count (`DecodeOptionsCopy.threads`), or every online core when it is 0.
    static func count(requested: UInt32) -> Int {
        requested > 0 ? Int(min(requested, 64)) : max(1, min(64, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))))
    }

    static func prepare(for handle: HEIFHandle, view: DecodeRequestView) {
        guard HEVCDecoderInstall.installed else { return }
        let threads = count(requested: view.options.threads)
        ip_hevc_decoder_set_worker_threads(handle.isGrid || threads == 1 ? 0 : Int32(threads))
        ip_hevc_decoder_set_max_pixels(view.options.limits.max_pixels)
    }
}

/// Registers the threaded HEVC decoder with libheif once, after heif_init.
enum HEVCDecoderInstall {
    static let installed: Bool = {
        LibHEIF.ensureInitialised()
        let registered = ip_hevc_decoder_install() != 0
        if !registered {
            Host.log(IP_LOG_WARNING, "libheif refused the threaded HEVC decoder; using its own (one thread)")
        }
        return registered
    }()
}
