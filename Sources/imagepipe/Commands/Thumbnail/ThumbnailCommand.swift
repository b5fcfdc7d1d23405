import PipelineHost
#if canImport(Glibc)
import Glibc
#endif

/// `imagepipe thumbnail`: a batch of sources → thumbnails at one or several sizes, in one process on every core.
enum ThumbnailCommand: Command {
    static let name = "thumbnail"
    static let summary = "render many sources (files, folders, URLs, a list on stdin) at one or several sizes"
    static let header = """
        Usage: imagepipe thumbnail <file | folder | url | ->... [--size 256 | --size 64,128,256] [-o TEMPLATE | --out-dir DIR]
                                   [--pages all|0-2,6] [--frames all] [--jobs N] [--json] [decode options]...

        Renders every source at every size, in one process: sources run in parallel over --jobs lanes (default: one
        per core), coders that run isolated (SVG, PDF) in as many warm worker processes. Each source is loaded and
        decoded once for all its sizes (a raster is decoded for the largest and the smaller sizes are made from it;
        a vector renders each size directly). A source that fails is reported on one line and the batch goes on;
        the exit status is 1 if any failed.
        """

    static let sections: [OptionSection] = [
        OptionSection("Sources:", column: 22, [
            .text("  FILE                a file of any format a coder decodes"),
            .text("  FOLDER              the image files in it (by extension; hidden files and this command's own outputs are"),
            .text("                      skipped)"),
            .option(Option("r", "recursive", help: "walk the subfolders of each FOLDER too")),
            .text("  URL                 an http(s) URL (cached on disk like render's)"),
            .text("  -                   a list of files or URLs on standard input, one per line (find ... | imagepipe thumbnail -)"),
            .option(Option("manifest", value: "FILE", help: """
                    the same list read from FILE, after the other sources; a line may also be JSON:
                    {"url": ...}, {"source": ...} or an S3 inventory's {"bucket": ..., "key": ...}
                    """)),
        ]),
        OptionSection("Many machines:", column: 22, [
            .option(Option("shard", value: "K/N", help: """
                    take only the sources whose stable hash of their name (as given, or the folder
                    argument and the path below it) is K modulo N (K from 0): N runs with K = 0..N-1
                    together make exactly the outputs of one run, and a rerun takes the same files.
                    --shard index/N reads K from JOB_COMPLETION_INDEX (a Kubernetes Indexed Job)
                    """)),
        ]),
        OptionSection("Outputs:", column: 22, [
            .option(Option("o", "output", value: "TEMPLATE", help: """
                    output file names (default tn_%s.jpg; _%z is added with several sizes, _p%p with
                    several pages or frames). A relative template is relative to each source's folder, as
                    vipsthumbnail's -o is; an absolute one is used as it is. Placeholders:
                      %s  the source's name without extension     %e  its extension
                      %z  the size as asked (256x256)             %w %h  its width and height
                      %p  the page or frame, from 0               %%  a percent sign
                    """)),
            .option(Option("out-dir", value: "DIR", help: "write under DIR instead, at each file's path relative to the folder it was found in")),
            .option(Option("format", value: "FORMAT", help: "the output format, instead of the template's extension")),
            .shared([EncodeArguments.quality, EncodeArguments.lossless, EncodeArguments.encoderOption, EncodeArguments.maxBytes, EncodeArguments.background, EncodeArguments.keepMetadata], "as for render"),
            .option(Option("force", help: "render again outputs that are up to date (see below)")),
        ]),
        OptionSection("Presets:", column: 22, [
            .option(Option("presets", value: "FILE", help: "the presets file serve --presets reads (NAME=OPTIONS lines; 'default' applies first)")),
            .option(Option("preset", value: "NAME", help: """
                    render as the service renders pr:NAME (several: repeat or NAME,NAME): its size,
                    mode, gravity, trim, processing, watermark (the mark from --watermark FILE),
                    quality and format; the flags that say the same are refused beside it
                    """)),
        ]),
        OptionSection(nil, column: 0, [.text("""
              Examples:
                imagepipe thumbnail photos/ -r --size 256 --out-dir thumbs          thumbs/2024/a.jpg for photos/2024/a.jpg
                imagepipe thumbnail icons/*.svg --size 64,128,256 --tint '#333' --template -o '/tmp/icons/%s@%w.png'
                imagepipe thumbnail report.pdf --pages all --size 256 -o '%s-%p.png'
            """)]),
        OptionSection(nil, column: 0, [.text("""
            An output is up to date when it exists, is not older than its source, and its stamp (extended attribute
            user.imagepipe.thumbnail: the source's size and time, the size, page and every option that changes the
            result) matches: a rerun skips it, so an interrupted batch resumes where it stopped.
            """)]),
        OptionSection("Sizes and pages:", column: 22, [
            .option(Option("size", value: "SIZE[,SIZE...]", help: "N (NxN) or WxH, several separated by commas or given again (default 256)")),
            .option(Option("pages", value: "SPEC", help: "all, or pages and ranges counted from 0 (0-2,6), clipped to each document")),
            .option(Option("frames", value: "all", help: "every frame of an animation, each its own output (%p numbers them)")),
        ]),
        OptionSection("Progress:", column: 22, [
            .option(Option("jobs", value: "N", help: "sources rendered at once (default: the number of processors)")),
            .option(Option("json", help: """
                    one JSON object per output on standard output (source, output, size, width, height,
                    page, coder, ms since the source began, cache, status, error), then a summary object
                    """)),
            .option(Option("placeholders", help: """
                    with --json: each written output's placeholders too (colours, BlurHash, ThumbHash,
                    dHash: `info --placeholders`), computed from the thumbnail itself, so no second decode
                    """)),
            .option(Option("blurhash", value: "XxY", default: "4x3", help: "BlurHash components with --placeholders (default {default})")),
            .option(Option("dominant-colors", value: "N", default: "5", help: "dominant colours with --placeholders (default {default})")),
            .shared([Option("progress", help: ""), Option("no-progress", help: "")], """
                    the progress line on standard error (default: only on a terminal; otherwise
                    nothing but failures is printed)
                    """),
            .option(Option("fail-fast", help: "start no new source after the first failure")),
            .option(Option("timeout", value: "SECONDS", help: """
                    here per source: the deadline of its download and of each isolated decode (default
                    60 s and 30 s); a batch is never cut short as a whole (see Isolation options)
                    """)),
        ]),
    ] + PipelineSetup.renderingSections

