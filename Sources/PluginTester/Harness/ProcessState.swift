#if canImport(Glibc)
import Glibc
#endif
import PipelineHost

/// The process-global state a plugin must leave alone (ABI rule: no setlocale, chdir, umask, signal handlers,
/// setenv), plus the open file descriptors, captured so that a check can compare before and after.
struct ProcessState: Equatable {
    var locale: String
    var directory: String
    var fileMask: mode_t
    /// Signal number → (handler address, flags) for 1...31.
    var signalHandlers: [Int32: String]
    var environment: [String]
    /// fd → what it points at (from /proc/self/fd).
    var descriptors: [Int32: String]

    static func capture() -> ProcessState {
        let locale = setlocale(LC_ALL, nil).map { String(cString: $0) } ?? "(null)"
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let directory = getcwd(&buffer, buffer.count).map { _ in String(cString: buffer) } ?? "(unknown)"
        let mask = umask(0o022)
        umask(mask)
        var handlers: [Int32: String] = [:]
        for signal in Int32(1)...31 where signal != SIGKILL && signal != SIGSTOP {
            var action = sigaction()
            guard sigaction(signal, nil, &action) == 0 else { continue }
            let handler = unsafeBitCast(action.__sigaction_handler, to: UInt.self)
            let name = handler == 0 ? "default" : handler == 1 ? "ignored" : "handler 0x" + String(handler, radix: 16)
            handlers[signal] = "\(name) flags 0x\(String(action.sa_flags, radix: 16))"
        }
        var environment: [String] = []
        if var cursor = Optional(environ) {
            while let entry = cursor.pointee {
                environment.append(String(cString: entry))
                cursor += 1
            }
        }
        return ProcessState(locale: locale, directory: directory, fileMask: mask, signalHandlers: handlers,
                            environment: environment.sorted(), descriptors: openDescriptors())
    }

    /// Open file descriptors and their targets, without the one used to list them.
    static func openDescriptors() -> [Int32: String] {
        guard let directory = opendir("/proc/self/fd") else { return [:] }
        defer { closedir(directory) }
        let own = dirfd(directory)
        var result: [Int32: String] = [:]
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
            guard let fd = Int32(name), fd != own else { continue }
            var target = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let count = readlink("/proc/self/fd/" + name, &target, Int(PATH_MAX))
            result[fd] = count > 0 ? String(decoding: target[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self) : "?"
        }
        return result
    }

    /// Every difference from `before`, worded for the report; descriptors are compared separately.
    func globalChanges(since before: ProcessState) -> [String] {
        var changes: [String] = []
        if locale != before.locale { changes.append("changed the locale (setlocale) from \"\(before.locale)\" to \"\(locale)\"") }
        if directory != before.directory { changes.append("changed the working directory from \(before.directory) to \(directory)") }
        if fileMask != before.fileMask {
            changes.append("changed the umask from 0\(String(before.fileMask, radix: 8)) to 0\(String(fileMask, radix: 8))")
        }
        for signal in signalHandlers.keys.sorted() where signalHandlers[signal] != before.signalHandlers[signal] {
            changes.append("changed the handler of signal \(signal) (\(signalName(signal))): \(before.signalHandlers[signal] ?? "?") → \(signalHandlers[signal] ?? "?")")
        }
        let added = Set(environment).subtracting(before.environment).sorted()
        let removed = Set(before.environment).subtracting(environment).sorted()
        for entry in added { changes.append("set the environment variable \(entry.prefix(200))") }
        for entry in removed where !added.contains(where: { $0.hasPrefix(entry.prefix { $0 != "=" } + "=") }) {
            changes.append("removed the environment variable \(entry.prefix { $0 != "=" })")
        }
        return changes
    }

    /// Descriptors open now that were not open in `before`.
    func newDescriptors(since before: ProcessState) -> [String] {
        descriptors.keys.sorted().filter { before.descriptors[$0] != descriptors[$0] }.map { "fd \($0) → \(descriptors[$0] ?? "?")" }
    }

    private func signalName(_ signal: Int32) -> String { ChildProcess.signalName(signal) }
}
