import FoundationEssentials
import PipelineHost

/// `imagepipe cache stats | clear | prune`: the disk cache.
enum CacheCommand: Command {
    static let name = "cache"
    static let summary = "show, clear, prune or prefetch into the disk cache"
    static let header = """
        Usage: imagepipe cache <stats|clear|prune> [--cache-dir DIR] [--max-size BYTES] [--max-age SECONDS] [--json]
               imagepipe cache put <key> <file> | get <key> <file>   [--cache-dir DIR]
               imagepipe cache prefetch <source>... [--size N,...] [--jobs N]   (see imagepipe cache prefetch --help)

          stats    entries and bytes in the cache folder
          clear    remove every entry
          prune    remove entries older than --max-age (default 30 days), then the least recently used until the
                   cache is under 90 % of --max-size (default 1 GiB)

          prefetch  load sources (and render sizes of them) into the cache ahead of use, at low priority

          put, get  store a file's bytes under a key / write a key's bytes to a file (scripts and tests;
                    get exits 1 on a miss)
        """

    static let sections: [OptionSection] = [
        OptionSection(nil, column: 20, [
            .option(Option("cache-dir", value: "DIR", help: "the cache folder (default $XDG_CACHE_HOME/imagepipe/default)")),
            .option(Option("max-size", value: "BYTES", help: "prune's size bound (default 1 GiB)")),
            .option(Option("max-age", value: "SECONDS", help: "prune's age bound (default 30 days)")),
            .option(Option("json", help: "machine-readable output (stats)")),
        ]),
    ]

    static let help = header + "\n\n" + sections.text

    /// `cache prefetch --help` is the prefetch's own help.
    static func help(for arguments: [String]) -> String { arguments.first == "prefetch" ? CachePrefetch.help : help }

    static func run(_ arguments: [String]) async throws {
        if arguments.first == "prefetch" { return try await CachePrefetch.run(arguments) }
        let args = try Arguments(arguments, sections: sections)
        guard let action = args.positionals.first else { throw UsageError("expected one of stats, clear, prune, put, get") }
        let operands = Array(args.positionals.dropFirst())
        guard operands.count == (["put", "get"].contains(action) ? 2 : 0) else {
            throw UsageError("wrong number of operands for '\(action)'")
        }
        var configuration = DiskCache.Configuration()
        if let size = try args.int("max-size", range: 0...Int.max) { configuration.maxBytes = size }
        if let age = try args.int("max-age", range: 0...Int.max) { configuration.maxAge = Double(age) }
        let cache = try DiskCache(directory: args.value("cache-dir"), configuration: configuration)
        switch action {
        case "stats":
            let stats = await cache.statistics()
            if args.flag("json") {
                try Output.json(stats)
            } else {
                Output.line("folder:     \(cache.directory)")
                Output.line("entries:    \(stats.entryCount)")
                Output.line("bytes:      \(stats.totalBytes) (temporary files included)")
                Output.line("temporary:  \(stats.temporaryFiles) file(s) of interrupted writes (prune and clear remove those older than a minute)")
            }
        case "clear":
            try await cache.removeAll()
            Output.line("cleared \(cache.directory)")
        case "prune":
            Output.line("removed \(cache.trim()) entries from \(cache.directory)")
        case "put":
            guard let bytes = FileManager.default.contents(atPath: operands[1]) else { throw CLIError("cannot read \(operands[1])") }
            try await cache.store(Array(bytes), for: operands[0])
        case "get":
            guard let bytes = try await cache.data(for: operands[0]) else { throw CLIError("no entry for key '\(operands[0])'") }
            try Output.write(bytes, to: operands[1])
        default:
            throw UsageError("unknown action '\(action)'; expected stats, clear or prune")
        }
    }
}
