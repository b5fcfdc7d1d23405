import Foundation
import PipelineHost
import TestSupport

/// Helpers of the isolation tests: the broken coder fixture, pools over the built CLI, and POSIX views of
/// /proc (Foundation reads /proc files as empty).
enum IsolationSupport {
    /// The worker program: the release CLI, which serves `__worker`.
    static func workerExecutable() throws -> String {
        let path = TestPaths.imagepipeBinary
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw TestSupportError("\(path) is missing: build it first (swift build -c release --product imagepipe)")
        }
        return path
    }

    /// A fresh private folder with Tests/Fixtures/broken_coder.c compiled into it, plus copies of `plugins`
    /// (file names in plugins.d).
    static func pluginFolder(with plugins: [String] = []) throws -> String {
        let folder = try PluginSandbox.directory(with: plugins)
        let output = folder + "/libBrokenCoder.so"
        let result = try CommandLine.run("/usr/bin/cc", [
            "-std=c11", "-O0", "-fPIC", "-shared", "-fvisibility=hidden", "-Wall", "-Wextra", "-Werror",
            "-I", TestPaths.repositoryRoot + "/Sources/PluginAPI/include",
            "-o", output, TestPaths.repositoryRoot + "/Tests/Fixtures/broken_coder.c",
        ])
        guard result.status == 0 else { throw TestSupportError("cc failed for broken_coder.c: \(result.stderr)") }
        chmod(output, 0o755)
        return folder
    }

    /// A host over `folder` that neither reads nor writes the user's registry cache.
    static func host(_ folder: String) -> PluginHost {
        PluginHost(registry: PluginRegistry.scan(PluginSearchPath(directories: [folder]), cachePath: nil))
    }

    /// A pool whose workers serve `host`'s search path, attached to the host's coders manager.
    @discardableResult
    static func attachPool(to host: PluginHost, size: Int = 2, timeout: Double = 5, memoryLimit: Int = 512 << 20,
                           inputArenaLimit: Int = 64 << 20) throws -> WorkerPool {
        let pool = WorkerPool(configuration: WorkerPool.Configuration(
            executable: try workerExecutable(), pluginDirectories: host.registry.searchPath.entries.map(\.directory),
            registryCachePath: nil, size: size, memoryLimit: memoryLimit, timeout: timeout, inputArenaLimit: inputArenaLimit))
        host.coders.isolator = Isolator(policy: .automatic, pool: pool)
        return pool
    }

    static func input(_ mode: String) -> [UInt8] { Array("BROKEN:\(mode)".utf8) }

    /// The PipelineError `body` throws (nil when it succeeds or throws something else).
    static func failure(_ body: () throws -> Void) -> PipelineError? {
        do {
            try body()
            return nil
        } catch {
            return error as? PipelineError
        }
    }

    // MARK: /proc

    /// What each open descriptor of this process points at ("socket:[123]", "/memfd:imagepipe-out (deleted)" ...).
    static func openDescriptors() -> [String] {
        guard let directory = opendir("/proc/self/fd") else { return [] }
        defer { closedir(directory) }
        var targets: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard Int(name) != nil else { continue }
            var buffer = [CChar](repeating: 0, count: 4096)
            let count = readlink("/proc/self/fd/" + name, &buffer, buffer.count - 1)
            if count > 0 { targets.append(String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)) }
        }
        return targets
    }

    /// Open descriptors that are SOCK_SEQPACKET Unix sockets or memfds: what a worker pool creates. Other sockets
    /// are left out: the process-wide HTTP engine keeps other suites' TCP connections open, and Foundation's Process
    /// (other suites run reference tools) uses stream sockets.
    static func poolLikeDescriptors() -> [String] {
        let unixInodes = Set((readProc("/proc/self/net/unix") ?? "").split(separator: "\n").dropFirst().compactMap { line -> String? in
            // Num RefCount Protocol Flags Type St Inode [Path]; Type 0005 is SOCK_SEQPACKET.
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 7, fields[4] == "0005" else { return nil }
            return String(fields[6])
        })
        return openDescriptors().filter { target in
            if target.contains("memfd") { return true }
            guard target.hasPrefix("socket:[") else { return false }
            return unixInodes.contains(String(target.dropFirst(8).dropLast()))
        }
    }

    /// The whole text of a /proc file, read with a POSIX loop.
    static func readProc(_ path: String) -> String? {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(fd, &chunk, chunk.count)
            if count <= 0 { break }
            bytes += chunk[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Lines of /proc/self/maps that map one of the isolation memfds.
    static func sharedMemoryMappings() -> Int {
        (readProc("/proc/self/maps") ?? "").split(separator: "\n").filter { $0.contains("memfd:imagepipe") }.count
    }

    /// Among `pids`, those still children of this process (alive, or zombies nobody reaped), with their state.
    static func lingeringChildren(_ pids: [Int32]) -> [String] {
        pids.compactMap { pid in
            guard let stat = readProc("/proc/\(pid)/stat"), let close = stat.lastIndex(of: ")") else { return nil }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 2, Int32(fields[1]) == getpid() else { return nil }
            return "\(pid) state \(fields[0])"
        }
    }
}
