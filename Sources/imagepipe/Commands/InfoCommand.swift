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
            .option(Option("gps", help: "report the Exif GPS coordinates too (by default only whether the file has them)")),
        ] + PlaceholderArguments.options),
        PipelineSetup.cacheSection,
        IsolationSetup.section,
        PipelineSetup.globalSection,
    ]

    static let help = header + "\n\n" + sections.text

    static func run(_ arguments: [String]) async throws {
        let args = try Arguments(arguments, sections: sections)
        guard args.positionals.count == 1 else { throw UsageError("expected one source, got \(args.positionals.count)") }
        IsolationSetup.startWorkerEarly(args)
        let host = try PipelineSetup.host(args)
        try IsolationSetup.configure(args, host: host)
        let source = DecodeArguments.source(args.positionals[0])
        let manager = try PipelineSetup.manager(args, host: host, remoteSources: PipelineSetup.isRemote(source))
        let options = try DecodeArguments.options(args)
        let loadOptions = try LoadArguments.loadOptions(args)
        try RequestDeadline.start(args, command: name, subject: args.positionals[0])
        var info = try await about(args.positionals[0]) {
            try await manager.info(for: source, options: options, loadOptions: loadOptions)
        }
        // Where a photo was taken is reported only when asked; whether the file would tell is always reported.
        if !args.flag("gps"), let exif = info.metadata?.exif { info.metadata?.exif = exif.withoutCoordinates }
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
        ] + Self.metadataRows(info.metadata) + [
            ("details", info.details),
            ("coder", info.coderID),
        ] + (placeholders.map(PlaceholderArguments.rows) ?? [])
        let width = rows.map(\.0.count).max()! + 1
        for (label, value) in rows { Output.line("\((label + ":").padded(to: width)) \(value)") }
    }

    /// The Exif summary, XMP and gain map, one row each that applies ("none" when the file carries nothing).
    static func metadataRows(_ metadata: MetadataSummary?) -> [(String, String)] {
        guard let metadata else { return [("metadata", "none")] }
        var rows: [(String, String)] = []
        if let exif = metadata.exif {
            let camera = [exif.make, exif.model].compactMap { $0 }.joined(separator: " ")
            if !camera.isEmpty { rows.append(("camera", camera)) }
            if let date = exif.captureDate { rows.append(("captured", date)) }
            if let software = exif.software { rows.append(("software", software)) }
            if let artist = exif.artist { rows.append(("artist", artist)) }
            if let copyright = exif.copyright { rows.append(("copyright", copyright)) }
            if let orientation = exif.orientation { rows.append(("orientation", String(orientation))) }
            var gps = exif.hasGPS ? "yes" : "no"
            if let latitude = exif.latitude, let longitude = exif.longitude { gps += " (\(latitude), \(longitude))" }
            rows.append(("gps", gps))
            if exif.hasThumbnail { rows.append(("exif thumbnail", "yes")) }
        }
        rows.append(("exif", metadata.exifBytes > 0 ? "\(metadata.exifBytes) bytes" : "none"))
        rows.append(("xmp", metadata.xmpBytes > 0 ? "\(metadata.xmpBytes) bytes" : "none"))
        if metadata.hasGainMap { rows.append(("gain map", "yes (XMP hdrgm)")) }
        return rows
    }
}
