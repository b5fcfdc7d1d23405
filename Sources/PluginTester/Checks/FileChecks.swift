#if canImport(Glibc)
import Glibc
#endif
import PipelineHost

/// Checks on the file itself, before any of its code runs.
enum FileChecks {
    static let all: [CheckDefinition] = [permissions, elf, exports]

    /// The host refuses files others could replace (ARCHITECTURE: security).
    static let permissions = CheckDefinition(id: "file.permissions", title: "file permissions and ownership", scope: .plugin) { context in
        let path = context.settings.pluginPath
        var info = stat()
        guard stat(path, &info) == 0 else { context.fail("cannot stat: \(String(cString: strerror(errno)))"); return }
        if (info.st_mode & S_IFMT) != S_IFREG { context.fail("not a regular file") }
        func judge(_ info: stat, _ what: String) {
            if info.st_mode & S_IWOTH != 0 { context.fail("\(what) is world-writable: the host refuses it (chmod o-w)") }
            if info.st_mode & S_IWGRP != 0 { context.fail("\(what) is group-writable: the host refuses it (chmod g-w)") }
            if info.st_uid != 0 && info.st_uid != geteuid() { context.fail("\(what) is owned by uid \(info.st_uid), not by you or root") }
        }
        judge(info, "the file")
        var folder = stat()
        let directory = PluginSearchPath.absolutePath(path).split(separator: "/").dropLast().joined(separator: "/")
        if stat("/" + directory, &folder) == 0, folder.st_mode & S_ISVTX == 0 { judge(folder, "its folder") }
        if info.st_mode & S_IXUSR == 0 { context.warn("the file is not executable (install with mode 0755 like other shared libraries)") }
        context.note("mode 0\(String(info.st_mode & 0o7777, radix: 8)), owner uid \(info.st_uid)")
    }

    /// An ELF shared object for this machine, so dlopen's error is never the first sign.
    static let elf = CheckDefinition(id: "file.elf", title: "ELF shared object for this machine", scope: .plugin) { context in
        let file = try ELFFile.read(path: context.settings.pluginPath)
        if file.type != 3 { context.fail("ELF type \(file.type), not a shared object (ET_DYN = 3): link with -shared") }
        guard let host = ELFFile.hostMachine() else { context.warn("cannot read the host's own ELF header"); return }
        if file.machine != host {
            context.fail("built for \(ELFFile.machineName(file.machine)); this host is \(ELFFile.machineName(host))")
        }
        context.note("\(file.is64Bit ? "ELF64" : "ELF32") \(file.isLittleEndian ? "little" : "big")-endian \(ELFFile.machineName(file.machine)) shared object")
    }

    /// Exactly one exported symbol, the entry: anything else can collide with other plugins' symbols.
    static let exports = CheckDefinition(id: "file.exports", title: "exports only imagepipe_plugin_entry", scope: .plugin) { context in
        let file = try ELFFile.read(path: context.settings.pluginPath)
        let names = file.exportedSymbols.map(\.name)
        if !names.contains("imagepipe_plugin_entry") {
            context.fail("does not export imagepipe_plugin_entry")
        }
        let others = names.filter { $0 != "imagepipe_plugin_entry" }
        if !others.isEmpty {
            let shown = others.prefix(8).joined(separator: ", ") + (others.count > 8 ? " and \(others.count - 8) more" : "")
            context.fail("exports \(others.count) other symbol(s): \(shown); link with a version script "
                         + "({ global: imagepipe_plugin_entry; local: *; };) and -fvisibility=hidden")
        }
        context.note("exports: \(names.joined(separator: ", "))")
    }
}
