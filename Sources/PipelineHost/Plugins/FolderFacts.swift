#if canImport(Glibc)
import Glibc
#endif

/// What `PluginFileCheck` learns about folders during one scan, so that the files of one folder share one
/// resolution and one ownership walk up to `/` instead of repeating both per file.
///
/// Only folders are remembered, and only for as long as the caller keeps the value (one registry scan, a few
/// milliseconds): each plugin file is still resolved, opened and checked on its own. A file that is itself a
/// symbolic link (or a path whose last part is `.` or `..`) is resolved in full by `realpath`, as before.
final class FolderFacts {
    private var realFolders: [String: String] = [:]
    private var chainProblems: [String: String?] = [:]

    init() {}

    /// `path` with every link resolved: the folder's memoized real path plus the file's name when the file is not
    /// a link, else `realpath` of the whole. nil (errno set) when it cannot be resolved.
    func resolve(_ path: String) -> String? {
        let folder = PluginSearchPath.parent(of: path)
        let name = path.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? path
        var info = stat()
        if path.contains("/"), !name.isEmpty, name != ".", name != "..",
           lstat(path, &info) == 0, (info.st_mode & S_IFMT) != S_IFLNK,
           let real = realFolder(folder) {
            return real == "/" ? "/" + name : real + "/" + name
        }
        return PluginFileCheck.realpathString(path)
    }

    func realFolder(_ folder: String) -> String? {
        if let known = realFolders[folder] { return known }
        let real = PluginFileCheck.realpathString(folder)
        if real != nil { realFolders[folder] = real }  // a failure is not remembered: errno must describe it
        return real
    }

    func chainProblem(_ folder: String) -> String? {
        if let known = chainProblems[folder] { return known }
        let problem = PluginFileCheck.folderChainProblem(folder)
        chainProblems[folder] = .some(problem)
        return problem
    }
}