    static let help = header + "\n\n" + sections.text

    static func run(_ arguments: [String]) async throws {
        let args = try Arguments(arguments, sections: sections)
        guard !args.positionals.isEmpty || args.value("manifest") != nil else {
            throw UsageError("expected at least one source (a file, a folder, a URL, - for a list on standard input, or --manifest FILE)")
        }
        let shard = try args.value("shard").map { try BatchShard(parsing: $0) }
        let manifest = try args.value("manifest").map { name -> (descriptor: Int32, name: String) in
            let descriptor = open(name, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw CLIError("--manifest \(name): \(String(cString: strerror(errno)).lowercased())") }
            return (descriptor, name)
        }
        if args.positionals.filter({ $0 == "-" }).count > 1 { throw UsageError("standard input (-) can be read once") }
        if args.positionals.contains("-"), StandardInput.isTerminal {
            throw UsageError("- reads a list of sources from standard input, but nothing is piped in")
        }
        let host = try PipelineSetup.host(args)
        // A service preset, read from serve's --presets file, says how to render (see BatchPreset).
        let preset = try BatchPreset.read(args, coders: host.coders)
        let sizes = try preset?.size.map { [$0] } ?? parseSizes(args.all("size"))
        var options = try DecodeArguments.options(args, sizeGiven: false)
        options.thumbnailSize = nil
        if let preset { options = preset.applied(to: options) }
        let pages = try args.value("pages").map { try PageSelection(parsing: $0) }
        if pages != nil, args.value("page") != nil { throw UsageError("give --page or --pages, not both") }
        let everyFrame = try parseFrames(args)
        if everyFrame, args.value("frame") != nil { throw UsageError("give --frame or --frames, not both") }
        let template = try makeTemplate(args, sizes: sizes, severalPages: pages?.mayBeSeveral == true || everyFrame, presetFormat: preset?.format)
        let jobs = try args.int("jobs", range: 1...256) ?? WorkerPool.defaultSize
        let outputFolder = try args.value("out-dir").map { folder -> String in
            guard !folder.isEmpty else { throw UsageError("--out-dir needs a folder") }
            var path = DecodeArguments.source(folder)
            while path.count > 1, path.hasSuffix("/") { path.removeLast() }
            return path
        }

        try PipelineSetup.requireEncoder(for: template.format, in: host)
        try IsolationSetup.configure(args, host: host, workers: jobs)
        // A list on standard input may name URLs.
        let anyRemote = manifest != nil || args.positionals.contains { $0 == "-" || PipelineSetup.isRemote($0) }
        let manager = try PipelineSetup.manager(args, host: host, remoteSources: anyRemote)
        var encodeOptions = try EncodeArguments.options(args)
        if let preset { encodeOptions = preset.encodeOptions(encodeOptions, format: template.format) }
        let transformers = try preset?.transformers ?? ProcessingArguments.transformers(args, background: encodeOptions.background, coders: host.coders)
        let settings = BatchSettings(
            sizes: sizes, options: options, template: template, outputFolder: outputFolder, pages: pages,
            everyFrame: everyFrame, transformers: transformers, encodeOptions: encodeOptions, loadOptions: try LoadArguments.loadOptions(args),
            jobs: jobs, redoUpToDate: args.flag("force"), failFast: args.flag("fail-fast"),
            stampSettings: stampText(options: options, transformers: transformers, encode: encodeOptions, format: template.format,
                                     everyFrame: everyFrame),
            placeholders: try PlaceholderArguments.settings(args))
        if settings.placeholders != nil, !args.flag("json") { throw UsageError("--placeholders goes with --json (they are reported in its lines)") }

        let extensions = Set(host.coders.coders.filter { $0.descriptor.capabilities.contains(.decode) }.flatMap(\.descriptor.extensions))
        let recursive = args.flag("recursive") || args.flag("r")
        let feed = SourceFeed(arguments: args.positionals, recursive: recursive, imageExtensions: extensions, shard: shard, manifest: manifest)
        let reporter = BatchReporter(json: args.flag("json"),
                                     progress: args.flag("no-progress") ? false : args.flag("progress") ? true : nil)
        if reporter.showsProgress {
            let positionals = args.positionals
            Task.detached(priority: .utility) {
                if manifest == nil, let total = SourceFeed.count(arguments: positionals, recursive: recursive, imageExtensions: extensions, shard: shard) {
                    reporter.setTotal(total)
                }
            }
        }
        let runner = BatchRunner(settings: settings, host: host, manager: manager, reporter: reporter, feed: feed)
        await runner.run()
        reporter.close(interrupted: settings.failFast && runner.failed)
        if runner.failed { throw QuietFailure() }
    }

