import PluginAPI
import PluginKit

/// The HTTP plugin: one libcurl-based loader for `http:` and `https:` URLs.
let pluginEntry = PluginEntry.make(
    id: "org.imagepipe.http", name: "HTTP", version: "1.0.0",
    description: "Loads http:// and https:// URLs through one libcurl multi handle (connection reuse, HTTP/2, "
        + "timeouts, redirects limited to http/https, size limit, streamed delivery)",
    loaders: [httpLoader])

/// The plugin's only exported symbol.
@_cdecl("imagepipe_plugin_entry")
public func imagepipe_plugin_entry() -> UnsafePointer<ip_plugin_entry> { pluginEntry.pointer }

/// The loader's table, built by the kit from the task type.
let httpLoader = LoaderTable.make(
    descriptor: Descriptors.loader(
        id: "org.imagepipe.loader.http/1", name: "HTTP", version: "1.0.0", schemes: ["http", "https"],
        capabilities: UInt64(IP_LOADER_THREAD_SAFE) | UInt64(IP_LOADER_KNOWS_SIZE) | UInt64(IP_LOADER_RANGES)),
    task: HTTPLoadTask.self)

extension HTTPLoadTask: LoadTask {}
