#if canImport(Glibc)
import Glibc
#endif
import PluginAPI
import PluginKit

/// An open regular file; closes its descriptor when it goes out of scope.
///
/// Non-copyable so that exactly one owner closes the descriptor, on every path, errors included.
struct OpenedFile: ~Copyable {
    let descriptor: Int32
    /// The size at open time (st_size). 0 also for files whose size the kernel does not know (/proc).
    let size: Int64

    /// Opens `location` for reading and checks it is a regular file.
    ///
    /// O_NONBLOCK makes opening a FIFO return at once instead of waiting for a writer; it is cleared again
    /// before reading. O_NOCTTY keeps a terminal device from becoming our controlling terminal, O_CLOEXEC keeps
    /// the descriptor out of child processes the host may spawn.
    init(opening location: FileLocation) throws {
        let fd = (location.path + [0]).withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK) }
        }
        guard fd >= 0 else { throw Self.openFailure(errno, location) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = errno
            close(fd)
            throw PluginFailure.io("cannot read the attributes of \(location.displayPath): \(Self.describe(code))")
        }
        let kind = info.st_mode & S_IFMT
        guard kind == S_IFREG else {
            close(fd)
            if kind == S_IFDIR { throw PluginFailure.io("is a directory: \(location.displayPath)") }
            throw PluginFailure.io("not a regular file (\(Self.kindName(kind))): \(location.displayPath)")
        }
        let flags = fcntl(fd, F_GETFL)
        if flags >= 0 { _ = fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) }
        descriptor = fd
        size = Int64(info.st_size)
    }

    deinit { close(descriptor) }

    /// Reads up to `buffer.count` bytes; 0 at the end of the file. Retries when a signal interrupts the read.
    func read(into buffer: UnsafeMutableRawBufferPointer, location: FileLocation) throws -> Int {
        while true {
            let count = Glibc.read(descriptor, buffer.baseAddress, buffer.count)
            if count >= 0 { return count }
            let code = errno
            if code == EINTR { continue }
            throw PluginFailure.io("cannot read \(location.displayPath): \(Self.describe(code))")
        }
    }

    /// The status and message for a failed open(2): a missing file is NOT_FOUND, the rest is IO.
    private static func openFailure(_ code: Int32, _ location: FileLocation) -> PluginFailure {
        let path = location.displayPath
        switch code {
        case ENOENT: return .notFound("no such file: \(path)")
        case ENOTDIR: return .notFound("no such file: \(path) (a parent is not a directory)")
        case EACCES, EPERM: return .io("permission denied: \(path)")
        case ENXIO: return .io("not a regular file (socket or device without a reader): \(path)")
        case ELOOP: return .io("too many levels of symbolic links: \(path)")
        case ENAMETOOLONG: return .io("file name too long: \(path)")
        default: return .io("cannot open \(path): \(describe(code))")
        }
    }

    private static func kindName(_ kind: mode_t) -> String {
        switch kind {
        case S_IFIFO: "FIFO"
        case S_IFSOCK: "socket"
        case S_IFCHR: "character device"
        case S_IFBLK: "block device"
        case S_IFLNK: "symbolic link"
        default: "unknown type"
        }
    }

    /// strerror's text; glibc returns static strings for known codes, so this is safe on any thread.
    private static func describe(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "error \(code)" }
        return String(cString: text)
    }
}
