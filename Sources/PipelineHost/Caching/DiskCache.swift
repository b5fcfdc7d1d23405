import FoundationEssentials
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Encoded bytes on disk under a namespace folder, safe to share between processes.
///
/// - File names are the SHA-256 of the key (never the key itself, so no key can escape the folder), spread over
///   256 subfolders. Each file holds a header (magic, key, length, checksum) before the data; a read that finds a
///   different key, a short file or a bad checksum treats it as a miss and removes it.
/// - Writes go to a temporary file in the same folder and are renamed into place, so a reader never sees a half
///   file, and a writer killed mid-write (even by SIGKILL) leaves only a temporary file, never a served entry.
///   Temporary files older than a minute are removed at start. With `fsync` (the default) the data is flushed
///   before the rename, so a crash of the machine cannot leave a renamed but empty file either.
/// - Two processes storing the same key both succeed; the last rename wins, and both values were complete.
/// - Max size and max age: reads refresh an entry's mtime (least recently used = oldest mtime); stores and the
///   start trim to 90 % of the size limit by removing the oldest entries, and remove entries older than max age.
public final class DiskCache: DataCaching {
    public struct Configuration: Sendable {
        /// Total bytes of entries. Default 1 GiB.
        public var maxBytes: Int
        /// Entries not used for this long are removed. Default 30 days.
        public var maxAge: Double
        /// Flush data to disk before renaming it into place. Default true.
        public var fsync: Bool
        public init(maxBytes: Int = 1 << 30, maxAge: Double = 30 * 86400, fsync: Bool = true) {
            self.maxBytes = maxBytes
            self.maxAge = maxAge
            self.fsync = fsync
        }
    }

    public let directory: String
    public let configuration: Configuration
    public var name: String { "disk" }
    private let counters = Mutex((hits: 0, misses: 0, approximateBytes: -1))
    private static let magic: [UInt8] = Array("IPDC0002".utf8)

    /// `$XDG_CACHE_HOME/imagepipe/<namespace>` (or `~/.cache/imagepipe/<namespace>`). Never a shared folder: with
    /// neither variable set to an absolute path there is no default (a folder under /tmp could be pre-seeded by
    /// another user), and the caller must name one.
    public static func defaultDirectory(namespace: String = "default",
                                        environment: [String: String] = ProcessInfo.processInfo.environment) throws -> String {
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") { return xdg + "/imagepipe/" + namespace }
        if let home = environment["HOME"], home.hasPrefix("/") { return home + "/.cache/imagepipe/" + namespace }
        throw PipelineError.cacheFailed(cache: "disk", status: .io,
                                        message: "no cache folder: neither XDG_CACHE_HOME nor HOME is an absolute path")
    }

    /// Opens (creating it 0700 if needed) the cache in `directory`, by default `defaultDirectory()`.
    public init(directory: String? = nil, configuration: Configuration = Configuration()) throws {
        let directory = try directory ?? Self.defaultDirectory()
        self.directory = directory
        self.configuration = configuration
        if let problem = Self.makeDirectories(directory) {
            throw PipelineError.cacheFailed(cache: "disk", status: .io, message: "cannot create \(directory): \(problem)")
        }
        var info = stat()
        guard stat(directory, &info) == 0 else { throw ioError("cannot open \(directory)") }
        if let problem = Self.trustProblem(info) {
            throw PipelineError.cacheFailed(cache: "disk", status: .io, message:
                "refusing the cache folder \(directory): it \(problem), so another user could plant entries in it "
                + "(chmod 700 it, or choose another with --cache-dir)")
        }
        removeStaleTemporaryFiles()
    }

    /// `mkdir -p` with private (0700) new folders; nil on success, else the reason in words.
    static func makeDirectories(_ path: String) -> String? {
        var status = stat()
        if stat(path, &status) == 0 { return status.st_mode & S_IFMT == S_IFDIR ? nil : "it exists and is not a folder" }
        let parent = PluginSearchPath.parent(of: path)
        if parent != path, parent != "/", parent != "." , let problem = makeDirectories(parent) { return problem }
        if mkdir(path, 0o700) == 0 || errno == EEXIST { return nil }
        return String(cString: strerror(errno)).lowercased()
    }

