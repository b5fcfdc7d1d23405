#if canImport(Glibc)
import Glibc
#endif

/// The one way the host starts a process — isolation workers and the scanner and tester children alike: argv and
/// the environment (this process's, with overrides) as C arrays, then `posix_spawn` with the caller's file
/// actions and attributes (which differ: a worker gets its socket on descriptor 3, a child its pipes).
enum ProcessSpawn {
    /// Starts `executable` (also argv[0]) with `arguments`; returns the pid, or the `posix_spawn` error number.
    static func spawn(_ executable: String, _ arguments: [String], overrides: [String: String],
                      actions: UnsafePointer<posix_spawn_file_actions_t>, attributes: UnsafePointer<posix_spawnattr_t>)
        -> Result<pid_t, SpawnFailure> {
        let argv = ([executable] + arguments).map { strdup($0) }
        let envp = environment(overrides).map { strdup($0) }
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let status = (argv + [nil]).withUnsafeBufferPointer { argvPointer in
            (envp + [nil]).withUnsafeBufferPointer { envPointer in
                posix_spawn(&pid, executable, actions, attributes, argvPointer.baseAddress!, envPointer.baseAddress!)
            }
        }
        return status == 0 ? .success(pid) : .failure(SpawnFailure(number: status))
    }

    /// A `posix_spawn` error number, described.
    struct SpawnFailure: Error, CustomStringConvertible {
        let number: Int32
        var description: String { String(cString: strerror(number)) }
    }

    /// This process's environment with `overrides` applied (overridden names dropped, the overrides appended).
    static func environment(_ overrides: [String: String]) -> [String] {
        var result: [String] = []
        if var cursor = Optional(environ) {
            while let entry = cursor.pointee {
                let line = String(cString: entry)
                let name = line.split(separator: "=", maxSplits: 1).first.map(String.init) ?? line
                if overrides[name] == nil { result.append(line) }
                cursor += 1
            }
        }
        return result + overrides.map { "\($0.key)=\($0.value)" }.sorted()
    }
}
