import PluginAPI
import PluginKit

/// The TIFF plugin: one coder over libtiff.
let pluginEntry = PluginEntry.make(
    id: "org.imagepipe.tiff", name: "TIFF", version: "1.0.0",
    description: "TIFF and BigTIFF decoder and TIFF encoder (libtiff 4.5): every compression libtiff reads, strips and "
        + "tiles, pages, pyramids as shrink-on-load, orientation, palette, grey, YCbCr, naive CMYK, alpha; writes "
        + "Deflate/LZW, 8/16-bit, alpha, ICC, pages",
    coders: [tiffCoder])

/// The plugin's only exported symbol.
@_cdecl("imagepipe_plugin_entry")
public func imagepipe_plugin_entry() -> UnsafePointer<ip_plugin_entry> { pluginEntry.pointer }
