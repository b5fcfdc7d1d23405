import PluginAPI
import PluginKit

/// The PNG plugin: one coder, decoding through libpng, encoding through libdeflate (libpng for interlaced output).
let pluginEntry = PluginEntry.make(
    id: "org.imagepipe.png", name: "PNG", version: "1.0.0",
    description: "PNG decoder and encoder (libpng, libdeflate): 1/2/4/8/16-bit gray, RGB, palette, alpha, tRNS, interlaced",
    coders: [pngCoder])

/// The plugin's only exported symbol.
@_cdecl("imagepipe_plugin_entry")
public func imagepipe_plugin_entry() -> UnsafePointer<ip_plugin_entry> { pluginEntry.pointer }
