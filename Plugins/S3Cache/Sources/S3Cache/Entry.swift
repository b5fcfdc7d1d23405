import PluginAPI
import PluginKit

/// The S3 result tier: rendered outputs kept durably in a bucket, shared by every instance and surviving restarts.
let pluginEntry = PluginEntry.make(
    id: "org.imagepipe.s3cache", name: "S3 result tier", version: "1.0.0",
    description: "A durable cache tier in S3 or an S3-compatible store: entries under a prefix, expiry, a size cap "
        + "per entry, fail-open",
    caches: [s3Cache])

/// The plugin's only exported symbol.
@_cdecl("imagepipe_plugin_entry")
public func imagepipe_plugin_entry() -> UnsafePointer<ip_plugin_entry> { pluginEntry.pointer }

let s3Cache = CacheTable.make(
    descriptor: Descriptors.cache(id: "org.imagepipe.cache.s3/1", name: "S3", version: "1.0.0",
                                  capabilities: UInt64(IP_CACHE_THREAD_SAFE) | UInt64(IP_CACHE_PERSISTENT) | UInt64(IP_CACHE_SHARED),
                                  priority: 50),
    store: S3ResultStore.self)