    /// `--size`: N or WxH, comma-separated or repeated; duplicates dropped, order kept.
    static func parseSizes(_ values: [String]) throws -> [PixelSize] {
        var sizes: [PixelSize] = []
        for part in values.flatMap({ $0.split(separator: ",") }).map({ String($0).trimmingWhitespace() }) {
            let size = Int(part).flatMap { $0 > 0 && $0 <= 1 << 20 ? PixelSize(width: $0, height: $0) : nil } ?? PixelSize(parsing: part)
            guard let size else { throw UsageError("--size takes N or WxH, several separated by commas (64,128,256), not '\(part)'") }
            if !sizes.contains(size) { sizes.append(size) }
        }
        return sizes.isEmpty ? [PixelSize(width: 256, height: 256)] : sizes
    }

    static func parseFrames(_ args: Arguments) throws -> Bool {
        guard let value = args.value("frames") else { return false }
        guard value == "all" else { throw UsageError("--frames takes all (for one frame, give --frame N)") }
        return true
    }

    /// The -o template, or the default one, with the placeholders several sizes or pages need.
    static func makeTemplate(_ args: Arguments, sizes: [PixelSize], severalPages: Bool, presetFormat: String? = nil) throws -> OutputTemplate {
        var format = args.value("format").map { $0.lowercased() }
        if let presetFormat {
            if let format, ProcessingURL.formatName(format) != presetFormat {
                throw UsageError("--format \(format) and the preset's f:\(presetFormat) disagree")
            }
            format = presetFormat
        }
        if let text = args.value("output") ?? args.value("o") {
            let template = try OutputTemplate(text, format: format)
            if sizes.count > 1, !template.namesSize {
                throw UsageError("-o '\(text)' names no size, but \(sizes.count) sizes are asked: add %z (or %w, %h)")
            }
            if severalPages, !template.uses("p") {
                throw UsageError("-o '\(text)' names no page, but several pages or frames are asked: add %p")
            }
            return template
        }
        var text = "tn_%s"
        if sizes.count > 1 { text += "_%z" }
        if severalPages { text += "_p%p" }
        return try OutputTemplate(text + "." + (format ?? "jpg"), format: format)
    }

    /// The options an output's bytes depend on, as its stamp records them: the result-key terms of the decode
    /// options and the transformers (the same terms as cache keys; the size is stamped per output), the encoder's
    /// settings, and whether a password was given.
    static func stampText(options: DecodeOptions, transformers: [any ImageTransforming], encode: EncodeOptions, format: String,
                          everyFrame: Bool) -> String {
        var parts = ["format=\(format)", "quality=\(encode.quality.map(String.init) ?? "default")", "lossless=\(encode.lossless)",
                     "background=\(encode.background.map { "\($0)" } ?? "white")", "mode=\(options.scaleMode.rawValue)",
                     "password=\(options.password != nil)"]
        // Encoder settings only when given, so that existing outputs keep their stamps.
        if let settings = encode.settingsLines { parts.append("encoder=" + settings.split(separator: "\n").joined(separator: ",")) }
        if let maxBytes = encode.maxBytes { parts.append("max-bytes=\(maxBytes)") }
        if encode.keepMetadata != .none { parts.append("keep-metadata=\(encode.keepMetadata.rawValue)") }
        parts += options.resultKeyTerms.filter { !$0.hasPrefix("frame=") }
        parts += transformers.map { "t=" + $0.identifier }
        parts.append(everyFrame ? "frames=all" : "frame=\(options.frameIndex)")
        return parts.joined(separator: ";")
    }
}

/// A failure already reported on its own lines (a batch's failed sources): exit status 1, nothing more printed.
struct QuietFailure: Error {}
