import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// What the host learned from one plugin file, independent of the other files on the path.
struct FileInspection: Codable {
    var pluginID: String?
    var name: String?
    var version: String?
    var abiVersion: String?
    var negotiatedMinor: Int?
    /// Why the file cannot be used; nil when it loaded.
    var refusal: String?
    var coders: [CoderDescriptor] = []
    var loaders: [LoaderDescriptor] = []
    var caches: [CacheDescriptor] = []
}

/// The identity of a plugin file's contents as cheaply observable: a changed file gets a new key.
struct FileKey: Codable, Equatable {
    let size: Int64
    let modifiedSeconds: Int
    let modifiedNanoseconds: Int
    let inode: UInt64
    let device: UInt64

    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        size = Int64(info.st_size)
        modifiedSeconds = Int(info.st_mtim.tv_sec)
        modifiedNanoseconds = Int(info.st_mtim.tv_nsec)
        inode = UInt64(info.st_ino)
        device = UInt64(info.st_dev)
    }
}

/// A file of inspections keyed by plugin path and FileKey, so that listing and routing need no dlopen and a
/// request opens only the plugins it uses (GStreamer's registry, gdk-pixbuf's loaders.cache).
///
/// Location: IMAGEPIPE_REGISTRY_CACHE (a file path, or "off"), else `$XDG_CACHE_HOME/imagepipe/registry.json`,
/// else `~/.cache/imagepipe/registry.json`. Written atomically (temporary file + rename); several processes may
/// race, and the loser's entries are simply inspected again next time. The host's ABI version is part of the file,
/// so a new host never trusts an old host's conclusions.
final class RegistryCache {
    private struct Contents: Codable {
        var format = 1
        var hostABI = HostVersion.abi
        var entries: [String: Entry] = [:]
    }

    private struct Entry: Codable {
        let key: FileKey
        let inspection: FileInspection
    }

    let path: String?
    private var contents = Contents()
    private var changed = false
    private var seen = Set<String>()

    init(path: String?) {
        self.path = path
        guard let path, let data = FileManager.default.contents(atPath: path),
              let decoded = try? JSONDecoder().decode(Contents.self, from: data),
              decoded.format == 1, decoded.hostABI == HostVersion.abi else { return }
        contents = decoded
    }

    /// The default location, or nil when caching is off or there is no home.
    static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        if let explicit = environment["IMAGEPIPE_REGISTRY_CACHE"] { return explicit == "off" || explicit.isEmpty ? nil : explicit }
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") { return xdg + "/imagepipe/registry.json" }
        if let home = environment["HOME"], home.hasPrefix("/") { return home + "/.cache/imagepipe/registry.json" }
        return nil
    }

    func lookup(_ file: String, key: FileKey) -> FileInspection? {
        seen.insert(file)
        guard let entry = contents.entries[file], entry.key == key else { return nil }
        return entry.inspection
    }

    func store(_ file: String, key: FileKey, inspection: FileInspection) {
        seen.insert(file)
        contents.entries[file] = Entry(key: key, inspection: inspection)
        changed = true
    }

    /// Writes the cache if anything changed, dropping entries of files that are gone.
    func save() {
        guard let path else { return }
        for file in contents.entries.keys where !seen.contains(file) && access(file, F_OK) != 0 {
            contents.entries[file] = nil
            changed = true
        }
        guard changed else { return }
        let folder = PluginSearchPath.parent(of: path)
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        guard let data = try? JSONEncoder().encode(contents) else { return }
        let temporary = path + ".\(getpid()).tmp"
        guard FileManager.default.createFile(atPath: temporary, contents: data) else { return }
        if rename(temporary, path) != 0 { unlink(temporary) }
    }
}
