import PipelineHost
#if canImport(Glibc)
import Glibc
#endif

/// One subcommand of the CLI.
protocol Command: Sendable {
    static var name: String { get }
    static var summary: String { get }
    static var help: String { get }
    /// The help for a command line that asks for it (a command with subcommands answers for the one named).
    static func help(for arguments: [String]) -> String
    static func run(_ arguments: [String]) async throws
}

extension Command {
    static func help(for arguments: [String]) -> String { help }
}

@main
enum Imagepipe {
    static let commands: [any Command.Type] = [
        PluginsCommand.self, CodersCommand.self, LoadersCommand.self, CachesCommand.self,
        InfoCommand.self, RenderCommand.self, ThumbnailCommand.self, ServeCommand.self, CacheCommand.self, PluginCommand.self,
    ]

    /// Internal subcommands the CLI runs in child processes of itself (crash isolation); not listed in --help.
    static let hiddenCommands: [any Command.Type] = [ScanChildCommand.self, PluginCheckChildCommand.self]

    static let usage: String = {
        let width = commands.map { $0.name.count }.max() ?? 0
        let list = commands.map { "  \($0.name.padded(to: width))  \($0.summary)" }
        return """
            imagepipe \(ImagepipeVersion.string) — an image pipeline whose coders, loaders and caches are plugins

            Usage: imagepipe <command> [options]

            Commands:
            \(list.joined(separator: "\n"))

            Run 'imagepipe <command> --help' for a command's options.
            """
    }()

    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        // Buffers reused instead of mapped afresh for each stage (see MallocTuning.applyThresholds); first, so that a
        // preforked worker inherits it. `serve` adds its arena bound when it starts.
        MallocTuning.applyThresholds()
        if IsolationSetup.wantsPreforkedWorker(arguments) {
            // Before anything starts a thread: a worker forked now serves the first isolated decode (see PreforkedWorker).
            IsolationSetup.prepareWorker(arguments)
        }
        if arguments.first == WorkerServer.subcommand {
            // Hidden: a sandboxed decode worker started by WorkerPool (see --isolation).
            WorkerServer.main(arguments: Array(arguments.dropFirst()))
        }
        if let first = arguments.first, !hiddenCommands.contains(where: { $0.name == first }), first != ServeCommand.name {
            // (A service writes its access log to standard error; it is not a one-line-error command.)
            // Library chatter on descriptor 2 must not break the one-line error (see LibraryOutput).
            LibraryOutput.capture()
        }
        guard let first = arguments.first else {
            Output.error("imagepipe: missing command; run 'imagepipe --help' for the list")
            exit(2)
        }
        if first == "--help" || first == "-h" || first == "help" {
            Output.line(usage)
            exit(0)
        }
        if first == "--version" {
            Output.line("imagepipe \(ImagepipeVersion.string) (plugin ABI \(ImagepipeVersion.abi))")
            exit(0)
        }
        guard let command = (commands + hiddenCommands).first(where: { $0.name == first }) else {
            Output.error("imagepipe: unknown command '\(first)'; run 'imagepipe --help'")
            exit(2)
        }
        let rest = Array(arguments.dropFirst())
        if rest.contains("--help") || rest.contains("-h") {
            Output.line(command.help(for: rest))
            exit(0)
        }
        let status: Int32
        var line: String?
        do {
            try await command.run(rest)
            status = 0
        } catch is QuietFailure {
            status = 1
        } catch let error as UsageError {
            line = "imagepipe \(command.name): \(error); see 'imagepipe \(command.name) --help'"
            status = 2
        } catch {
            line = FailureReport.line(command: command.name, error: error)
            status = 1
        }
        await end(status: status, line: line)
    }

    /// Ends the process the one way the CLI ends: after a --timeout deadline that already fired (it is ending the
    /// process with its own line), with the workers ended and the background work drained.
    ///
    /// A one-shot command may call it as soon as its output is in place (`render` does): returning to `main` first
    /// would resume `main` on a thread the dispatch pool must create at that point, and tear down the host's
    /// objects one by one (uprobes, a one-shot SVG render: the output's rename to `_exit` 1.40 -> 0.84 ms).
    static func end(status: Int32, line: String? = nil) async -> Never {
        while !RequestDeadline.claimExit() { pause() }
        if let line { Output.error(line) }
        IsolationSetup.endWorkers()  // none may outlive the CLI (see there)
        await BackgroundWork.drain()  // no exit inside a dlopen (see there)
        exit(status)
    }
}
