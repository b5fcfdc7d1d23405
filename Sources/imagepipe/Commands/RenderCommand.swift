import PipelineHost

/// `imagepipe render`: decode (at a size, tinted, a page or frame) and encode to the output's format.
enum RenderCommand: Command {
    static let name = "render"
    static let summary = "decode a source at a size and write it in the output file's format"
    static let help = """
        Usage: imagepipe render <url-or-path> -o <out.ext> [decode options] [--quality N] [--plugin-dir DIR]...

        The output format follows the extension of -o, through whichever coder can encode it.

          -o, --output FILE   where to write (required)
          --quality N         encoder quality 1...100 (default: the encoder's)
          --lossless          lossless encoding where the format offers it
          --force             replace a read-only output, or the file a symbolic link at -o points to

        The output is written to a temporary file beside it and renamed into place: a failed or interrupted render
        never leaves a partial file and never destroys the file that was there.

        \(DecodeArguments.helpText)

        \(HostSetup.cacheHelpText)

        \(IsolationSetup.helpText)

        \(HostSetup.helpText)
        """

    static func run(_ arguments: [String]) async throws {
        let args = try Arguments(arguments,
                                 valued: HostSetup.valuedOptions.union(DecodeArguments.valued).union(HostSetup.cacheValued).union(IsolationSetup.valued)
                                     .union(["o", "output", "quality"]),
                                 flags: DecodeArguments.flags.union(HostSetup.flags).union(HostSetup.cacheFlags).union(["lossless", "force"]))
        guard args.positionals.count == 1 else { throw UsageError("expected one source, got \(args.positionals.count)") }
        guard let output = args.value("output") ?? args.value("o") else { throw UsageError("missing -o <output file>") }
        guard let dot = output.lastIndex(of: "."), !output[output.index(after: dot)...].contains("/") else {
            throw UsageError("the output file '\(output)' has no extension to choose its format from")
        }
        let format = output[output.index(after: dot)...].lowercased()
        let host = try HostSetup.host(args)
        try IsolationSetup.configure(args, host: host)
        guard host.coders.canEncode(format: format) else {
            let known = host.coders.coders.filter { $0.descriptor.capabilities.contains(.encode) }.map(\.descriptor.format)
            throw CLIError("no coder can encode '\(format)' (encodable: \(known.isEmpty ? "none" : known.joined(separator: ", ")))")
        }
        // The encoder's plugin opens on another core while the source loads and decodes.
        if let encoder = host.coders.encoder(for: format) { Task.detached(priority: .utility) { encoder.preload() } }
        let options = try DecodeArguments.options(args)
        let encodeOptions = EncodeOptions(quality: try args.int("quality", range: 1...100), lossless: args.flag("lossless"))
        let source = DecodeArguments.source(args.positionals[0])
        let manager = try HostSetup.manager(args, host: host, source: source)
        try RequestDeadline.start(args, command: name, subject: args.positionals[0])
        let bytes = try await about(args.positionals[0]) {
            try await render(source, format: format, options: options, encodeOptions: encodeOptions, args: args,
                             host: host, manager: manager)
        }
        try Output.write(bytes, to: output, force: args.flag("force"))
    }

    private static func render(_ source: String, format: String, options: DecodeOptions, encodeOptions: EncodeOptions,
                               args: Arguments, host: PluginHost, manager: ImageManager) async throws -> [UInt8] {
        let loadOptions = try IsolationSetup.loadOptions(args)
        let bytes: [UInt8]
        if args.value("frame") == nil, !options.firstFrameOnly, host.coders.encoder(for: format)?.descriptor.capabilities.contains(.animated) == true {
            // An animated encoder keeps every frame and its timing; a still source gives one frame.
            let frames = try await manager.frames(for: source, options: options, loadOptions: loadOptions)
            var animated = encodeOptions
            if frames.count > 1 {
                // Keep the source's loop count; "not stated" plays once, as browsers do for GIFs without NETSCAPE.
                animated.loopCount = try await manager.info(for: source, options: options, loadOptions: loadOptions).loopCount ?? 1
            }
            bytes = try await IsolationSetup.endingWorkers { try host.coders.encode(frames: frames, format: format, options: animated) }
        } else {
            let image = try await manager.image(for: source, options: options, loadOptions: loadOptions)
            // The worker is done: it is killed and reaped on another core while this one encodes.
            bytes = try await IsolationSetup.endingWorkers { try host.coders.encode(image, format: format, options: encodeOptions) }
        }
        return bytes
    }
}
