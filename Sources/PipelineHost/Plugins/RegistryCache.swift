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
struct FileKey: Equatable {
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

/// Inspections keyed by plugin path and FileKey, so that listing and routing need no dlopen and a request opens
/// only the plugins it uses (GStreamer's registry, gdk-pixbuf's loaders.cache).
///
/// One small binary file per plugin folder (named by a hash of the folder's path; CacheRecord.swift has its
/// form and why it is not JSON) inside the cache directory:
/// IMAGEPIPE_REGISTRY_CACHE (a directory, or "off"), else `$XDG_CACHE_HOME/imagepipe/registry`, else
/// `~/.cache/imagepipe/registry`. A scan reads only the files of its own folders, and rewrites a folder's file
/// (atomically: temporary file + rename) with exactly the plugins it saw there, so entries of removed plugins go.
/// Several processes may race; the loser's entries are simply inspected again next time. The host's ABI version is
/// part of each file, so a new host never trusts an old host's conclusions.
final class RegistryCache {
    private struct Contents: RecordCoding {
        /// Bumped whenever the record layout of any stored type changes; a file of another format is ignored.
        static let format: UInt64 = 4
        static let magic = Array("imagepipe-registry".utf8)

        var hostABI = ImagepipeVersion.abi
        var folder = ""
        var entries: [String: Entry] = [:]

        init(folder: String) { self.folder = folder }

        init(record: inout RecordReader) throws {
            guard try record.bytes() == Self.magic, try record.unsigned() == Self.format else { throw RecordReader.Malformed() }
            hostABI = try record.string()
            folder = try record.string()
            let count = try record.count()
            for _ in 0..<count {
                entries[try record.string()] = Entry(key: try record.record(), inspection: try record.record())
            }
            guard record.isAtEnd else { throw RecordReader.Malformed() }
        }

        func write(to record: inout RecordWriter) {
            record.bytes(Self.magic)
            record.unsigned(Self.format)
            record.string(hostABI)
            record.string(folder)
            record.unsigned(UInt64(entries.count))
            // Sorted, so that the same plugins give the same file.
            for (path, entry) in entries.sorted(by: { $0.key < $1.key }) {
                record.string(path)
                record.record(entry.key)
                record.record(entry.inspection)
            }
        }
    }

    private struct Entry {
        let key: FileKey
        let inspection: FileInspection
    }

    let directory: String?
    private var folders: [String: Contents] = [:]
    private var changed = Set<String>()
    private var seen: [String: Set<String>] = [:]

    init(directory: String?) { self.directory = directory }

    /// The default location, or nil when caching is off or there is no home. A home (or XDG_CACHE_HOME) that does
    /// not exist is not created: a service account with HOME=/nonexistent just scans every run.
    /// `environment`: the variables to use instead of the process's own (tests).
    static func defaultDirectory(environment: [String: String]? = nil) -> String? {
        func variable(_ name: String) -> String? { environment.map { $0[name] } ?? LinuxSystem.environment(name) }
        if let explicit = variable("IMAGEPIPE_REGISTRY_CACHE") { return explicit == "off" || explicit.isEmpty ? nil : explicit }
        if let xdg = variable("XDG_CACHE_HOME"), xdg.hasPrefix("/") {
            return PluginSearchPath.isDirectory(xdg) ? xdg + "/imagepipe/registry" : nil
        }
        if let home = variable("HOME"), home.hasPrefix("/") {
            return PluginSearchPath.isDirectory(home) ? home + "/.cache/imagepipe/registry" : nil
        }
        return nil
    }

    private func cacheFile(for folder: String) -> String? {
        directory.map { $0 + "/" + String(SHA256.hex(folder).prefix(24)) + ".registry" }
    }

    private func contents(of folder: String) -> Contents {
        if let loaded = folders[folder] { return loaded }
        var loaded = Contents(folder: folder)
        if let file = cacheFile(for: folder), let data = FileManager.default.contents(atPath: file),
           var record = RecordReader(sealed: Array(data)), let decoded = try? Contents(record: &record),
           decoded.hostABI == ImagepipeVersion.abi, decoded.folder == folder {
            loaded = decoded
        }
        folders[folder] = loaded
        return loaded
    }

    func lookup(_ file: String, key: FileKey) -> FileInspection? {
        guard directory != nil else { return nil }
        let folder = PluginSearchPath.parent(of: file)
        seen[folder, default: []].insert(file)
        guard let entry = contents(of: folder).entries[file], entry.key == key else { return nil }
        return entry.inspection
    }

    func store(_ file: String, key: FileKey, inspection: FileInspection) {
        guard directory != nil else { return }
        let folder = PluginSearchPath.parent(of: file)
        seen[folder, default: []].insert(file)
        var current = contents(of: folder)
        current.entries[file] = Entry(key: key, inspection: inspection)
        folders[folder] = current
        changed.insert(folder)
    }

    /// Marks a folder as scanned even when it holds no plugin file, so stale entries are dropped.
    func scanned(folder: String) {
        guard directory != nil else { return }
        _ = contents(of: folder)
        seen[folder, default: []].formUnion([])
    }

    /// Writes each folder file that changed, keeping only the plugins this scan saw in that folder.
    func save() {
        guard let directory else { return }
        for (folder, var current) in folders {
            let present = seen[folder] ?? []
            let stale = current.entries.keys.filter { !present.contains($0) }
            if stale.isEmpty && !changed.contains(folder) { continue }
            for file in stale { current.entries[file] = nil }
            guard let file = cacheFile(for: folder) else { continue }
            var record = RecordWriter()
            record.record(current)
            let data = Data(record.sealed)
            try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let temporary = file + ".\(getpid()).tmp"
            guard FileManager.default.createFile(atPath: temporary, contents: data) else { continue }
            if rename(temporary, file) != 0 { unlink(temporary) }
            // The JSON file of format 3 and before, named alike, is never read again.
            unlink(String(file.dropLast(".registry".count)) + ".json")
        }
    }
}
