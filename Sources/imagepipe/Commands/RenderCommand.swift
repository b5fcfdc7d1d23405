import PipelineHost

/// `imagepipe render`: decode (at a size, tinted, a page or frame) and encode to the output's format.
enum RenderCommand: Command {
    static let name = "render"
    static let summary = "decode a source at a size and write it in the output file's format"
    static let header = """
        Usage: imagepipe render <url-or-path | -> -o <out.ext | -> [decode options] [--quality N] [--plugin-dir DIR]...

        The output format follows the extension of -o (or --format), through whichever coder can encode it.
        A source of - reads the image from standard input; -o - writes it to standard output (give --format), so
        render sits in a shell pipe:  curl -s URL | imagepipe render - --size 256x256 --format webp -o - > t.webp
        """

    static let sections: [OptionSection] = [
        OptionSection(nil, column: 22, [
            .option(Option("o", "output", value: "FILE", help: "where to write (required); - for standard output")),
            .option(Option("format", value: "FORMAT", help: "the output format (png, jpg, webp, avif, heic, gif...) instead of -o's extension")),
            .option(EncodeArguments.quality),
            .option(EncodeArguments.lossless),
            .option(EncodeArguments.maxBytes),
            .option(EncodeArguments.encoderOption),
            .option(EncodeArguments.background),
            .option(EncodeArguments.keepMetadata),
            .option(Option("lossless-jpeg", help: "store a JPEG source without loss (JPEG XL keeps its DCT coefficients and gives the original file back); an error when the output format or the file cannot")),
            .option(Option("force", help: "replace a read-only output, or the file a symbolic link at -o points to")),
        ]),
        OptionSection(nil, column: 0, [.text("""
            The output is written to a temporary file beside it and renamed into place: a failed or interrupted render
            never leaves a partial file and never destroys the file that was there.
            A JPEG XL file that holds JPEG reconstruction data, rendered to JPEG with no processing and no --quality,
            gives back the original JPEG, bit for bit.
            """)]),
    ] + PipelineSetup.renderingSections

    static let help = header + "\n\n" + sections.text

    static func run(_ arguments: [String]) async throws {
        let args = try Arguments(arguments, sections: sections)
        guard args.positionals.count == 1 else { throw UsageError("expected one source, got \(args.positionals.count)") }
        guard let output = args.value("output") ?? args.value("o") else { throw UsageError("missing -o <output file>") }
        let format = try outputFormat(args, output: output)
        IsolationSetup.startWorkerEarly(args)
        let host = try PipelineSetup.host(args)
        try IsolationSetup.configure(args, host: host)
        try PipelineSetup.requireEncoder(for: format, in: host)
        // The encoder's plugin opens on another core while the source loads and decodes.
        if let encoder = host.coders.encoder(for: format) { BackgroundWork.start { encoder.preload() } }
        let options = try DecodeArguments.options(args)
        let encodeOptions = try EncodeArguments.options(args)
        let transformers = try ProcessingArguments.transformers(args, background: encodeOptions.background, coders: host.coders)
        let subject = args.positionals[0] == "-" ? "standard input" : args.positionals[0]
        let source: RenderSource
        if args.positionals[0] == "-" {
            if StandardInput.isTerminal { throw UsageError("the source is - (standard input) but nothing is piped in") }
            source = .bytes(try await about(subject) { try StandardInput.readAll(limit: options.limits.maxInputBytes) })
        } else {
            source = .url(DecodeArguments.source(args.positionals[0]))
        }
        let manager = try PipelineSetup.manager(args, host: host, remoteSources: source.url.map(PipelineSetup.isRemote) ?? false)
        try RequestDeadline.start(args, command: name, subject: subject)
        let bytes = try await about(subject) {
            try await render(source, format: format, options: options, transformers: transformers, encodeOptions: encodeOptions, args: args,
                             host: host, manager: manager)
        }
        try Output.write(bytes, to: output, force: args.flag("force"), format: format, loaders: host.loaders)
        await Imagepipe.end(status: 0)
    }

    /// `--format`, else the extension of -o; `-o -` needs --format.
    static func outputFormat(_ args: Arguments, output: String) throws -> String {
        if let format = args.value("format") {
            guard !format.isEmpty, !format.contains("/") else { throw UsageError("--format must name a format such as png, not '\(format)'") }
            return format.lowercased()
        }
        if output == "-" { throw UsageError("-o - (standard output) needs --format to choose the format") }
        guard let dot = output.lastIndex(of: "."), !output[output.index(after: dot)...].contains("/") else {
            throw UsageError("the output file '\(output)' has no extension to choose its format from (or give --format)")
        }
        return output[output.index(after: dot)...].lowercased()
    }

    /// A URL or path the image manager loads, or bytes already read from standard input.
    enum RenderSource {
        case url(String)
        case bytes([UInt8])

        var url: String? { if case .url(let url) = self { url } else { nil } }
    }

