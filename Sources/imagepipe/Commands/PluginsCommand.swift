import PipelineHost

/// `imagepipe plugins`: the search path and what happened to every file on it.
enum PluginsCommand: Command {
    static let name = "plugins"
    static let summary = "list the plugin search path and why each file loaded or not"
    static let header = """
        Usage: imagepipe plugins [--json] [--plugin-dir DIR]...

        Prints the plugin search path in order (where each folder came from; which are missing) and, for every
        *.so file found, whether it loaded, was refused (and why) or was shadowed by an earlier plugin with the
        same ID.
        """

    static let sections: [OptionSection] = [
        OptionSection(nil, column: 11, [
            .option(Option("json", help: "machine-readable output")),
        ]),
        PipelineSetup.globalSection,
    ]

    static let help = header + "\n\n" + sections.text

    struct Listing: Encodable {
        struct Folder: Encodable { let directory: String; let origin: String; let exists: Bool }
        let searchPath: [Folder]
        let plugins: [PluginRecord]
    }

    static func run(_ arguments: [String]) async throws {
        let args = try Arguments(arguments, sections: sections)
        guard args.positionals.isEmpty else { throw UsageError("unexpected argument '\(args.positionals[0])'") }
        let registry = try PipelineSetup.host(args).registry
        if args.flag("json") {
            try Output.json(Listing(
                searchPath: registry.searchPath.entries.map {
                    .init(directory: $0.directory, origin: $0.origin.rawValue, exists: $0.exists)
                },
                plugins: registry.records))
            return
        }
        Output.line("Search path:")
        if registry.searchPath.entries.isEmpty { Output.line("  (empty: no --plugin-dir, no IMAGEPIPE_PLUGIN_PATH, no default folders)") }
        for entry in registry.searchPath.entries {
            Output.line("  \(entry.directory)  (\(entry.origin.rawValue)\(entry.exists ? "" : ", missing"))")
        }
        Output.line()
        if registry.records.isEmpty { Output.line("No plugin files found."); return }
        for record in registry.records {
            let identity = [record.pluginID, record.version.map { "v\($0)" }, record.abiVersion.map { "ABI \($0)" }]
                .compactMap { $0 }.joined(separator: " ")
            Output.line("\(record.path)")
            switch record.state {
            case .loaded:
                Output.line("  loaded    \(identity)\(record.negotiatedMinor.map { " (speaking 1.\($0))" } ?? "")")
                let parts = [("coders", record.coderIDs), ("loaders", record.loaderIDs), ("caches", record.cacheIDs)]
                for (label, ids) in parts where !ids.isEmpty { Output.line("  \(label): \(ids.joined(separator: ", "))") }
                for shadowed in record.shadowedComponents { Output.line("  shadowed component: \(shadowed)") }
            case .refused(let reason):
                Output.line("  refused   \(reason)\(identity.isEmpty ? "" : " [\(identity)]")")
            case .shadowed(let owner):
                Output.line("  shadowed  \(identity): the same ID was already loaded from \(owner)")
            }
        }
    }
}