    /// Why a cache folder or entry with these attributes cannot be trusted, or nil: it must belong to this user and
    /// be writable by nobody else, the rule plugin folders follow (a folder under /tmp pre-seeded by another user
    /// would otherwise serve that user's bytes for any URL).
    static func trustProblem(_ info: stat) -> String? {
        if info.st_uid != geteuid() { return "is owned by uid \(info.st_uid), not by you (uid \(geteuid()))" }
        if info.st_mode & S_IWOTH != 0 { return "is world-writable" }
        if info.st_mode & S_IWGRP != 0 { return "is group-writable" }
        return nil
    }

    func path(for key: String) -> String {
        let hash = SHA256.hex(key)
        return "\(directory)/\(hash.prefix(2))/\(hash)"
    }

    public func data(for key: String) async throws -> [UInt8]? {
        let path = path(for: key)
        guard let contents = Self.readTrusted(path) else {
            counters.withLock { $0.misses += 1 }
            return nil
        }
        guard let value = Self.decodeEntry(Array(contents), key: key) else {
            unlink(path)  // corrupt or colliding: never served
            counters.withLock { $0.misses += 1 }
            return nil
        }
        // Access time untouched (UTIME_OMIT), modification time = now (UTIME_NOW): the LRU clock.
        var times = [timespec(tv_sec: 0, tv_nsec: (1 << 30) - 2), timespec(tv_sec: 0, tv_nsec: (1 << 30) - 1)]
        utimensat(AT_FDCWD, path, &times, 0)
        counters.withLock { $0.hits += 1 }
        return value
    }

