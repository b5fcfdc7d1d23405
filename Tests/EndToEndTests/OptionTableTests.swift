import Foundation
import Testing
import TestSupport

/// Each command's options are declared once (OptionSection): what `--help` lists is what the parser accepts. Before,
/// a name set, a help text and a parser were written separately and drifted (serve took an undocumented
/// --formats; cache prefetch's help was unreachable). This runs every option of every command's help against the
/// parser: none may be unknown to it, and each takes a value exactly when its help shows one. Serialized: each
/// case blocks a thread of the 2-thread cooperative pool while it runs some 200 short processes.
@Suite(.serialized) struct OptionTableTests {
    /// Each command line ends with something that makes the command stop after parsing (a missing or extra
    /// operand), so no option below starts real work.
    static let commands: [(command: [String], stop: [String])] = [
        (["coders"], ["extra"]), (["plugins"], ["extra"]), (["loaders"], ["extra"]), (["caches"], ["extra"]),
        (["info"], []), (["render"], []), (["thumbnail"], []), (["serve"], ["extra"]), (["cache"], []),
        (["cache", "prefetch"], []), (["plugin", "test"], []),
    ]

    /// `--name VALUE` or `-n, --name` at the start of a help line, with whether it takes a value.
    static func options(inHelp help: String) -> [(name: String, valued: Bool)] {
        var found: [(String, Bool)] = []
        for line in help.split(separator: "\n") where line.hasPrefix("  -") && !line.hasPrefix("  - ") {
            // The label ends at the first run of two spaces (or at the column's single space).
            let label = line.dropFirst(2).split(separator: "  ", maxSplits: 1).first.map(String.init) ?? ""
            for part in label.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where part.hasPrefix("-") {
                let words = part.split(separator: " ")
                // A label that overflows its column is followed by one space and the help text: only the first
                // word after the name can be its value, written with capitals or as a pattern (`on|off`, `all`).
                let value = words.count > 1
                    && (words[1].contains(where: \.isUppercase) || words[1].contains(where: { "|[/:".contains($0) }) || words[1] == "all")
                found.append((String(words[0]), value))
            }
            // `-o, --output FILE`: the value shown once belongs to the short name too.
            let parts = label.split(separator: ",")
            if parts.count == 2, parts[0].count == 2, found.count >= 2 { found[found.count - 2].1 = found[found.count - 1].1 }
        }
        return found
    }

    @Test(arguments: commands.map(\.command)) func everyOptionInTheHelpIsAcceptedAsShown(command: [String]) throws {
        let stop = Self.commands.first { $0.command == command }!.stop
        let help = try CommandLine.run(TestPaths.imagepipeBinary, command + ["--help"])
        #expect(help.status == 0)
        let options = Self.options(inHelp: help.stdout).filter { $0.name != "--help" }
        #expect(options.count >= 3, "\(command): \(help.stdout)")
        // Every option as the help shows it, in one command line: the parser must know each and take a value
        // exactly when it shows one (it stops at the first it refuses; the command then stops at `stop`).
        let shown = try CommandLine.run(TestPaths.imagepipeBinary,
                                        command + options.flatMap { [$0.name] + ($0.valued ? ["0"] : []) } + stop)
        for refusal in ["unknown option", "needs a value", "takes no value"] {
            #expect(!shown.stderr.contains(refusal), "\(command): \(shown.stderr)")
        }
        for option in options {
            // And given the other way, each is refused: a flag with a value, a valued option without one.
            let other = try CommandLine.run(TestPaths.imagepipeBinary,
                                            command + (option.valued ? [option.name] : [option.name + "=1"]))
            #expect(other.stderr.contains(option.valued ? "needs a value" : "takes no value"),
                    "\(command) \(option.name) given the other way: \(other.stderr)")
        }
    }
}
