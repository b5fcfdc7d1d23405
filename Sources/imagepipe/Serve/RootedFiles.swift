import OpenBeneath
import PipelineHost
#if canImport(Glibc)
import Glibc
#endif

/// The service's local sources: files beneath `--root`, opened relative to one descriptor of the root that the
/// service holds (`ip_open_beneath`: openat2 with RESOLVE_BENEATH), then checked and read through the descriptor
/// that open returned. A name checked and then opened again is a race a swapped symbolic link wins; a descriptor
/// is not.
///
/// Sources are named `local:///a/b.png?v=<identity>`: the identity (device, inode, size, change and modification
/// times) is read when the request arrives and is part of every cache key (decoded, output, shared tier, failed
/// list), so a file replaced on disk is a new source at once. A read that finds another identity than its URL's
/// fails (the file changed between the two) rather than caching new bytes under the old key.
final class RootedFiles: DataLoading {
    /// Descriptor of the root folder, open for the life of the process.
    private let root: Int32
    /// The root as given, only to keep it out of messages.
    let rootPath: String

    static let scheme = "local:///"

    init(root path: String) throws {
        let descriptor = open(path, O_DIRECTORY | O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw UsageError("--root \(path): \(String(cString: strerror(errno)))") }
        root = descriptor
        rootPath = path
    }

    deinit { close(root) }

    /// What a request may learn about a local source: its versioned URL, or why it cannot be read (the status and
    /// a message naming the source as given, never a server path).
    enum Lookup: Equatable { case found(String), refused(Int, String) }

    /// `relative`: the path under the root, with a leading "/", already free of ".." segments.
    ///
    /// Every request pays this, cache hits included, so the common case is one `fstatat`: a path whose file has the
    /// identity `ip_stat_beneath` found there last time gets that time's answer. fstatat is not confined to the
    /// root, but it is only believed when it names the very file (device and inode, size and times) that the
    /// confined check found under this path, so its answer is the one the confined check gave; any difference (a
    /// replaced, edited or touched file, a link retargeted, an error) is decided by the confined check again. Looked
    /// at, not opened: a read opens the file itself, beneath the root.
    func lookup(_ relative: String) -> Lookup {
        var info = stat()
        // The memo first: a path seen for the first time (or forgotten) goes straight to the confined check.
        if let last = confirmed.value(for: relative), ip_stat_unconfined(root, relative, &info) == 0,
           last.identity == Identity(info) {
            return .found(last.versioned)
        }
        guard ip_stat_beneath(root, relative, &info) == 0 else { return Self.refusal(errno) }
        guard info.st_mode & S_IFMT == S_IFREG else { return .refused(404, "the source is not a file") }
        let identity = Identity(info)
        let versioned = Self.scheme + relative.drop { $0 == "/" } + "?v=" + identity.text
        confirmed.store(Confirmed(identity: identity, versioned: versioned), for: relative)
        return .found(versioned)
    }

    /// What the confined check last found under a path (`lookup`).
    private struct Confirmed: Sendable {
        let identity: Identity
        let versioned: String
    }
    private let confirmed = RecentlyUsed<Confirmed>(capacity: 4096)

    func canLoad(url: String) -> Bool { url.hasPrefix(Self.scheme) }

    func load(url: String, options: LoadOptions) async throws -> [UInt8] {
        let (descriptor, info) = try opened(url)
        defer { close(descriptor) }
        let size = Int(info.st_size)
        if let limit = options.maxBytes, size > limit {
            throw failure(url, .limitExceeded, "the file of \(size) bytes exceeds the limit of \(limit) bytes")
        }
        var failed: Int32 = 0
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            count = 0
            while count < size {
                let n = pread(descriptor, buffer.baseAddress! + count, size - count, off_t(count))
                if n < 0, errno == EINTR { continue }
                if n <= 0 { failed = n < 0 ? errno : EIO; break }
                count += n
            }
        }
        guard failed == 0, bytes.count == size else { throw failure(url, .truncated, "the file was cut while it was read") }
        return bytes
    }

    /// A large source read by its coder through the descriptor opened beneath the root, with the same checks as
    /// `load` (a file, the URL's identity; the image manager holds it to `maxBytes`); nil for anything `load` would
    /// refuse or read whole, so that `load` says why.
    func rangedSource(url: String, options: LoadOptions, threshold: Int) -> RangedSource? {
        guard let (descriptor, _) = try? opened(url) else { return nil }
        defer { close(descriptor) }
        return RangedSource(descriptor: descriptor, threshold: threshold)
    }

    /// The file a versioned URL names, opened beneath the root and checked: a regular file with the URL's identity.
    private func opened(_ url: String) throws -> (Int32, stat) {
        guard let mark = url.lastIndex(of: "?"), url.hasPrefix(Self.scheme) else {
            throw failure(url, .invalidData, "not a versioned local source")
        }
        let relative = "/" + url[url.index(url.startIndex, offsetBy: Self.scheme.count)..<mark]
        let expected = url[url.index(mark, offsetBy: 3)...]
        let descriptor = ip_open_beneath(root, relative)
        guard descriptor >= 0 else {
            let cause = errno
            throw failure(url, cause == ENOENT || cause == ENOTDIR ? .notFound : .refused, String(cString: strerror(cause)))
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            throw failure(url, .notFound, "not a file")
        }
        guard Identity(info).text == expected else {
            close(descriptor)
            throw failure(url, .io, "the file changed while the request was made; try again")
        }
        return (descriptor, info)
    }

    /// Device, inode, size, modification and status-change times (nanoseconds): a rename over it, an edit in place
    /// and a touch all change it. A regular file's identity has the same fields whichever call read them, so the
    /// unconfined look-up's and the confined check's can be compared.
    struct Identity: Equatable, Sendable {
        let device, inode, size, modified, changed: UInt64

        init(_ info: stat) {
            device = UInt64(info.st_dev)
            inode = UInt64(info.st_ino)
            size = UInt64(info.st_size)
            modified = UInt64(info.st_mtim.tv_sec) &* 1_000_000_000 &+ UInt64(info.st_mtim.tv_nsec)
            changed = UInt64(info.st_ctim.tv_sec) &* 1_000_000_000 &+ UInt64(info.st_ctim.tv_nsec)
        }

        /// The form versioned URLs carry.
        var text: String {
            [device, inode, size, modified, changed].map { String($0, radix: 36) }.joined(separator: "-")
        }
    }

    private static func refusal(_ cause: Int32) -> Lookup {
        switch cause {
        case ENOENT, ENOTDIR: .refused(404, "no such file")
        case EXDEV, ELOOP: .refused(403, "the path leaves the root folder")
        case EISDIR: .refused(404, "the source is not a file")
        default: .refused(403, "the source cannot be read")
        }
    }

    private func failure(_ url: String, _ status: PluginStatus, _ message: String) -> PipelineError {
        .loadingFailed(url: url, loader: "serve --root", status: status, message: message)
    }
}
