import PluginAPI
import PluginKit

/// The WebP plugin: one coder over libwebp, libwebpdemux and libwebpmux.
let pluginEntry = PluginEntry.make(
    id: "org.imagepipe.webp", name: "WebP", version: "1.0.0",
    description: "WebP decoder and encoder (libwebp 1.2): lossy, lossless, alpha, animation, incremental, shrink-on-load",
    coders: [webpCoder])

/// The plugin's only exported symbol.
@_cdecl("imagepipe_plugin_entry")
public func imagepipe_plugin_entry() -> UnsafePointer<ip_plugin_entry> { pluginEntry.pointer }
