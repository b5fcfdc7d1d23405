import PluginAPI
import PluginKit

/// Placeholder entry until the plugin is written.
nonisolated(unsafe) let pluginEntry = PluginEntry.make(
    id: "org.imagepipe.placeholder.PNGCoder", name: "PNGCoder", version: "0.0.0", description: "placeholder")

@_cdecl("imagepipe_plugin_entry")
public func imagepipe_plugin_entry() -> UnsafePointer<ip_plugin_entry> { pluginEntry }
