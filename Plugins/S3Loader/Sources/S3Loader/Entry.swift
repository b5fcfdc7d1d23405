import PluginAPI
import PluginKit

/// The S3 plugin: `s3://bucket/key` from AWS S3 or any S3-compatible store (MinIO, Ceph, SeaweedFS, R2).
let pluginEntry = PluginEntry.make(
    id: "org.imagepipe.s3", name: "S3", version: "1.0.0",
    description: "Loads and writes s3://bucket/key objects from AWS S3 or an S3-compatible store: AWS Signature Version 4, "
        + "path-style or virtual-hosted addressing, retries with backoff, S3 error codes mapped to statuses, multipart uploads with metadata",
    loaders: [s3Loader])

/// The plugin's only exported symbol.
@_cdecl("imagepipe_plugin_entry")
public func imagepipe_plugin_entry() -> UnsafePointer<ip_plugin_entry> { pluginEntry.pointer }

let s3Loader = LoaderTable.make(
    descriptor: Descriptors.loader(
        id: "org.imagepipe.loader.s3/1", name: "S3", version: "1.0.0", schemes: ["s3"],
        capabilities: UInt64(IP_LOADER_THREAD_SAFE) | UInt64(IP_LOADER_KNOWS_SIZE) | UInt64(IP_LOADER_WRITES) | UInt64(IP_LOADER_RANGES)),
    writingTask: S3LoadTask.self)
