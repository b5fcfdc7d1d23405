import PluginAPI
import PluginKit

/// The JPEG plugin: one coder, decoding and encoding through libjpeg-turbo.
let pluginEntry = PluginEntry.make(
    id: "org.imagepipe.jpeg", name: "JPEG", version: "1.0.0",
    description: "JPEG decoder and encoder (libjpeg-turbo): baseline, progressive, gray, YCbCr, CMYK, "
        + "shrink-on-load, Exif orientation, incremental previews",
    coders: [jpegCoder])

/// The plugin's only exported symbol.
@_cdecl("imagepipe_plugin_entry")
public func imagepipe_plugin_entry() -> UnsafePointer<ip_plugin_entry> { pluginEntry.pointer }