    private static func render(_ source: RenderSource, format: String, options: DecodeOptions, transformers: [any ImageTransforming],
                               encodeOptions: EncodeOptions, args: Arguments, host: PluginHost, manager: ImageManager) async throws -> [UInt8] {
        let loadOptions = try LoadArguments.loadOptions(args)
        var source = source, options = options
        switch try await transcoded(source, format: format, options: options, transformers: transformers, encodeOptions: encodeOptions,
                                    args: args, host: host, manager: manager, loadOptions: loadOptions) {
        case .converted(let bytes): return bytes
        case .declined(let loaded):
            // A remote source is decoded from the bytes already fetched, not fetched again (nothing of the manager's
            // path is lost: relative references resolve against file: URLs only). A local file is read again.
            if case .url(let url) = source, PipelineSetup.isRemote(url) {
                source = .bytes(loaded)
                options.sourceURL = url
            }
        case .notAttempted: break
        }
        let metadata = try await keptMetadata(of: source, policy: encodeOptions.keepMetadata, options: options, loadOptions: loadOptions,
                                              host: host, manager: manager)
        let bytes: [UInt8]
        if args.value("frame") == nil, !options.firstFrameOnly, host.coders.encoder(for: format)?.descriptor.capabilities.contains(.animated) == true {
            // An animated encoder keeps every frame and its timing; a still source gives one frame. One load and
            // one probe serve the frames and the loop count.
            let animation = switch source {
            case .url(let url):
                try await manager.animation(for: ImageRequest(url: url, options: options, loadOptions: loadOptions, transformers: transformers))
            case .bytes(let data):
                try host.coders.animation(data: data, options: options, transformers: transformers)
            }
            var animated = encodeOptions
            // Keep the source's loop count; "not stated" plays once, as browsers do for GIFs without NETSCAPE.
            if animation.frames.count > 1 { animated.loopCount = animation.loopCount ?? 1 }
            bytes = try await IsolationSetup.endingWorkers { try host.coders.encode(frames: animation.frames, format: format, options: animated, metadata: metadata) }
        } else {
            let image = switch source {
            case .url(let url): try await manager.image(for: ImageRequest(url: url, options: options, loadOptions: loadOptions, transformers: transformers))
            case .bytes(let data): try host.coders.decode(data: data, options: options, transformers: transformers)
            }
            // The worker is done: it is killed and reaped on another core while this one encodes.
            bytes = try await IsolationSetup.endingWorkers { try host.coders.encode(image, format: format, options: encodeOptions, metadata: metadata) }
        }
        return bytes
    }

    /// The source's Exif and XMP as `--keep-metadata` keeps them; nil (no read at all) by default. A URL's bytes come
    /// from the manager (its data cache, or one more read of a local file).
    private static func keptMetadata(of source: RenderSource, policy: MetadataPolicy, options: DecodeOptions, loadOptions: LoadOptions,
                                     host: PluginHost, manager: ImageManager) async throws -> KeptMetadata? {
        guard policy != .none else { return nil }
        let bytes = switch source {
        case .url(let url): try await manager.data(for: ImageRequest(url: url, options: options, loadOptions: loadOptions))
        case .bytes(let data): data
        }
        return host.coders.keptMetadata(of: bytes, policy: policy, options: options)
    }

    /// The source converted to `format` without pixels (`CodersManager.transcode`), when that can apply: with
    /// --lossless-jpeg (an error when impossible), or on its own when nothing asks for other pixels than the
    /// source's (no processing, no --quality, --lossless or --background) and some coder converts to `format`.
    private static func transcoded(_ source: RenderSource, format: String, options: DecodeOptions, transformers: [any ImageTransforming],
                                   encodeOptions: EncodeOptions, args: Arguments, host: PluginHost, manager: ImageManager,
                                   loadOptions: LoadOptions) async throws -> Transcoded {
        let asked = args.flag("lossless-jpeg")
        let keepsPixels = options.resultKeyTerms.isEmpty && transformers.isEmpty
        let encoderTuned = ["quality", "lossless", "background", "encoder-option"].filter { args.given($0) }
        if asked {
            guard keepsPixels else {
                throw UsageError("--lossless-jpeg keeps the JPEG's own data: it cannot be combined with resizing, cropping, tinting, colour, page or frame options")
            }
            if let option = encoderTuned.first { throw UsageError("--lossless-jpeg stores the JPEG's own data: --\(option) does not apply") }
        } else {
            guard keepsPixels, encoderTuned.isEmpty, host.coders.offersTranscoding(to: format) else { return .notAttempted }
        }
        let data = switch source {
        case .bytes(let data): data
        case .url(let url): try await manager.originalData(for: ImageRequest(url: url, options: options, loadOptions: loadOptions)).bytes
        }
        // A transcode keeps the file whole, its Exif and XMP included as stored, Orientation too (they are part of what
        // reconstructs the JPEG bit for bit): asked for, that is what --lossless-jpeg means; unasked, a photo with
        // metadata is re-encoded instead, so that the policy (none by default, Orientation 1 for `all`) holds. A
        // JPEG XL given back as the JPEG it stores is that JPEG, as its maker kept it.
        let route = try? host.coders.route(for: data, options: options)  // one sniff for both questions
        let restoresOriginal = route?.coder.descriptor.format == "jxl"
        if !asked, !restoresOriginal, host.coders.keptMetadata(of: data, policy: .all, options: options, route: route) != nil {
            return .declined(loaded: data)
        }
        switch try host.coders.transcode(data: data, to: format, options: encodeOptions, limits: options.limits) {
        case .converted(let bytes): return .converted(bytes)
        case .declined(let reason):
            if asked { throw PipelineError.encodingFailed(coder: "host", status: .unsupported, message: "--lossless-jpeg: \(reason)") }
            return .declined(loaded: data)
        }
    }

    /// What `transcoded` did: the converted file, a decline with the source's bytes it loaded to try (the pixel path
    /// may reuse them), or nothing because a transcode cannot apply.
    enum Transcoded {
        case converted([UInt8])
        case declined(loaded: [UInt8])
        case notAttempted
    }
}
