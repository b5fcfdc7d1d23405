import PluginAPI
import PluginKit

/// The HTTP plugin: one libcurl-based loader for `http:` and `https:` URLs.
nonisolated(unsafe) let pluginEntry = PluginEntry.make(
    id: "org.imagepipe.http", name: "HTTP", version: "1.0.0",
    description: "Loads http:// and https:// URLs through one libcurl multi handle (connection reuse, HTTP/2, "
        + "timeouts, redirects limited to http/https, size limit, streamed delivery)",
    loaders: [httpLoader])

/// The plugin's only exported symbol.
@_cdecl("imagepipe_plugin_entry")
public func imagepipe_plugin_entry() -> UnsafePointer<ip_plugin_entry> { pluginEntry }

/// The loader's vtable. Each slot is a non-capturing C function that hands over to `HTTPLoadTask`.
nonisolated(unsafe) let httpLoader = StaticStorage.value(ip_loader(
    struct_size: UInt32(MemoryLayout<ip_loader>.size),
    descriptor: Descriptors.loader(
        id: "org.imagepipe.loader.http/1", name: "HTTP", version: "1.0.0", schemes: ["http", "https"],
        capabilities: UInt64(IP_LOADER_THREAD_SAFE) | UInt64(IP_LOADER_KNOWS_SIZE)),
    start: { request, callbacks, task, message in
        withStatus(message) {
            guard let task else { throw PluginFailure.internalError("start called without a task slot") }
            task.pointee = try HTTPLoadTask.start(request: request, callbacks: callbacks)
        }
    },
    cancel: { task in HTTPLoadTask.borrow(task)?.cancel() },
    release: { task in HTTPLoadTask.release(task) }))