    /// The entry's bytes, or nil when it is missing, not a regular file (a link is not followed) or not trusted.
    private static func readTrusted(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, trustProblem(info) == nil else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var filled = 0
        while filled < bytes.count {
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + filled, $0.count - filled) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { break }
            filled += n
        }
        return filled == bytes.count ? bytes : nil
    }

    public func store(_ data: [UInt8], for key: String) async throws {
        let path = path(for: key)
        let folder = PluginSearchPath.parent(of: path)
        mkdir(folder, 0o700)
        let temporary = "\(folder)/.tmp-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        let entry = Self.encodeEntry(data, key: key)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw ioError("cannot create \(temporary)") }
        var written = 0
        let ok: Bool = entry.withUnsafeBytes { raw in
            while written < raw.count {
                let n = write(fd, raw.baseAddress! + written, raw.count - written)
                if n <= 0 { if errno == EINTR { continue }; return false }
                written += n
            }
            return true
        }
        if !ok || (configuration.fsync && fsync(fd) != 0) {
            close(fd)
            unlink(temporary)
            throw ioError("cannot write \(temporary)")
        }
        close(fd)
        guard rename(temporary, path) == 0 else {
            unlink(temporary)
            throw ioError("cannot rename into \(path)")
        }
        let total = counters.withLock { c -> Int in
            if c.approximateBytes >= 0 { c.approximateBytes += entry.count }
            return c.approximateBytes
        }
        if total < 0 || total > configuration.maxBytes { trim() }
    }

    public func removeData(for key: String) async throws { unlink(path(for: key)) }

    /// Removes every entry, and the temporary files of interrupted writes older than a minute (a younger one may
    /// be another process's write in progress).
    public func removeAll() async throws {
        for entry in entries() { unlink(entry.path) }
        removeStaleTemporaryFiles()
        counters.withLock { $0.approximateBytes = 0 }
    }

    public func statistics() async -> CacheStatistics {
        let all = entries()
        let temporary = temporaryFiles()
        let (hits, misses) = counters.withLock { ($0.hits, $0.misses) }
        return CacheStatistics(name: "disk \(directory)", entryCount: all.count,
                               totalBytes: (all + temporary).reduce(0) { $0 + $1.size },
                               hits: hits, misses: misses, temporaryFiles: temporary.count)
    }

    /// Removes stale temporary files and expired entries, then the least recently used until the total (temporary
    /// files of writes in progress included, so they never push the cache past its budget) is under 90 % of the
    /// limit. Returns the number of entries removed.
    @discardableResult
    public func trim() -> Int {
        let inProgress = removeStaleTemporaryFiles()
        var all = entries().sorted { $0.modified < $1.modified }
        let now = Double(time(nil))
        var removed = 0
        var total = (all + inProgress).reduce(0) { $0 + $1.size }
        while let oldest = all.first, now - oldest.modified > configuration.maxAge || total > configuration.maxBytes * 9 / 10 {
            unlink(oldest.path)
            total -= oldest.size
            removed += 1
            all.removeFirst()
        }
        counters.withLock { $0.approximateBytes = total }
        return removed
    }

    private struct EntryFile { let path: String; let size: Int; let modified: Double }

    private func entries() -> [EntryFile] {
        var result: [EntryFile] = []
        for folder in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] where folder.count == 2 {
            let folderPath = directory + "/" + folder
            for name in (try? FileManager.default.contentsOfDirectory(atPath: folderPath)) ?? [] where !name.hasPrefix(".") {
                var info = stat()
                let path = folderPath + "/" + name
                if stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG {
                    result.append(EntryFile(path: path, size: Int(info.st_size),
                                            modified: Double(info.st_mtim.tv_sec) + Double(info.st_mtim.tv_nsec) / 1e9))
                }
            }
        }
        return result
    }

    /// Temporary files of writes (`.tmp-*` in the entry folders): in progress, or left by a killed process.
    private func temporaryFiles() -> [EntryFile] {
        var result: [EntryFile] = []
        for folder in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] where folder.count == 2 {
            let folderPath = directory + "/" + folder
            for name in (try? FileManager.default.contentsOfDirectory(atPath: folderPath)) ?? [] where name.hasPrefix(".tmp-") {
                var info = stat()
                let path = folderPath + "/" + name
                if lstat(path, &info) == 0 {
                    result.append(EntryFile(path: path, size: Int(info.st_size), modified: Double(info.st_mtim.tv_sec)))
                }
            }
        }
        return result
    }

    /// A write takes well under a minute; a temporary file older than that belongs to a process that died.
    /// Returns the temporary files that remain (writes that may be in progress).
    @discardableResult
    private func removeStaleTemporaryFiles() -> [EntryFile] {
        let now = Double(time(nil))
        return temporaryFiles().filter { file in
            guard now - file.modified > 60 else { return true }
            unlink(file.path)
            return false
        }
    }

    private func ioError(_ message: String) -> PipelineError {
        .cacheFailed(cache: "disk", status: .io, message: "\(message): \(String(cString: strerror(errno)))")
    }

    /// A fast 64-bit checksum (FNV-1a over 8-byte words, then the tail bytes): it only has to catch torn or
    /// flipped bytes, not adversaries, and SHA-256 in Swift would cost seconds on a large entry.
    static func checksum(_ data: [UInt8]) -> [UInt8] {
        var hash: UInt64 = 0xcbf29ce484222325
        let prime: UInt64 = 0x100000001b3
        data.withUnsafeBytes { raw in
            let words = raw.count / 8
            for i in 0..<words { hash = (hash ^ raw.loadUnaligned(fromByteOffset: i * 8, as: UInt64.self)) &* prime }
            for i in (words * 8)..<raw.count { hash = (hash ^ UInt64(raw[i])) &* prime }
        }
        hash ^= UInt64(data.count)
        return withUnsafeBytes(of: hash.littleEndian) { Array($0) }
    }

    /// magic(8) | key length (4, LE) | key | data length (8, LE) | checksum(data) (8) | data
    static func encodeEntry(_ data: [UInt8], key: String) -> [UInt8] {
        let keyBytes = Array(key.utf8)
        var out = magic
        out.reserveCapacity(magic.count + 4 + keyBytes.count + 16 + data.count)
        out += withUnsafeBytes(of: UInt32(keyBytes.count).littleEndian) { Array($0) }
        out += keyBytes
        out += withUnsafeBytes(of: UInt64(data.count).littleEndian) { Array($0) }
        out += checksum(data)
        out += data
        return out
    }

    static func decodeEntry(_ entry: [UInt8], key: String) -> [UInt8]? {
        let keyBytes = Array(key.utf8)
        var offset = magic.count
        guard entry.count >= offset + 4, Array(entry[0..<magic.count]) == magic else { return nil }
        let keyLength = entry[offset..<offset + 4].enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
        offset += 4
        guard keyLength == keyBytes.count, entry.count >= offset + keyLength + 16,
              Array(entry[offset..<offset + keyLength]) == keyBytes else { return nil }
        offset += keyLength
        let dataLength = entry[offset..<offset + 8].enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
        offset += 8
        let checksum = Array(entry[offset..<offset + 8])
        offset += 8
        guard entry.count == offset + dataLength else { return nil }
        let data = Array(entry[offset...])
        guard Self.checksum(data) == checksum else { return nil }
        return data
    }
}
