import PipelineHost

/// `imagepipe info`: what a source is, without decoding its pixels.
enum InfoCommand: Command {
    static let name = "info"
    static let summary = "show format, size, frames/pages, alpha, bit depth, colour and the coder chosen"
    static let header = """
        Usage: imagepipe info <url-or-path> [--json] [--placeholders] [--page N] [--password TEXT] [--plugin-dir DIR]...

        Loads the source, picks a coder by its magic bytes (never by the file extension) and prints what the
        coder reads from it without decoding pixels; --placeholders adds a small decode and what a page shows
        before the image (colours, BlurHash, ThumbHash) and a hash that finds near-duplicates.
        """

    static let sections: [OptionSection] = [
        OptionSection(nil, column: 11, [
            .option(Option("json", help: "machine-readable output")),
        ] + PlaceholderArguments.options),
        PipelineSetup.cacheSection,
        IsolationSetup.section,
        PipelineSetup.globalSection,
    ]

    static let help = header + "\n\n" + sections.text

    static func run(_ arguments: [String]) async throws {
        let args = try Arguments(arguments, sections: sections)
        guard args.positionals.count == 1 else { throw UsageError("expected one source, got \(args.positionals.count)") }
        let host = try PipelineSetup.host(args)
        try IsolationSetup.configure(args, host: host)
        let source = DecodeArguments.source(args.positionals[0])
        let manager = try PipelineSetup.manager(args, host: host, remoteSources: PipelineSetup.isRemote(source))
        let options = try DecodeArguments.options(args)
        let loadOptions = try LoadArguments.loadOptions(args)
        try RequestDeadline.start(args, command: name, subject: args.positionals[0])
        let info = try await about(args.positionals[0]) {
            try await manager.info(for: source, options: options, loadOptions: loadOptions)
        }
        var placeholders: Placeholders?
        if let settings = try PlaceholderArguments.settings(args) {
            placeholders = try await about(args.positionals[0]) {
                try await manager.placeholders(for: source, options: options, loadOptions: loadOptions, settings: settings)
            }
        }
        if args.flag("json") { try Output.json(InfoReport(info: info, placeholders: placeholders)); return }
        var rows = [
            ("format", info.format),
            ("size", "\(info.width)x\(info.height)"),
            ("frames", info.frameCount == 0 ? "unknown" : String(info.frameCount)),
            ("pages", String(info.pageCount)),
        ]
        if info.frameCount != 1 {
            rows.append(("loop count", info.loopCount.map { $0 == 0 ? "infinite" : String($0) } ?? "not stated"))
        }
        rows += [
            ("alpha", info.hasAlpha ? "yes" : "no"),
            ("bit depth", String(info.bitDepth)),
            ("colour", info.color?.summary ?? ColorDescription().summary),
            ("details", info.details),
            ("coder", info.coderID),
        ] + (placeholders.map(PlaceholderArguments.rows) ?? [])
        let width = rows.map(\.0.count).max()! + 1
        for (label, value) in rows { Output.line("\((label + ":").padded(to: width)) \(value)") }
    }
}
