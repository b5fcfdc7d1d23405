import PluginAPI
import PluginKit

/// The file plugin: one loader for `file:` URLs and plain absolute paths.
nonisolated(unsafe) let pluginEntry = PluginEntry.make(
    id: "org.imagepipe.file", name: "File", version: "1.0.0",
    description: "Loads local files (file:// URLs and absolute paths), streamed in 256 KiB chunks, with a size limit",
    loaders: [fileLoader])

/// The plugin's only exported symbol.
@_cdecl("imagepipe_plugin_entry")
public func imagepipe_plugin_entry() -> UnsafePointer<ip_plugin_entry> { pluginEntry }

/// The loader's vtable. Each slot is a non-capturing C function that hands over to `FileLoadTask`.
nonisolated(unsafe) let fileLoader = StaticStorage.value(ip_loader(
    struct_size: UInt32(MemoryLayout<ip_loader>.size),
    descriptor: Descriptors.loader(
        id: "org.imagepipe.loader.file/1", name: "File", version: "1.0.0", schemes: ["file"],
        capabilities: UInt64(IP_LOADER_THREAD_SAFE) | UInt64(IP_LOADER_KNOWS_SIZE)),
    start: { request, callbacks, task, message in
        withStatus(message) {
            guard let task else { throw PluginFailure.internalError("start called without a task slot") }
            task.pointee = try FileLoadTask.start(request: request, callbacks: callbacks)
        }
    },
    cancel: { task in FileLoadTask.borrow(task)?.cancel() },
    release: { task in FileLoadTask.release(task) }))
