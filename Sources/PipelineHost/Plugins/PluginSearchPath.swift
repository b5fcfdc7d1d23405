#if canImport(Glibc)
import Glibc
#endif

/// The ordered list of folders plugins are loaded from, with where each came from.
///
/// Order: `--plugin-dir` flags, then `IMAGEPIPE_PLUGIN_PATH` (colon-separated; ignored when the process runs with
/// elevated privileges, so a setuid caller cannot be fed plugins), then `plugins.d` next to the executable's tree.
/// The current directory is never searched implicitly: a relative entry is made absolute against the cwd only when
/// the user typed it as a flag.
public struct PluginSearchPath: Sendable, Equatable {
    public enum Origin: String, Sendable, Codable {
        case flag = "--plugin-dir"
        case environment = "IMAGEPIPE_PLUGIN_PATH"
        case executable = "next to the executable"
    }

    public struct Entry: Sendable, Equatable {
        public let directory: String
        public let origin: Origin
    }

    public let entries: [Entry]

    public init(entries: [Entry]) { self.entries = entries }

    /// Just these folders (tests, embedding applications).
    public init(directories: [String]) {
        entries = directories.map { Entry(directory: $0, origin: .flag) }
    }

    /// The search path the CLI uses.
    public static func standard(flags: [String], environment: String? = currentEnvironmentPath(),
                                executablePath: String? = currentExecutablePath()) -> PluginSearchPath {
        var entries = flags.map { Entry(directory: absolute($0), origin: .flag) }
        if let environment, getuid() == geteuid(), getgid() == getegid() {
            for part in environment.split(separator: ":") where part.hasPrefix("/") {
                entries.append(Entry(directory: String(part), origin: .environment))
            }
        }
        if let executablePath, let found = pluginsDirectory(forExecutable: executablePath) {
            entries.append(Entry(directory: found, origin: .executable))
        }
        var seen = Set<String>()
        return PluginSearchPath(entries: entries.filter { seen.insert($0.directory).inserted })
    }

    public static func currentEnvironmentPath() -> String? {
        getenv("IMAGEPIPE_PLUGIN_PATH").map { String(cString: $0) }
    }

    public static func currentExecutablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, Int(PATH_MAX))
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `<dir>/plugins.d`, `<prefix>/lib/imagepipe/plugins.d` for `<prefix>/bin/imagepipe`, or, in a build tree
    /// (`<repo>/.build/<triple>/<config>/imagepipe`), `<repo>/plugins.d` beside the Package.swift.
    static func pluginsDirectory(forExecutable executable: String) -> String? {
        let directory = parent(of: executable)
        var candidates = [directory + "/plugins.d", parent(of: directory) + "/lib/imagepipe/plugins.d"]
        var ancestor = directory
        for _ in 0..<5 {
            ancestor = parent(of: ancestor)
            if ancestor == "/" { break }
            if access(ancestor + "/Package.swift", F_OK) == 0 { candidates.append(ancestor + "/plugins.d") }
        }
        return candidates.first { isDirectory($0) }
    }

    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// `path` made absolute against the current directory (for paths the user typed).
    public static func absolutePath(_ path: String) -> String { absolute(path) }

    static func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return path }
        return String(cString: buffer) + "/" + path
    }

    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }
}
