import FoundationEssentials
import PipelineHost
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// What a batch tells its user as it goes, from any lane at once.
///
/// On a terminal: a progress line redrawn at most ten times a second (sources done of the total, rate, ETA,
/// failures), each failure on a line of its own above it, and a closing summary. Not on a terminal: nothing but
/// the failure lines, so a cron job's mail holds only what went wrong. `--json`: one JSON object per output on
/// standard output as it is finished (or per source that failed before any output), then a summary object.
final class BatchReporter: Sendable {
    /// One output of a source, or a source's failure.
    struct Record: Sendable {
        var source: String
        var output: String?
        var size: String?
        var width: Int?
        var height: Int?
        var page: Int?
        var coder: String?
        var milliseconds: Double?
        /// Where the source's bytes came from: "file", "network" or "disk-cache".
        var cache: String?
        /// "written", "up-to-date" or "failed".
        var status: String
        var error: String?
        var placeholders: Placeholders? = nil
    }

    struct Counts: Sendable {
        var sourcesDone = 0
        var sourcesFailed = 0
        var written = 0
        var upToDate = 0
        var total: Int?
    }

    private let counts = Mutex(Counts())
    private let drawing = Mutex<(lastDraw: Double, shown: Bool)>((0, false))
    private let json: Bool
    private let terminal: Bool
    private let started = BatchReporter.now()

    init(json: Bool, progress: Bool?) {
        self.json = json
        terminal = progress ?? (isatty(LibraryOutput.standardError) != 0)
    }

    var snapshot: Counts { counts.withLock { $0 } }
    var showsProgress: Bool { terminal }

    func setTotal(_ total: Int) {
        counts.withLock { $0.total = total }
        draw(force: false)
    }

    /// Called once per output and once per failed source.
    func record(_ record: Record) {
        counts.withLock { counts in
            switch record.status {
            case "written": counts.written += 1
            case "up-to-date": counts.upToDate += 1
            default: break
            }
        }
        if json { writeOut(Self.json(record)) }
    }

    /// A source is finished; `failure` is its one error line, if it failed.
    func finished(failure: String?) {
        counts.withLock { counts in
            counts.sourcesDone += 1
            if failure != nil { counts.sourcesFailed += 1 }
        }
        if let failure { printAboveProgress(failure) }
        draw(force: false)
    }

    /// The closing words: the summary line on a terminal, the summary object with --json.
    func close(interrupted: Bool) {
        let c = snapshot
        let seconds = Self.now() - started
        if terminal {
            clearProgress()
            let rate = seconds > 0 ? Double(c.sourcesDone) / seconds : 0
            var line = "imagepipe thumbnail: \(c.sourcesDone) source\(c.sourcesDone == 1 ? "" : "s"), \(c.written) written, "
                + "\(c.upToDate) up to date, \(c.sourcesFailed) failed in \(Self.format(seconds)) s (\(Self.format(rate)) sources/s)"
            if interrupted { line += "; stopped early" }
            Output.error(line)
        }
        if json {
            writeOut("{\"type\":\"summary\",\"sources\":\(c.sourcesDone),\"written\":\(c.written),\"up_to_date\":\(c.upToDate)"
                     + ",\"failed\":\(c.sourcesFailed),\"seconds\":\((seconds * 1000).rounded() / 1000),\"stopped_early\":\(interrupted)}")
        }
    }

    // MARK: Terminal

    private func draw(force: Bool) {
        guard terminal else { return }
        let now = Self.now()
        let due = drawing.withLock { state -> Bool in
            guard force || now - state.lastDraw >= 0.1 else { return false }
            state.lastDraw = now
            state.shown = true
            return true
        }
        guard due else { return }
        writeError("\r\u{1B}[K" + progressText(now: now))
    }

    private func progressText(now: Double) -> String {
        let c = snapshot
        let elapsed = now - started
        let rate = elapsed > 0 ? Double(c.sourcesDone) / elapsed : 0
        var text = ""
        if let total = c.total, total > 0 {
            let width = 24
            let filled = min(width, c.sourcesDone * width / total)
            text += "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "] "
            text += "\(c.sourcesDone)/\(total)"
            if rate > 0, c.sourcesDone < total { text += "  ETA \(Self.clock(Double(total - c.sourcesDone) / rate))" }
        } else {
            text += "\(c.sourcesDone) done"
        }
        text += "  \(Self.format(rate))/s"
        if c.sourcesFailed > 0 { text += "  \(c.sourcesFailed) failed" }
        return text
    }

    private func printAboveProgress(_ line: String) {
        if terminal { clearProgress() }
        Output.error(line)
        if terminal { draw(force: true) }
    }

    private func clearProgress() {
        let wasShown = drawing.withLock { state -> Bool in defer { state.shown = false }; return state.shown }
        if wasShown { writeError("\r\u{1B}[K") }
    }

    // MARK: Text

    private func writeError(_ text: String) {
        _ = text.withCString { Glibc.write(LibraryOutput.standardError, $0, strlen($0)) }
    }

    /// One whole line per write: lanes finishing at once never interleave inside a line.
    private func writeOut(_ line: String) {
        try? OutputFile.writeStandardOutput(Array((line + "\n").utf8))
    }

    static func json(_ r: Record) -> String {
        var fields = ["\"type\":\"output\"", "\"source\":\(quoted(r.source))", "\"status\":\(quoted(r.status))"]
        if let v = r.output { fields.append("\"output\":\(quoted(v))") }
        if let v = r.size { fields.append("\"size\":\(quoted(v))") }
        if let v = r.width { fields.append("\"width\":\(v)") }
        if let v = r.height { fields.append("\"height\":\(v)") }
        if let v = r.page { fields.append("\"page\":\(v)") }
        if let v = r.coder { fields.append("\"coder\":\(quoted(v))") }
        if let v = r.milliseconds { fields.append("\"ms\":\(format(v))") }
        if let v = r.cache { fields.append("\"cache\":\(quoted(v))") }
        if let v = r.error { fields.append("\"error\":\(quoted(v))") }
        if let v = r.placeholders, let text = placeholdersJSON(v) { fields.append("\"placeholders\":" + text) }
        return "{" + fields.joined(separator: ",") + "}"
    }

    /// The same object as `info --json`'s `placeholders`, on one line.
    static func placeholdersJSON(_ placeholders: Placeholders) -> String? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(placeholders)).map { String(decoding: $0, as: UTF8.self) }
    }

    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    static func format(_ value: Double) -> String {
        let scaled = (value * 10).rounded() / 10
        return scaled == scaled.rounded() ? String(Int(scaled)) : String(scaled)
    }

    static func clock(_ seconds: Double) -> String {
        let total = Int(seconds.rounded())
        let (h, m, s) = (total / 3600, total / 60 % 60, total % 60)
        let two = { (n: Int) in n < 10 ? "0\(n)" : "\(n)" }
        return h > 0 ? "\(h):\(two(m)):\(two(s))" : "\(m):\(two(s))"
    }

    static func now() -> Double { ChildProcess.now() }
}
