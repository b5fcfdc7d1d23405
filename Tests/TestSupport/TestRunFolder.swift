import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The one folder under the system temporary directory that holds every folder a test process makes, removed
/// with all it holds when the process exits.
///
/// Why: tests copy plugins (a megabyte or more each) and write fixtures into hundreds of private folders; left
/// in /tmp, one `make test` leaves about two thousand of them and gigabytes behind, and a developer's /tmp fills
/// within a day. A test cannot remove its own folder safely (a worker or a server it started may still use it until
/// the test's deferred stops run), the process's exit can. A process that dies before its exit handlers run (a
/// crash, SIGKILL) leaves its folder: a later test process removes the folders of processes that are gone.
enum TestRunFolder {
    private static let prefix = "imagepipe-tests."
    /// The process that made the folder: a child forked from it (and not exec'd) inherits the exit handler, and must
    /// not remove the folder its parent still uses.
    private static let owner = getpid()
    /// How long an abandoned folder is left alone: its pid may belong to another PID namespace sharing this /tmp,
    /// where a live run's pid looks gone; a live run keeps its folder's time fresh by making folders in it.
    private static let abandonedAfterSeconds = 3600

    /// `<tmp>/imagepipe-tests.<pid>.XXXXXX`, canonical, private (0700); made on first use.
    static let path: String = {
        var temporary = NSTemporaryDirectory()
        while temporary.count > 1, temporary.hasSuffix("/") { temporary.removeLast() }
        removeAbandoned(in: temporary)
        var template = Array("\(temporary)/\(prefix)\(getpid()).XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else {
            fatalError("cannot make the tests' folder in \(temporary): \(String(cString: strerror(errno)))")
        }
        let canonical = realpath(made, nil).map { pointer in
            defer { free(pointer) }
            return String(cString: pointer)
        } ?? String(cString: made)
        // `owner` is lazy like every static: read it now, in the process that makes the folder, not first in the
        // exit handler, where a forked child would take its own pid for the owner's.
        _ = owner
        atexit {
            if getpid() == TestRunFolder.owner { removeTree(TestRunFolder.path) }
        }
        return canonical
    }()

    /// Removes the folders of earlier test processes that no longer run (their pid is the name's second part) and
    /// have not changed for `abandonedAfterSeconds`.
    private static func removeAbandoned(in temporary: String) {
        guard let directory = opendir(temporary) else { return }
        defer { closedir(directory) }
        var abandoned: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard name.hasPrefix(prefix) else { continue }
            let parts = name.dropFirst(prefix.count).split(separator: ".")
            guard parts.count == 2, let pid = pid_t(parts[0]), pid > 0 else { continue }
            var info = stat()
            guard lstat(temporary + "/" + name, &info) == 0, info.st_mode & S_IFMT == S_IFDIR, info.st_uid == getuid(),
                  time(nil) - info.st_mtim.tv_sec > abandonedAfterSeconds else { continue }
            if kill(pid, 0) != 0, errno == ESRCH { abandoned.append(name) }
        }
        for name in abandoned { removeTree(temporary + "/" + name) }
    }

    /// `rm -rf`: symbolic links are removed, never followed; a folder a test made read-only is opened up first, so
    /// that a run as an ordinary user removes it too.
    static func removeTree(_ root: String) {
        let parent = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard parent >= 0 else { return }
        defer { close(parent) }
        removeEntry(root, in: parent)
    }

    /// Removes `name` (relative to the folder `parent`, or absolute), descending into it when it is a folder.
    private static func removeEntry(_ name: String, in parent: Int32) {
        if unlinkat(parent, name, 0) == 0 || (errno != EISDIR && errno != EPERM) { return }
        fchmodat(parent, name, 0o700, 0)
        let folder = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard folder >= 0, let stream = fdopendir(folder) else {
            if folder >= 0 { close(folder) }
            return
        }
        var children: [String] = []
        while let entry = readdir(stream) {
            let child = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if child != ".", child != ".." { children.append(child) }
        }
        for child in children { removeEntry(child, in: dirfd(stream)) }
        closedir(stream)
        unlinkat(parent, name, AT_REMOVEDIR)
    }
}
