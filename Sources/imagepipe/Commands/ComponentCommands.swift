import PipelineHost

/// `imagepipe coders`: every registered coder with its routing data.
enum CodersCommand: Command {
    static let name = "coders"
    static let summary = "list the image coders (formats, capabilities, priority)"
    static let header = """
        Usage: imagepipe coders [--json] [--plugin-dir DIR]...

        Lists the coders of every loaded plugin in the order sniffing considers them: ID, format, extensions,
        capabilities, priority and the plugin that provides it.
        """

    static let sections: [OptionSection] = [
        OptionSection(nil, column: 11, [
            .option(Option("json", help: "machine-readable output (an array of coder descriptors)")),
        ]),
        PipelineSetup.globalSection,
    ]

    static let help = header + "\n\n" + sections.text

    static func run(_ arguments: [String]) async throws {
        let args = try Arguments(arguments, sections: sections)
        guard args.positionals.isEmpty else { throw UsageError("unexpected argument '\(args.positionals[0])'") }
        let host = try PipelineSetup.host(args)
        let coders = host.coders.coders.map(\.descriptor)
        PipelineSetup.warnWhenNothingLoaded(host, command: name)
        if args.flag("json") { try Output.json(coders); return }
        if coders.isEmpty { Output.line("No coders: no plugin providing one loaded (see 'imagepipe plugins')."); return }
        Output.table(["ID", "FORMAT", "EXTENSIONS", "PRIORITY", "CAPABILITIES"], coders.map {
            [$0.id, $0.format, $0.extensions.joined(separator: ","), String($0.priority), $0.capabilities.names.joined(separator: ",")]
        })
    }
}

/// `imagepipe loaders`: every registered loader and its URL schemes.
enum LoadersCommand: Command {
    static let name = "loaders"
    static let summary = "list the loaders (URL schemes)"
    static let header = """
        Usage: imagepipe loaders [--json] [--plugin-dir DIR]...

        Lists the loaders of every loaded plugin: ID, URL schemes, priority, capabilities. Plain paths use the
        'file' scheme.
        """

    static let sections: [OptionSection] = [
        OptionSection(nil, column: 11, [
            .option(Option("json", help: "machine-readable output")),
        ]),
        PipelineSetup.globalSection,
    ]

    static let help = header + "\n\n" + sections.text

    static func run(_ arguments: [String]) async throws {
        let args = try Arguments(arguments, sections: sections)
        guard args.positionals.isEmpty else { throw UsageError("unexpected argument '\(args.positionals[0])'") }
        let host = try PipelineSetup.host(args)
        let loaders = host.loaders.loaders.map(\.descriptor)
        PipelineSetup.warnWhenNothingLoaded(host, command: name)
        if args.flag("json") { try Output.json(loaders); return }
        if loaders.isEmpty { Output.line("No loaders: no plugin providing one loaded (see 'imagepipe plugins')."); return }
        Output.table(["ID", "SCHEMES", "PRIORITY", "CAPABILITIES"], loaders.map {
            [$0.id, $0.schemes.joined(separator: ","), String($0.priority), $0.capabilityNames.joined(separator: ",")]
        })
    }
}

/// `imagepipe caches`: every registered cache plugin.
enum CachesCommand: Command {
    static let name = "caches"
    static let summary = "list the cache plugins"
    static let header = """
        Usage: imagepipe caches [--json] [--plugin-dir DIR]...

        Lists the caches provided by plugins: ID, priority, capabilities.
        """

    static let sections: [OptionSection] = [
        OptionSection(nil, column: 11, [
            .option(Option("json", help: "machine-readable output")),
        ]),
        PipelineSetup.globalSection,
    ]

    static let help = header + "\n\n" + sections.text

    static func run(_ arguments: [String]) async throws {
        let args = try Arguments(arguments, sections: sections)
        guard args.positionals.isEmpty else { throw UsageError("unexpected argument '\(args.positionals[0])'") }
        let caches = try PipelineSetup.host(args).caches.pluginCaches.map(\.descriptor)
        if args.flag("json") { try Output.json(caches); return }
        if caches.isEmpty { Output.line("No cache plugins loaded."); return }
        Output.table(["ID", "PRIORITY", "CAPABILITIES"], caches.map {
            [$0.id, String($0.priority), $0.capabilityNames.joined(separator: ",")]
        })
    }
}
