#if canImport(Glibc)
import Glibc
#endif

/// The checks a file must pass before the host will dlopen it.
///
/// Loading a plugin runs its code with the host's privileges, so a file that someone else could have replaced
/// is refused: one that is group- or world-writable or owned by another user, or that lies below a folder that is
/// (someone who can write a folder can rename what is in it). The path is resolved first, so a symbolic link is
/// judged by what it points to, and the folders of both the link and its target are checked, each up to `/`.
///
/// The one allowance: a world-writable folder with the sticky bit (`/tmp`) may be an ancestor — the sticky bit
/// stops others from renaming or removing entries they do not own, so a folder of ours inside it stays ours —
/// but never the folder the plugin itself is in (anyone could add files there).
///
/// What is checked is what is loaded: the file is opened once, checked through that descriptor, and dlopened as
/// `/proc/self/fd/N`, so a file swapped in after the check is never the one that runs.
///
/// A scan checks every file of a folder against the same folders: `FolderFacts` resolves and checks each folder
/// once per scan (the file itself is still opened and checked each time), which took a 17-plugin scan from about
/// 240 `readlink` calls (realpath resolves every component, twice per file) to a handful.
enum PluginFileCheck {
    /// An open plugin file that passed every check. `loadPath` names that very file for dlopen; `close()` after.
    struct CheckedFile {
        let descriptor: Int32
        var loadPath: String { "/proc/self/fd/\(descriptor)" }
        func close() { _ = Glibc.close(descriptor) }
    }

    /// nil when the file may be loaded, else the reason it may not.
    static func refusal(path: String, facts: FolderFacts = FolderFacts()) -> String? {
        switch open(path: path, facts: facts) {
        case .success(let file):
            file.close()
            return nil
        case .failure(let refusal):
            return refusal.reason
        }
    }

    struct Refusal: Error {
        let reason: String
    }

    /// Opens and checks `path`; the caller closes the file.
    static func open(path: String, facts: FolderFacts = FolderFacts()) -> Result<CheckedFile, Refusal> {
        guard let resolved = facts.resolve(path) else { return .failure(Refusal(reason: "cannot resolve: \(String(cString: strerror(errno)))")) }
        let descriptor = Glibc.open(resolved, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { return .failure(Refusal(reason: "cannot open: \(String(cString: strerror(errno)))")) }
        let file = CheckedFile(descriptor: descriptor)
        if let reason = problem(descriptor: descriptor, resolved: resolved, linkFolder: PluginSearchPath.parent(of: path), facts: facts) {
            file.close()
            return .failure(Refusal(reason: reason))
        }
        return .success(file)
    }

    private static func problem(descriptor: Int32, resolved: String, linkFolder: String, facts: FolderFacts) -> String? {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return "cannot stat: \(String(cString: strerror(errno)))" }
        guard (info.st_mode & S_IFMT) == S_IFREG else { return "not a regular file" }
        if let reason = ownershipProblem(info, what: "file") { return reason }
        // The target's folders, then (for a link) the folders of the link itself.
        if let reason = facts.chainProblem(PluginSearchPath.parent(of: resolved)) { return reason }
        if let linkFolder = facts.realFolder(linkFolder), linkFolder != PluginSearchPath.parent(of: resolved),
           let reason = facts.chainProblem(linkFolder) {
            return "its link: " + reason
        }
        var header = [UInt8](repeating: 0, count: 20)
        let got = pread(descriptor, &header, header.count, 0)
        guard got >= 0 else { return "cannot read: \(String(cString: strerror(errno)))" }
        header = Array(header[0..<got])
        guard header.count >= 4, header[0..<4] == [0x7F, 0x45, 0x4C, 0x46] else { return "not an ELF file" }
        return architectureProblem(header)
    }

    /// The first folder from `folder` up to `/` that others could write to, as a reason; the plugin's own folder
    /// gets no sticky-bit allowance.
    static func folderChainProblem(_ folder: String) -> String? {
        var current = folder
        var immediate = true
        while true {
            var info = stat()
            guard stat(current, &info) == 0 else { return "cannot stat folder \(current): \(String(cString: strerror(errno)))" }
            let stickyShared = !immediate && (info.st_mode & S_ISVTX) != 0 && info.st_uid == 0
            if !stickyShared, let reason = ownershipProblem(info, what: immediate ? "folder" : "folder \(current)") {
                return reason
            }
            if current == "/" { return nil }
            current = PluginSearchPath.parent(of: current)
            if current.isEmpty { current = "/" }
            immediate = false
        }
    }

    static func realpathString(_ path: String) -> String? {
        guard let pointer = realpath(path, nil) else { return nil }
        defer { free(pointer) }
        return String(cString: pointer)
    }

    /// dlopen says only "No such file or directory" or "wrong ELF class" for a library built for another machine;
    /// the ELF header says which machine it is for.
    static func architectureProblem(_ header: [UInt8]) -> String? {
        guard header.count >= 20 else { return "truncated ELF header" }
        let littleEndian = header[5] == 1
        let machine = littleEndian ? UInt16(header[18]) | UInt16(header[19]) << 8 : UInt16(header[18]) << 8 | UInt16(header[19])
        let bits = header[4] == 2 ? 64 : 32
        guard machine != hostMachine || bits != MemoryLayout<Int>.size * 8 else { return nil }
        let name = machineNames[machine] ?? "ELF machine \(machine)"
        return "wrong architecture (\(name)\(machineNames[machine] == nil || machine == hostMachine ? ", \(bits)-bit" : "")); "
            + "this host is \(machineNames[hostMachine] ?? "?")"
    }

    #if arch(x86_64)
    static let hostMachine: UInt16 = 62
    #elseif arch(arm64)
    static let hostMachine: UInt16 = 183
    #else
    static let hostMachine: UInt16 = 0
    #endif

    static let machineNames: [UInt16: String] = [
        3: "i386", 8: "mips", 20: "powerpc", 21: "ppc64", 22: "s390x", 40: "arm", 62: "x86_64", 183: "aarch64",
        243: "riscv64", 258: "loongarch64",
    ]

    private static func ownershipProblem(_ info: stat, what: String) -> String? {
        if info.st_mode & S_IWOTH != 0 { return "\(what) is world-writable" }
        if info.st_mode & S_IWGRP != 0 { return "\(what) is group-writable" }
        if info.st_uid != 0 && info.st_uid != geteuid() { return "\(what) is owned by uid \(info.st_uid), not by you or root" }
        return nil
    }
}
