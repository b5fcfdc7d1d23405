/// The result of `imagepipe plugin test`: the text report for people and the JSON document for CI.
public struct TestReport: Encodable {
    struct Summary: Encodable {
        var passed = 0, warnings = 0, failed = 0, crashed = 0, timedOut = 0, skipped = 0
        var seconds = 0.0
    }

    let file: String
    let strictness: Int
    let seed: UInt64
    let samples: String?
    let plugin: PluginDescription?
    let checks: [CheckOutcome]
    let summary: Summary
    /// True when no check failed, crashed or timed out: the exit status is 0.
    public let ok: Bool

    init(file: String, strictness: Int, seed: UInt64, samples: String?, plugin: PluginDescription?, checks: [CheckOutcome],
         seconds: Double) {
        self.file = file
        self.strictness = strictness
        self.seed = seed
        self.samples = samples
        self.plugin = plugin
        self.checks = checks
        var summary = Summary(seconds: seconds)
        for check in checks {
            switch check.result.status {
            case .passed: summary.passed += 1
            case .warning: summary.warnings += 1
            case .failed: summary.failed += 1
            case .crashed: summary.crashed += 1
            case .timedOut: summary.timedOut += 1
            case .skipped: summary.skipped += 1
            }
        }
        self.summary = summary
        ok = !checks.contains { $0.result.status.isFailure }
    }

    public var text: String {
        var lines = ["imagepipe plugin test \(file)", "strictness \(strictness), seed \(seed) (replay with --seed \(seed)), "
                     + "samples: \(samples ?? "none")"]
        if let plugin {
            let parts = [("coder", plugin.coders.map(\.id)), ("loader", plugin.loaders.map(\.id)), ("cache", plugin.caches.map(\.id))]
                .filter { !$0.1.isEmpty }.map { "\($0.1.joined(separator: ", "))" }
            lines.append("\(plugin.pluginID) \(plugin.version), ABI \(plugin.abi): \(parts.joined(separator: "; "))")
        }
        lines.append("")
        let names = checks.map { $0.id + ($0.component.map { " [\($0)]" } ?? "") }
        let width = min(60, names.map(\.count).max() ?? 0)
        for (check, name) in zip(checks, names) {
            let status = check.result.status.rawValue.padded(to: 9)
            let time = check.seconds >= 0.995 ? String(format1(check.seconds)) + " s" : "\(Int((check.seconds * 1000).rounded())) ms"
            lines.append("  \(status) \(name.padded(to: width))  \(check.result.message)  (\(time))")
            if let during = check.result.during, check.result.status != .passed {
                lines.append("            while: \(during)")
            }
            let details = check.result.status == .passed ? [] : check.result.details
            for detail in details.prefix(12) { lines.append("            \(detail)") }
            if details.count > 12 { lines.append("            … and \(details.count - 12) more (see --json)") }
        }
        lines.append("")
        let s = summary
        lines.append("\(s.passed) passed, \(s.warnings) warning\(s.warnings == 1 ? "" : "s"), \(s.failed) failed, \(s.crashed) crashed, "
                     + "\(s.timedOut) timed out, \(s.skipped) skipped in \(format1(s.seconds)) s: \(ok ? "OK" : "FAILED")")
        return lines.joined(separator: "\n")
    }

    private func format1(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }
}

private extension String {
    /// Pads with spaces on the right to `width` characters (the report's columns).
    func padded(to width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
}
