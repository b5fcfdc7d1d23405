import PluginAPI
import PluginKit

// The plugin glue, in the order you write it: routing data, the coder's table, the entry, the exported function.

/// Routing data: the host chooses this coder from these static facts without calling into the plugin.
/// The 8-byte magic is unambiguous, so no `sniff` is needed.
/// `IP_CODER_THREAD_SAFE`: decode and encode keep no shared state, so the host may call them concurrently.
/// Not `IP_CODER_SCALES`: farbfeld has no cheaper reduced-size decode; the host resamples the full image.
/// (CAN_DECODE and CAN_ENCODE are not written here: the kit sets them from the implementations below.)
let farbfeldDescriptor = Descriptors.coder(
    id: "org.example.coder.farbfeld/1", name: "farbfeld (Swift template)", version: "1.0.0", format: "farbfeld",
    mimeTypes: ["image/x-farbfeld"], extensions: ["ff", "farbfeld"],
    capabilities: IP_CODER_THREAD_SAFE,
    patterns: [MagicPattern(bytes: Farbfeld.magic, relevance: 100)])

/// The coder's table, built by PluginKit from the types that implement it: no C vtable to write. The kit turns a
/// thrown `PluginFailure` into the status and message the host sees, and checks the input size against the
/// request's limit before `probe` and `decode` run.
let farbfeldCoder = CoderTable.make(descriptor: farbfeldDescriptor, decoder: FarbfeldDecoding.self,
                                    encoder: FarbfeldEncoding.self)

extension FarbfeldDecoding: PluginDecoding {}
extension FarbfeldEncoding: PluginEncoding {}

/// A cache component in the same plugin (see MemoryCache): its table, built by the kit from the store type.
let memoryCache = CacheTable.make(
    descriptor: Descriptors.cache(id: "org.example.cache.memory/1", name: "memory (Swift template)", version: "1.0.0",
                                  capabilities: UInt64(IP_CACHE_THREAD_SAFE)),
    store: MemoryCache.self)

/// The plugin's entry table: identity, ABI version and its factories (built by PluginKit).
let pluginEntry = PluginEntry.make(
    id: "org.example.farbfeld", name: "farbfeld", version: "1.0.0", vendor: "imagepipe template",
    description: "farbfeld decoder and encoder written in Swift, and an in-memory cache (the Swift plugin template)",
    coders: [farbfeldCoder], caches: [memoryCache])

/// The plugin's only exported symbol (exports.map hides everything else).
@_cdecl("imagepipe_plugin_entry")
public func imagepipe_plugin_entry() -> UnsafePointer<ip_plugin_entry> { pluginEntry.pointer }
