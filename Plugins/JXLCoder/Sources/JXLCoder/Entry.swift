import PluginAPI
import PluginKit

/// The JPEG XL plugin: one coder over libjxl.
let pluginEntry = PluginEntry.make(
    id: "org.imagepipe.jxl", name: "JPEG XL", version: "1.0.0",
    description: "JPEG XL decoder and encoder (libjxl 0.7): lossy and lossless, 8/16-bit and float, grey, alpha, "
        + "animation, orientation, ICC and PQ/HLG colour",
    coders: [jxlCoder])

/// The plugin's only exported symbol.
@_cdecl("imagepipe_plugin_entry")
public func imagepipe_plugin_entry() -> UnsafePointer<ip_plugin_entry> { pluginEntry.pointer }
