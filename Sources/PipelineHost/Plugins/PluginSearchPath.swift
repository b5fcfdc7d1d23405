import PluginAPI
#if canImport(Glibc)
import Glibc
#endif

/// The ordered list of folders plugins are loaded from, with where each came from.
///
/// Order, as GStreamer and gdk-pixbuf search theirs: `--plugin-dir` flags; `IMAGEPIPE_PLUGIN_PATH` (colon-separated);
/// the per-user folder (`$XDG_DATA_HOME/imagepipe/<major>/plugins.d`, default `~/.local/share/...`); the system
/// folders (the prefix the executable is installed in, `/usr/local/lib/...`, `/usr/lib/<multiarch>/...`,
/// `/usr/lib/...`); then `plugins.d` next to the executable (a build tree). Folders are versioned by the ABI major
/// so plugins of two majors can be installed side by side. The environment and the per-user folder are ignored when
/// the process runs with elevated privileges, so a set-uid caller cannot be fed plugins. The current directory is
/// never searched implicitly: a relative entry is made absolute against the cwd only when the user typed it as a flag.
/// A folder that does not exist stays on the path (so `imagepipe plugins` can say where it looked) and is skipped.
public struct PluginSearchPath: Sendable, Equatable {
    public enum Origin: String, Sendable, Codable {
        case flag = "--plugin-dir"
        case environment = "IMAGEPIPE_PLUGIN_PATH"
        case user = "per-user folder"
        case system = "system folder"
        case executable = "next to the executable"
    }

    public struct Entry: Sendable, Equatable {
        public let directory: String
        public let origin: Origin

        public init(directory: String, origin: Origin) {
            self.directory = directory
            self.origin = origin
        }

        /// Whether the folder exists now (checked when asked; the scan skips a missing one).
        public var exists: Bool { PluginSearchPath.isDirectory(directory) }
    }

    public let entries: [Entry]

    public init(entries: [Entry]) { self.entries = entries }

    /// Just these folders (tests, embedding applications that ship their plugins in a folder of their own).
    public init(directories: [String]) {
        entries = directories.map { Entry(directory: $0, origin: .flag) }
    }

    /// The folder name below a prefix's `lib` (or `lib/<multiarch>`): `imagepipe/1/plugins.d` for ABI major 1.
    public static let versionedFolder = "imagepipe/\(IP_ABI_MAJOR)/plugins.d"

    /// Debian's multiarch triplet of this build, for `/usr/lib/<triplet>/imagepipe/...` (where the package installs).
    public static var multiarchTriplet: String {
        #if arch(x86_64)
        "x86_64-linux-gnu"
        #elseif arch(arm64)
        "aarch64-linux-gnu"
        #elseif arch(arm)
        "arm-linux-gnueabihf"
        #else
        "unknown-linux-gnu"
        #endif
    }

    /// The search path an embedding application gets when it names no folders: the same as the CLI's without flags,
    /// so an app finds the plugins that `make install` or the Debian package put in a standard folder.
    public static var `default`: PluginSearchPath { standard(flags: []) }

    /// The search path the CLI uses. `defaults: false` (`--no-default-plugins`) keeps only the flags and the
    /// environment: a plugin folder tested alone.
    public static func standard(flags: [String], environment: String? = currentEnvironmentPath(),
                                executablePath: String? = currentExecutablePath(),
                                userDataHome: String? = currentUserDataHome(),
                                defaults: Bool = true) -> PluginSearchPath {
        var entries = flags.map { Entry(directory: absolute($0), origin: .flag) }
        let elevated = getuid() != geteuid() || getgid() != getegid()
        if let environment, !elevated {
            for part in environment.split(separator: ":") where part.hasPrefix("/") {
                entries.append(Entry(directory: String(part), origin: .environment))
            }
        }
        if defaults {
            if let userDataHome, !elevated {
                entries.append(Entry(directory: userDataHome + "/" + versionedFolder, origin: .user))
            }
            entries += systemDirectories(executablePath: executablePath).map { Entry(directory: $0, origin: .system) }
            if let executablePath, let found = buildTreeDirectory(forExecutable: executablePath) {
                entries.append(Entry(directory: found, origin: .executable))
            }
        }
        var seen = Set<String>()
        return PluginSearchPath(entries: entries.filter { seen.insert($0.directory).inserted })
    }

    /// `<prefix>/lib/imagepipe/<major>/plugins.d` for an executable installed as `<prefix>/bin/<name>` (the prefix
    /// `make install PREFIX=...` used, wherever that is), then the standard prefixes.
    static func systemDirectories(executablePath: String?) -> [String] {
        var folders: [String] = []
        if let executablePath {
            let bin = parent(of: executablePath)
            if bin.hasSuffix("/bin") { folders.append(parent(of: bin) + "/lib/" + versionedFolder) }
        }
        folders += [
            "/usr/local/lib/" + versionedFolder,
            "/usr/lib/\(multiarchTriplet)/" + versionedFolder,
            "/usr/lib/" + versionedFolder,
        ]
        return folders
    }

    public static func currentEnvironmentPath() -> String? {
        getenv("IMAGEPIPE_PLUGIN_PATH").map { String(cString: $0) }
    }

    /// `$XDG_DATA_HOME` when it is absolute (the XDG rule: a relative one is ignored), else `$HOME/.local/share`,
    /// else the account's home from the password database.
    public static func currentUserDataHome() -> String? {
        if let xdg = getenv("XDG_DATA_HOME").map({ String(cString: $0) }), xdg.hasPrefix("/") { return xdg }
        if let home = getenv("HOME").map({ String(cString: $0) }), home.hasPrefix("/") { return home + "/.local/share" }
        guard let entry = getpwuid(getuid()), let directory = entry.pointee.pw_dir else { return nil }
        let home = String(cString: directory)
        return home.hasPrefix("/") ? home + "/.local/share" : nil
    }

    public static func currentExecutablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, Int(PATH_MAX))
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `<dir>/plugins.d` beside the executable, or, in a build tree (`<repo>/.build/<triple>/<config>/imagepipe`),
    /// `<repo>/plugins.d` beside the Package.swift.
    static func buildTreeDirectory(forExecutable executable: String) -> String? {
        let directory = parent(of: executable)
        var candidates = [directory + "/plugins.d"]
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
