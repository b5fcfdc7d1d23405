import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Writes a result so that its path only ever holds the old file or the whole new one.
///
/// The bytes go to a temporary file in the destination folder, which is then renamed over the path: a render that
/// fails, or is killed at any moment (even by SIGKILL), never leaves a truncated file and never destroys the one
/// that was there. A caught SIGINT, SIGTERM or SIGHUP also removes the temporary file; after SIGKILL a hidden
/// `.NAME.imagepipe-*.tmp` can remain beside the output, never the output itself.
///
/// Policy, as a careful `cp` or `install` would have it:
/// - an existing file keeps its permission bits (a 0600 file stays 0600);
/// - a symbolic link at the path is not followed into another file unless `force`, and then the link is kept and
///   its target replaced, atomically, the way ImageMagick or vips (which write through links) users expect;
/// - a read-only file is not replaced unless `force`;
/// - a character device or FIFO (`/dev/null`, a named pipe) is written to directly: it cannot be renamed over.
enum OutputFile {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// `stamp`: a batch's record of what the file was made from (see `OutputStamp`), set before it appears.
    static func write(_ bytes: [UInt8], to requestedPath: String, force: Bool, stamp: String? = nil) throws {
        var path = requestedPath
        var status = stat()
        if lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFLNK {
            guard force else {
                throw Failure(description: "\(path) is a symbolic link; not writing through it into another file "
                              + "(--force replaces the file it points to)")
            }
            guard let resolved = realpath(path, nil) else {
                throw Failure(description: "\(path) is a symbolic link to a missing file (\(errorText(errno)))")
            }
            path = String(cString: resolved)
            free(resolved)
        }
        var mode: mode_t = 0o666
        if stat(path, &status) == 0 {
            switch status.st_mode & S_IFMT {
            case S_IFDIR: throw Failure(description: "\(path) is a folder; give a file name with an extension")
            case S_IFCHR, S_IFIFO: return try writeDirectly(bytes, to: path)
            case S_IFREG: break
            default: throw Failure(description: "\(path) is not a regular file; not replacing it")
            }
            if !force, status.st_mode & 0o222 == 0 || access(path, W_OK) != 0 {
                throw Failure(description: "\(path) is read-only; not replacing it (--force replaces it)")
            }
            mode = status.st_mode & 0o7777
        }
        let folder = PathText.parent(of: path)
        let name = PathText.lastComponent(of: path)
        let temporary = "\(folder)/.\(name).imagepipe-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).tmp"
        // Armed before the file exists, so no moment passes in which a caught signal could leave it behind.
        let slot = InterruptCleanup.arm(temporary)
        defer { InterruptCleanup.disarm(slot) }
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { throw Failure(description: "cannot write \(requestedPath): \(folderProblem(folder, errno))") }
        // The creation mode was filtered by the umask; an existing file's bits are restored exactly.
        if stat(path, &status) == 0 { fchmod(fd, mode) }
        if let stamp { OutputStamp.write(stamp, to: fd) }
        if let problem = writeAll(bytes, to: fd) {
            close(fd)
            unlink(temporary)
            throw Failure(description: "cannot write \(requestedPath): \(problem)")
        }
        close(fd)
        guard rename(temporary, path) == 0 else {
            let code = errno
            unlink(temporary)
            throw Failure(description: "cannot write \(requestedPath): \(errorText(code))")
        }
    }

    /// `-o -`: the bytes on standard output, for a shell pipe.
    static func writeStandardOutput(_ bytes: [UInt8]) throws {
        if let problem = writeAll(bytes, to: 1) { throw Failure(description: "cannot write to standard output: \(problem)") }
    }

    private static func writeDirectly(_ bytes: [UInt8], to path: String) throws {
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Failure(description: "cannot write \(path): \(errorText(errno))") }
        defer { close(fd) }
        if let problem = writeAll(bytes, to: fd) { throw Failure(description: "cannot write \(path): \(problem)") }
    }

    /// nil on success, else what went wrong.
    private static func writeAll(_ bytes: [UInt8], to fd: Int32) -> String? {
        bytes.withUnsafeBytes { raw -> String? in
            var written = 0
            while written < raw.count {
                let n = Glibc.write(fd, raw.baseAddress! + written, raw.count - written)
                if n < 0 {
                    if errno == EINTR { continue }
                    return errorText(errno)
                }
                written += n
            }
            return nil
        }
    }

    /// Why a file cannot be created in `folder`, in words that say what to do.
    private static func folderProblem(_ folder: String, _ code: Int32) -> String {
        var status = stat()
        switch code {
        case ENOENT where stat(folder, &status) != 0: return "the folder \(folder) does not exist"
        case ENOTDIR: return "\(folder) is not a folder"
        case EACCES, EPERM: return "no permission to create files in \(folder)"
        case EROFS: return "\(folder) is on a read-only file system"
        default: return errorText(code)
        }
    }

    static func errorText(_ code: Int32) -> String {
        String(cString: strerror(code)).lowercased()
    }
}

/// Removes the temporary files of writes in progress when SIGINT, SIGTERM or SIGHUP arrive, then lets the signal
/// end the process as it would have. Async-signal-safe: the handler only calls unlink, signal and raise on C
/// strings prepared before the handlers can see them. A batch writes on several threads at once: each write holds
/// one of a fixed set of slots (a write that finds none free waits: never more writes than slots in flight).
enum InterruptCleanup {
    static let slotCount = 256
    /// `nonisolated(unsafe)`: read by the signal handlers, where no lock may be taken (slots are claimed atomically).
    nonisolated(unsafe) private static let slots: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> = {
        let slots = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: slotCount)
        slots.initialize(repeating: nil, count: slotCount)
        return slots
    }()
    private static let lock = Mutex<Bool>(false)  // guards slot claims; the value: handlers installed
    private static let signals = [SIGINT, SIGTERM, SIGHUP]

    /// Registers a temporary file; returns its slot for `disarm`.
    static func arm(_ temporary: String) -> Int {
        let copy = strdup(temporary)
        while true {
            let slot = lock.withLock { installed -> Int? in
                if !installed { installHandlers(); installed = true }
                guard let free = (0..<slotCount).first(where: { slots[$0] == nil }) else { return nil }
                slots[free] = copy
                return free
            }
            if let slot { return slot }
            usleep(1000)
        }
    }

    private static func installHandlers() {
        for signal in signals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { signal in
                InterruptCleanup.removeTemporaryFiles()
                Glibc.signal(signal, SIG_DFL)
                raise(signal)
            }
            sigemptyset(&action.sa_mask)
            sigaction(signal, &action, nil)
        }
    }

    /// Removes the temporary files of writes in progress (a signal, or a deadline that ends the process mid-write).
    static func removeTemporaryFiles() {
        for index in 0..<slotCount { if let path = slots[index] { unlink(path) } }
    }

    static func disarm(_ slot: Int) {
        let old = lock.withLock { _ -> UnsafeMutablePointer<CChar>? in
            defer { slots[slot] = nil }
            return slots[slot]
        }
        free(old)
    }
}

/// Path text helpers for paths the user typed (no file system access).
enum PathText {
    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    static func lastComponent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }
}
