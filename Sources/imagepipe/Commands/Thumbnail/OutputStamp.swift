#if canImport(Glibc)
import Glibc
#endif

/// What a batch output was made from, kept in the output's extended attribute `user.imagepipe.thumbnail`: the
/// source (its size and modification time, or its URL) and every option that changes the pixels or the encoding.
///
/// A rerun skips an output whose stamp matches what it would write now and that is not older than its source: a
/// batch stopped halfway resumes where it stopped, and a changed option or source redoes exactly what it changes.
/// The stamp is plain text (`getfattr -n user.imagepipe.thumbnail FILE` shows it). On a file system without user
/// extended attributes nothing can be known about an existing file, so it is rendered again: never a stale skip.
enum OutputStamp {
    static let attribute = "user.imagepipe.thumbnail"

    /// The stamp an output of `source` gets, given the batch's `settings` text and the output's size and page.
    static func text(settings: String, source: BatchSource, sourceStatus: stat?, size: String, page: Int) -> String {
        var text = "v1;\(settings);size=\(size);page=\(page);source=\(source.location)"
        if let status = sourceStatus {
            text += ";bytes=\(status.st_size);mtime=\(status.st_mtim.tv_sec).\(status.st_mtim.tv_nsec)"
        }
        return text
    }

    /// True when `output` exists, carries exactly `stamp`, and is not older than the source.
    static func isUpToDate(_ output: String, stamp: String, sourceStatus: stat?) -> Bool {
        var status = stat()
        guard stat(output, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return false }
        if let source = sourceStatus, (status.st_mtim.tv_sec, status.st_mtim.tv_nsec) < (source.st_mtim.tv_sec, source.st_mtim.tv_nsec) {
            return false
        }
        return read(output) == stamp
    }

    /// Whether `path` is an output of this command (a folder walk skips those).
    static func isStamped(_ path: String) -> Bool {
        guard let getxattr = Calls.get else { return false }
        return getxattr(path, attribute, nil, 0) >= 0
    }

    static func read(_ path: String) -> String? {
        guard let getxattr = Calls.get else { return nil }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { getxattr(path, attribute, $0.baseAddress, $0.count) }
        guard count >= 0 else { return nil }
        return String(decoding: buffer[0..<count], as: UTF8.self)
    }

    /// Stamps an open file (the temporary file, before it is renamed into place: an output never appears without
    /// its stamp). A file system that refuses is not an error; the output is then simply redone on a rerun.
    static func write(_ stamp: String, to descriptor: Int32) {
        guard let fsetxattr = Calls.set else { return }
        _ = stamp.withCString { fsetxattr(descriptor, attribute, $0, strlen($0), 0) }
    }

    /// <sys/xattr.h> is not part of Swift's Glibc module: the two calls are looked up in libc once.
    private enum Calls {
        typealias Get = @convention(c) (UnsafePointer<CChar>, UnsafePointer<CChar>, UnsafeMutableRawPointer?, Int) -> Int
        typealias Set = @convention(c) (Int32, UnsafePointer<CChar>, UnsafeRawPointer?, Int, Int32) -> Int32
        static let get = symbol("getxattr", as: Get.self)
        static let set = symbol("fsetxattr", as: Set.self)

        private static func symbol<T>(_ name: String, as type: T.Type) -> T? {
            guard let handle = dlopen(nil, RTLD_NOW), let pointer = dlsym(handle, name) else { return nil }
            return unsafeBitCast(pointer, to: type)
        }
    }
}
