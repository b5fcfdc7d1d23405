import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Inspects plugin files in a child process, so that a plugin that crashes or hangs while it is opened is
/// refused with a reason instead of taking the host down (GStreamer's plugin scanner).
///
/// The child is an executable that serves the scanner protocol, normally the CLI itself
/// (`imagepipe __scan <file.so>...`, which calls `PluginScanner.serve`). One child inspects every file that
/// missed the registry cache, in order; when it dies or stalls on a file, that file is refused ("crashed while
/// being scanned (signal 11)", "timed out after 10 s while being scanned") and a fresh child continues with the
/// rest. The refusal is cached under the file's key like any inspection, so the file is skipped until it changes.
///
/// Protocol, one line each on the child's standard output: `scanning <n>` before file n is opened, then
/// `inspection <n> <FileInspection as JSON>`. Anything else is ignored.
public struct PluginScanner: Sendable {
    /// The scanner executable and the arguments that precede the file paths.
    public let executable: String
    public let arguments: [String]
    /// Seconds one file may take before it is declared hung.
    public let timeout: Double

    public init(executable: String, arguments: [String] = ["__scan"], timeout: Double = 10) {
        self.executable = executable
        self.arguments = arguments
        self.timeout = timeout
    }

    /// Inspections of `paths` made in child processes. A path is missing from the result only when no child
    /// could be started at all (the caller then inspects in process).
    func inspect(_ paths: [String]) -> [String: FileInspection] {
        var results: [String: FileInspection] = [:]
        var remaining = paths[...]
        while !remaining.isEmpty {
            let batch = Array(remaining)
            guard let child = try? ChildProcess(executable: executable, arguments: arguments + batch) else { break }
            var current: Int?
            var deadline = ChildProcess.now() + timeout
            var stalled = false
            reading: while true {
                switch child.nextLine(until: deadline) {
                case .line(let line):
                    let parts = line.split(separator: " ", maxSplits: 2)
                    guard parts.count >= 2, let index = Int(parts[1]), batch.indices.contains(index) else { continue }
                    if parts[0] == "scanning" {
                        current = index
                        deadline = ChildProcess.now() + timeout
                    } else if parts[0] == "inspection", parts.count == 3,
                              let inspection = try? JSONDecoder().decode(FileInspection.self, from: Data(parts[2].utf8)) {
                        results[batch[index]] = inspection
                        current = nil
                    }
                case .end:
                    break reading
                case .timedOut:
                    stalled = true
                    break reading
                }
            }
            let termination = stalled ? nil : child.finish(within: timeout)
            if stalled || termination == nil { child.kill(); _ = child.wait(until: ChildProcess.now() + 5) }
            // Files the child finished are done; the one it was working on is refused; the rest go to a new child.
            let finished = batch.filter { results[$0] != nil }.count
            if finished == batch.count { break }
            guard let failed = current else {
                // Died between files: retry the rest. Died before starting any: the scanner is unusable, and
                // the caller inspects what is left in process.
                if finished == 0 { break }
                remaining = remaining.dropFirst(finished)
                continue
            }
            var refusal = FileInspection()
            switch termination {
            case .signaled(let signal):
                refusal.refusal = "crashed while being scanned (signal \(signal), \(ChildProcess.signalName(signal)))"
            case .exited(let status):
                let detail = child.errorText.split(separator: "\n").last.map { ": \($0)" } ?? ""
                refusal.refusal = "the scanner exited with status \(status) while scanning it\(detail)"
            case nil:
                refusal.refusal = "timed out after \(Self.format(timeout)) s while being scanned"
            }
            results[batch[failed]] = refusal
            remaining = remaining.dropFirst(failed + 1)
        }
        return results
    }

    /// The child side of the protocol: inspects each path in this process and reports on standard output.
    /// Returns the exit status. Standard output is reserved for the protocol: what plugins print goes to stderr.
    public static func serve(paths: [String]) -> Int32 {
        let out = dup(1)
        guard out >= 0 else { return 1 }
        dup2(2, 1)
        func send(_ text: String) {
            let line = text + "\n"
            _ = line.withCString { Glibc.write(out, $0, strlen($0)) }
        }
        let encoder = JSONEncoder()
        for (index, path) in paths.enumerated() {
            // A backstop in case the parent died: a hung plugin cannot keep this process alive forever.
            alarm(120)
            send("scanning \(index)")
            let (inspection, _) = PluginRegistry.inspectNow(path)
            guard let data = try? encoder.encode(inspection) else { return 1 }
            send("inspection \(index) " + String(decoding: data, as: UTF8.self))
        }
        alarm(0)
        return 0
    }

    private static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }
}
