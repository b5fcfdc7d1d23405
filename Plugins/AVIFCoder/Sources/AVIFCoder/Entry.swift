import PluginAPI
import PluginKit

/// The AVIF plugin: one coder, decoding through libavif 0.11 + dav1d and encoding through libavif + libaom.
let pluginEntry = PluginEntry.make(
    id: "org.imagepipe.avif", name: "AVIFCoder", version: "1.0.0",
    description: "AVIF stills and sequences (libavif 0.11: dav1d decode, aom encode): 8/10/12-bit, "
        + "4:0:0-4:4:4, alpha, clap/irot/imir applied",
    coders: [avifCoder])

/// The plugin's only exported symbol.
@_cdecl("imagepipe_plugin_entry")
public func imagepipe_plugin_entry() -> UnsafePointer<ip_plugin_entry> { pluginEntry.pointer }
