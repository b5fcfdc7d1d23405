import PipelineHost
import PluginTester
#if canImport(Glibc)
import Glibc
#endif

/// `imagepipe plugin test <file.so>`: tests one plugin in isolation, every check in its own child process
/// (clap-validator, pluginval), so a crashing or hanging plugin becomes a failed check, not a dead tool. The
/// tester itself is the PluginTester module; this command parses the arguments and prints the report.
enum PluginCommand: Command {
    static let name = "plugin"
    static let summary = "test one plugin file in isolation (plugin test <file.so>)"
    static let header = """
        Usage: imagepipe plugin test <file.so> [--samples DIR] [--strictness 1..10] [--json] [--only REGEX] [--seed N]
                                               [--jobs N] [--call-timeout SECONDS] [--timeout SECONDS]

        Runs every check that applies to the plugin, each in a fresh child process with a timeout and a watchdog:
        the file (permissions, ELF machine, one exported symbol), loading (RTLD_NOW, time), the ABI (negotiation
        with the host's, an older and a future minor; unknown IDs; init → deinit → init), the descriptors, the
        process state it must leave alone (locale, cwd, umask, signal handlers, environment, file descriptors), and
        per component: coders against sample files (sniffing, probe, decode at full and thumbnail sizes, frames,
        pages, limits, cancellation, incremental decoding, concurrency, encode round trips, truncated, bit-flipped,
        random and hostile input), loaders (callback order, exactly-once completion, cancellation) and caches.

        Statuses: passed, warning, failed, crashed (with the signal), timed-out, skipped. The exit status is 0 only
        when nothing failed, crashed or timed out. Crashes on hostile input count as warnings for coders that
        declare recommends-isolation (the host isolates those).
        """

    static let sections: [OptionSection] = [
        OptionSection(nil, column: 22, [
            .option(Option("samples", value: "DIR", help: """
                    sample files, matched to coders by extension (default: ../shared/corpus beside the
                    source tree, when it exists); with a manifest.tsv, its expected outcomes decide what is
                    a sample and what is hostile input. Coders without samples that can encode test with
                    their own encoding of a synthetic image.
                    """)),
            .option(Option("strictness", value: "N", help: """
                    1...10 (default 5): how many samples, truncations, bit flips and random inputs; at 10
                    every truncation length of every sample. The project's plugins pass at 5.
                    """)),
            .option(Option("only", value: "REGEX", help: "run only checks whose ID matches (e.g. 'robustness', '^abi\\.')")),
            .option(Option("seed", value: "N", help: "seed of the random inputs (default: time-based; the report prints it for replay)")),
            .option(Option("jobs", value: "N", help: "checks run in parallel (default: the number of CPUs)")),
            .option(Option("call-timeout", value: "S", help: "one plugin call longer than this is a hang (default 10)")),
            .option(Option("timeout", value: "S", help: "whole-check timeout (default: per check, 60 to 300 s by strictness)")),
            .option(Option("json", help: "the report as JSON (for CI)")),
            .option(Option("cache-config", value: "TEXT", help: """
                    the configuration cache checks open a store with (e.g. "redis://127.0.0.1:6390");
                    default: the plugin's own default
                    """)),
        ]),
    ]

    static let help = header + "\n\n" + sections.text

    static func run(_ arguments: [String]) async throws {
        guard arguments.first == "test" else { throw UsageError("expected 'plugin test <file.so>'") }
        let args = try Arguments(Array(arguments.dropFirst()), sections: sections)
        guard args.positionals.count == 1 else { throw UsageError("expected one plugin file, got \(args.positionals.count)") }
        let file = PluginSearchPath.absolutePath(args.positionals[0])
        guard access(file, F_OK) == 0 else { throw CLIError("\(file): no such file") }
        guard let executable = PluginSearchPath.currentExecutablePath() else { throw CLIError("cannot find my own executable") }
        let only: Regex<AnyRegexOutput>?
        do { only = try args.value("only").map { try Regex($0) } } catch { throw UsageError("--only is not a valid regular expression: \(error)") }
        var seed = UInt64(ChildProcess.now() * 1000) % 1_000_000
        if let text = args.value("seed") {
            guard let value = UInt64(text) else { throw UsageError("--seed must be a whole number, not '\(text)'") }
            seed = value
        }
        let samplesRoot = args.value("samples").map(PluginSearchPath.absolutePath) ?? PluginTester.defaultSamplesRoot()
        if let samplesRoot, !PluginTester.isDirectory(samplesRoot) { throw UsageError("--samples \(samplesRoot) is not a folder") }
        var configuration = PluginTester.Configuration(file: file, samplesRoot: samplesRoot, seed: seed)
        configuration.strictness = try args.int("strictness", range: 1...10) ?? 5
        configuration.callTimeout = Double(args.value("call-timeout") ?? "10") ?? 10
        configuration.timeout = try args.int("timeout", range: 1...86_400).map(Double.init)
        configuration.cacheConfiguration = args.value("cache-config")
        configuration.only = only
        configuration.jobs = try args.int("jobs", range: 1...64) ?? max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
        let json = args.flag("json")
        let interactive = !json && isatty(2) != 0
        let report = PluginTester.run(configuration, executable: executable) { done, total, line in
            if interactive { status("[\(done)/\(total)] \(line)") }
        }
        if interactive { status("") }
        if json { try Output.json(report) } else { Output.line(report.text) }
        if !report.ok { exit(1) }
    }

    /// One overwritten status line on a terminal.
    private static func status(_ text: String) {
        let line = "\r\u{1B}[2K" + text
        _ = line.withCString { write(2, $0, strlen($0)) }
    }
}
