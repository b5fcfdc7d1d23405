import PluginAPI
import PluginKit

/// The GIF plugin: one coder, decoding (composited animation frames) and encoding through giflib.
let pluginEntry = PluginEntry.make(
    id: "org.imagepipe.gif", name: "GIF", version: "1.0.0",
    description: "GIF decoder and encoder (giflib 5.2): animation with disposal, transparency, interlacing, loop count",
    coders: [gifCoder])

/// The plugin's only exported symbol.
@_cdecl("imagepipe_plugin_entry")
public func imagepipe_plugin_entry() -> UnsafePointer<ip_plugin_entry> { pluginEntry.pointer }
