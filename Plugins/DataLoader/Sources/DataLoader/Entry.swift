import PluginAPI
import PluginKit

// The loader template: a complete loader for `data:` URLs (RFC 2397), small enough to read in one sitting, written
// to be copied. What a loader is, in the order this file shows it:
//   1. a plugin entry (one exported symbol) listing the loader's table;
//   2. the table, built by PluginKit from a descriptor (routing data: the URL schemes) and a task type;
//   3. the task type (DataLoadTask.swift): `settings(from:)` reads the host's configuration of an instance (ABI 1.1),
//      `start` validates the request and makes a task, which reports response → data → complete, exactly once each
//      in that order, on a thread of its choosing (here: inside start, since the bytes are in the URL itself).

/// The data: plugin: one loader for `data:` URLs.
let pluginEntry = PluginEntry.make(
    id: "org.imagepipe.data", name: "Data URLs", version: "1.0.0",
    description: "Loads data: URLs (RFC 2397: base64 or percent-encoded, with a media type), the loader template",
    loaders: [dataLoader])

/// The plugin's only exported symbol.
@_cdecl("imagepipe_plugin_entry")
public func imagepipe_plugin_entry() -> UnsafePointer<ip_plugin_entry> { pluginEntry.pointer }

/// The loader's table. `IP_LOADER_KNOWS_SIZE`: the decoded size is known before the body is delivered.
let dataLoader = LoaderTable.make(
    descriptor: Descriptors.loader(
        id: "org.imagepipe.loader.data/1", name: "Data URLs", version: "1.0.0", schemes: ["data"],
        capabilities: UInt64(IP_LOADER_THREAD_SAFE) | UInt64(IP_LOADER_KNOWS_SIZE)),
    task: DataLoadTask.self)

extension DataLoadTask: LoadTask {}
