import PluginAPI
import PluginKit

/// The file plugin: one loader for `file:` URLs and plain absolute paths.
let pluginEntry = PluginEntry.make(
    id: "org.imagepipe.file", name: "File", version: "1.0.0",
    description: "Loads local files (file:// URLs and absolute paths), streamed in 256 KiB chunks, with a size limit",
    loaders: [fileLoader])

/// The plugin's only exported symbol.
@_cdecl("imagepipe_plugin_entry")
public func imagepipe_plugin_entry() -> UnsafePointer<ip_plugin_entry> { pluginEntry.pointer }

/// The loader's table, built by the kit from the task type.
let fileLoader = LoaderTable.make(
    descriptor: Descriptors.loader(
        id: "org.imagepipe.loader.file/1", name: "File", version: "1.0.0", schemes: ["file"],
        capabilities: UInt64(IP_LOADER_THREAD_SAFE) | UInt64(IP_LOADER_KNOWS_SIZE)),
    task: FileLoadTask.self)

extension FileLoadTask: LoadTask {}
