#if canImport(Glibc)
import Glibc
#endif
import PluginAPI

/// The plugin shares the host's process: it must leave locale, cwd, umask, signal handlers and environment alone,
/// and must not leak file descriptors (compared before and after load + init + real use of every component).
enum GlobalStateChecks {
    static let all: [CheckDefinition] = [globalState]

    static let globalState = CheckDefinition(
        id: "process.global-state", title: "leaves locale, cwd, umask, signals, environment and fds alone", scope: .plugin
    ) { context in
        // Inputs are prepared before the baseline, so that their files are not counted as the plugin's.
        let folder = try temporaryFolder()
        defer { removeFolder(folder) }
        let file = folder + "/input.bin"
        try writeFile(file, Array(repeating: 0x5A, count: 4096))
        let sampleBytes = context.samplesByCoder.compactMapValues { Samples.readFile($0) }

        let before = ProcessState.capture()
        let plugin = try context.plugin()
        let description = try PluginDescription(plugin: plugin)
        let coders = try plugin.coders().enumerated().map {
            CoderUnderTest(table: $0.element, info: description.coders[$0.offset], callLimit: context.settings.callLimit)
        }
        let loaders = try plugin.loaders().enumerated().map {
            LoaderUnderTest(table: $0.element, info: description.loaders[$0.offset], callLimit: context.settings.callLimit)
        }
        let caches = try plugin.caches().enumerated().map {
            CacheUnderTest(table: $0.element, info: description.caches[$0.offset], callLimit: context.settings.callLimit)
        }
        var used: [String] = []
        /// One round of real use of every component.
        func exercise(_ round: Int) {
            for (index, coder) in coders.enumerated() {
                if coder.info.decodes, let bytes = sampleBytes[index] {
                    _ = coder.probe(bytes, label: "global state round \(round): probe a sample")
                    _ = coder.decode(bytes, label: "global state round \(round): decode a sample")
                    if round == 1 { used.append("decoded a \(coder.info.format) sample") }
                } else if coder.info.encodes {
                    _ = SyntheticImage.roundTrip(coder, label: "global state round \(round)")
                    if round == 1 { used.append("encoded\(coder.info.decodes ? " and decoded" : "") \(coder.info.format)") }
                }
            }
            for loader in loaders {
                if loader.info.schemes.contains("file") {
                    _ = loader.load("file://" + file, wait: 10)
                    if round == 1 { used.append("loaded a file") }
                } else if let scheme = loader.info.schemes.first {
                    // Port 9 (discard) on the loopback: refused at once, which still sets the loader up.
                    _ = loader.load("\(scheme)://127.0.0.1:9/x", wait: 10)
                    if round == 1 { used.append("loaded from \(scheme)://127.0.0.1:9 (refused)") }
                }
            }
            for cache in caches {
                let opened = cache.open(nil)
                guard opened.status == IP_STATUS_OK else { continue }
                _ = cache.put(opened.store, "global-state", [1, 2, 3])
                _ = cache.get(opened.store, "global-state")
                _ = cache.remove(opened.store, "global-state")
                cache.close(opened.store)
                if round == 1 { used.append("used a cache") }
            }
        }
        exercise(1)
        let afterFirstUse = ProcessState.capture()
        for round in 2...4 { exercise(round) }
        let after = ProcessState.capture()

        for change in after.globalChanges(since: before) { context.fail(change) }
        let kept = afterFirstUse.newDescriptors(since: before)
        if !kept.isEmpty {
            context.warn("keeps \(kept.count) file descriptor(s) open after its first use: \(kept.prefix(6).joined(separator: ", "))")
        }
        let leaked = after.descriptors.count - afterFirstUse.descriptors.count
        if leaked > 0 {
            let shown = after.newDescriptors(since: afterFirstUse).prefix(6).joined(separator: ", ")
            context.fail("leaks file descriptors: \(leaked) more open after 3 more rounds of use (\(shown))")
        }
        let logged = TestHost.logLines.withLock { $0 }
        if !logged.isEmpty { context.note("logged \(logged.count) line(s) through host->log, e.g. \(logged[0].prefix(120))") }
        context.note("unchanged after load, init and 4 rounds of use (\(used.isEmpty ? "no component could be exercised" : used.joined(separator: ", ")))")
    }

    /// A fresh private folder in TMPDIR (or /tmp), as every Unix tool makes its scratch files: a test run that points
    /// TMPDIR at a folder of its own (scripts/no-leftovers) then sees what the checks leave behind.
    static func temporaryFolder() throws -> String {
        var base = getenv("TMPDIR").map { String(cString: $0) } ?? ""
        while base.count > 1, base.hasSuffix("/") { base.removeLast() }
        if base.isEmpty { base = "/tmp" }
        var template = Array("\(base)/imagepipe-check.XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw PluginUnderTest.Failure("mkdtemp failed") }
        return String(cString: made)
    }

    static func writeFile(_ path: String, _ bytes: [UInt8]) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw PluginUnderTest.Failure("cannot create \(path)") }
        defer { close(fd) }
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            guard written > 0 else { throw PluginUnderTest.Failure("cannot write \(path)") }
            offset += written
        }
    }

    static func removeFolder(_ path: String) {
        guard let directory = opendir(path) else { return }
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { unlink(path + "/" + name) }
        }
        closedir(directory)
        rmdir(path)
    }
}
