import PipelineHost

/// `imagepipe cache prefetch SRC...`: the batch counterpart of `ImagePrefetcher` — fills the disk cache ahead of
/// the renders that will need it (a deploy warming a CDN origin, a gallery's next page), without writing outputs.
///
/// Without --size the originals are fetched and stored; with sizes, each size is also rendered and its result
/// stored (thumbnails are small, so the next `render` or `thumbnail` of that size is a cache hit, not a decode).
/// Local files are their own cache: only remote sources are stored, as everywhere else.
enum CachePrefetch {
    static let header = """
        Usage: imagepipe cache prefetch <url | file | folder | ->... [--size N|WxH[,...]] [--jobs N] [decode options]
                                        [--cache-dir DIR] [--plugin-dir DIR]...

          Loads each source (a folder: its images; -: a list on standard input) at low priority, --jobs at once
          (default {jobs}), into the disk cache; with --size, the thumbnails of those sizes too. Prints a summary; a
          source that fails is one line on standard error, and the exit status is 1 if any failed.
        """

    static let jobs = Option("jobs", value: "N", default: "4", help: "sources loaded at once (default {default})")

    static let sections: [OptionSection] = [
        OptionSection(nil, column: 22, [
            .option(Option("size", value: "N|WxH[,...]", help: "also render these sizes (N = NxN; several separated by commas or given again)")),
            .option(jobs),
            .option(Option("r", "recursive", help: "walk the subfolders of each folder too")),
            .option(Option("cache-dir", value: "DIR", help: "the cache folder (default $XDG_CACHE_HOME/imagepipe/default)")),
        ]),
        DecodeArguments.section,
        PipelineSetup.globalSection,
    ]

    static let help = header.replacing("{jobs}", with: jobs.defaultValue ?? "") + "\n\n" + sections.text

    static func run(_ arguments: [String]) async throws {
        let args = try Arguments(arguments, sections: sections)
        let sources = Array(args.positionals.dropFirst())
        guard !sources.isEmpty else { throw UsageError("cache prefetch needs at least one source (a URL, a file, a folder or -)") }
        let options = try DecodeArguments.options(args, sizeGiven: false)
        let sizes: [PixelSize] = args.all("size").isEmpty ? [] : try ThumbnailCommand.parseSizes(args.all("size"))
        let jobs = try args.int("jobs", range: 1...256)!
        let host = try PipelineSetup.host(args)
        let cache = try DiskCache(directory: args.value("cache-dir"))
        let manager = ImageManager(host: host, configuration: ImageManagerConfiguration(memoryCache: nil, dataCache: cache))
        let extensions = Set(host.coders.coders.filter { $0.descriptor.capabilities.contains(.decode) }.flatMap(\.descriptor.extensions))
        let feed = SourceFeed(arguments: sources, recursive: args.flag("recursive") || args.flag("r"), imageExtensions: extensions)
        let prefetcher = ImagePrefetcher(manager: manager, destination: sizes.isEmpty ? .dataCache : .memoryCache, maxConcurrent: jobs)
        var requested = 0
        while let source = feed.next() {
            let variants = sizes.isEmpty ? [options] : sizes.map { size in
                var sized = options
                sized.thumbnailSize = size
                return sized
            }
            prefetcher.startPrefetching(with: variants.map { ImageRequest(url: source.location, options: $0) })
            requested += variants.count
            // Bounded memory whatever the length of the list: wait while many are queued.
            while prefetcher.pending > jobs * 4 { try await Task.sleep(nanoseconds: 5_000_000) }
        }
        await prefetcher.waitUntilIdle()
        let outcome = prefetcher.outcome
        for failure in prefetcher.failures { Output.error("imagepipe cache prefetch: \(failure)") }
        Output.line("prefetched \(outcome.completed) of \(requested) into \(cache.directory)\(outcome.failed > 0 ? "; \(outcome.failed) failed" : "")")
        if outcome.failed > 0 { throw QuietFailure() }
    }
}
