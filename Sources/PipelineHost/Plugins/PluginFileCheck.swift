#if canImport(Glibc)
import Glibc
#endif

/// The checks a file must pass before the host will dlopen it.
///
/// Loading a plugin runs its code with the host's privileges, so a file that someone else could have replaced
/// (group- or world-writable, or owned by another user) is refused, and so is a file in such a folder.
enum PluginFileCheck {
    /// nil when the file may be loaded, else the reason it may not.
    static func refusal(path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return "cannot stat: \(String(cString: strerror(errno)))" }
        guard (info.st_mode & S_IFMT) == S_IFREG else { return "not a regular file" }
        if let reason = ownershipProblem(info, what: "file") { return reason }
        var folder = stat()
        if stat(PluginSearchPath.parent(of: path), &folder) == 0,
           let reason = ownershipProblem(folder, what: "folder"), (folder.st_mode & S_ISVTX) == 0 {
            return reason
        }
        guard let header = leadingBytes(path: path, count: 20) else { return "cannot read: \(String(cString: strerror(errno)))" }
        guard header.count >= 4, header[0..<4] == [0x7F, 0x45, 0x4C, 0x46] else { return "not an ELF file" }
        return architectureProblem(header)
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

    static func leadingBytes(path: String, count: Int) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: count)
        let got = read(fd, &bytes, count)
        return got < 0 ? nil : Array(bytes[0..<got])
    }
}
