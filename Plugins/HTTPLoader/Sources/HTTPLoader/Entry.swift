import PluginAPI
import PluginKit

/// Placeholder entry until the plugin is written: it provides nothing, so the host refuses it.
nonisolated(unsafe) let pluginEntry = PluginEntry.make(
    id: "org.imagepipe.placeholder.HTTPLoader", name: "HTTPLoader", version: "0.0.0", description: "placeholder")

@_cdecl("imagepipe_plugin_entry")
public func imagepipe_plugin_entry() -> UnsafePointer<ip_plugin_entry> { pluginEntry }
