import PipelineHost
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// What every source of a batch is rendered with.
struct BatchSettings: Sendable {
    var sizes: [PixelSize]
    /// Decode options without a size (tint, mode, page, limits...).
    var options: DecodeOptions
    var template: OutputTemplate
    var outputFolder: String?
    /// nil: the one page of `options.pageIndex`.
    var pages: PageSelection?
    var everyFrame: Bool
    /// Applied to every output after decoding (the processing flags).
    var transformers: [any ImageTransforming]
    var encodeOptions: EncodeOptions
    var loadOptions: LoadOptions
    var jobs: Int
    var redoUpToDate: Bool
    var failFast: Bool
    /// Every setting that changes an output's bytes, as the stamp records it.
    var stampSettings: String
    /// `--placeholders`: each written output's, in its JSON line (they do not change the output's bytes, so the
    /// stamp ignores them; an output skipped as up to date has none).
    var placeholders: Placeholders.Settings? = nil
}

/// Runs a batch: `jobs` lanes, each on a thread of its own, take sources from the feed one at a time and carry
/// each through load → one decode for all sizes (per page) → encode → atomic write, so that at most `jobs` sources
/// are in memory at once whatever the length of the batch, and results are written as they finish. Coders that
/// run isolated (SVG, PDF) decode in a pool of `jobs` warm workers; the others decode on the lane's thread.
///
/// A source that fails is reported on one line and the batch goes on (`--fail-fast`: no new source is started).
final class BatchRunner: Sendable {
    let settings: BatchSettings
    let host: PluginHost
    let manager: ImageManager
    let reporter: BatchReporter
    let feed: SourceFeed
    /// Outputs written by this run, and the source each came from: two sources never silently share a name.
    private let claimed = Mutex<[String: String]>([:])
    private let anyFailure = Atomic<Bool>(false)
    private let pages = PageQueue()
    /// Lanes inside `process` (a source being loaded, probed or rendered), which may still split a document.
    private let preparing = Atomic<Int>(0)

    init(settings: BatchSettings, host: PluginHost, manager: ImageManager, reporter: BatchReporter, feed: SourceFeed) {
        self.settings = settings
        self.host = host
        self.manager = manager
        self.reporter = reporter
        self.feed = feed
    }

    var failed: Bool { anyFailure.load(ordering: .relaxed) }

    func run() async {
        await LaneThreads.run(settings.jobs) { self.lane() }
    }

    /// A lane takes a page of a document already split (so that every lane helps with a 200-page PDF), else the
    /// next source; with neither, it waits while another lane is still preparing a source that may split.
    private func lane() {
        while true {
            if let unit = pages.take() { run(unit); continue }
            if let source = feed.next() {
                preparing.add(1, ordering: .acquiringAndReleasing)
                process(source)
                preparing.subtract(1, ordering: .acquiringAndReleasing)
                continue
            }
            if preparing.load(ordering: .acquiring) == 0, pages.isEmpty { return }
            usleep(1000)
        }
    }

    private func process(_ source: BatchSource) {
        let started = BatchReporter.now()
        do {
            if try render(source, started: started) == .finished { reporter.finished(failure: nil) }
        } catch {
            fail(source, error: error, started: started)
            if settings.failFast { feed.close() }
        }
    }

    /// Reports a source's failure (its JSON record and its one line) and returns the line.
    @discardableResult
    private func fail(_ source: BatchSource, error: any Error, started: Double, finish: Bool = true) -> String {
        anyFailure.store(true, ordering: .relaxed)
        let line = FailureReport.line(command: "thumbnail", error: SubjectError(subject: source.display, underlying: error))
        reporter.record(.init(source: source.display, milliseconds: (BatchReporter.now() - started) * 1000,
                              status: "failed", error: String(line.dropFirst("imagepipe thumbnail: ".count))))
        if finish { reporter.finished(failure: line) }
        return line
    }

    // MARK: Pages shared between lanes

    /// A document whose pages are spread over the lanes; the lane that finishes its last page reports it.
    private final class SplitSource: Sendable {
        let bytes: [UInt8]
        let context: OutputContext
        let sourceStatus: stat?
        let remaining: Atomic<Int>
        let failure = Mutex<String?>(nil)

        init(bytes: [UInt8], context: OutputContext, sourceStatus: stat?, pages: Int) {
            self.bytes = bytes
            self.context = context
            self.sourceStatus = sourceStatus
            remaining = Atomic(pages)
        }
    }

    private struct PageUnit: Sendable {
        let document: SplitSource
        let page: Int
    }

    /// Pages waiting for a lane, first in first out.
    private final class PageQueue: Sendable {
        private let units = Mutex<(items: [PageUnit], head: Int)>(([], 0))
        func add(_ new: [PageUnit]) { units.withLock { $0.items.append(contentsOf: new) } }
        func take() -> PageUnit? {
            units.withLock { queue in
                guard queue.head < queue.items.count else { return nil }
                defer {
                    queue.head += 1
                    if queue.head == queue.items.count { queue.items.removeAll(); queue.head = 0 }
                }
                return queue.items[queue.head]
            }
        }
        var isEmpty: Bool { units.withLock { $0.head >= $0.items.count } }
    }

    private func run(_ unit: PageUnit) {
        let document = unit.document
        do {
            try renderPage(unit.page, of: document.bytes, context: document.context, sourceStatus: document.sourceStatus)
        } catch {
            let line = fail(document.context.source, error: error, started: document.context.started, finish: false)
            document.failure.withLock { if $0 == nil { $0 = line } }
            if settings.failFast { feed.close() }
        }
        if document.remaining.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 {
            reporter.finished(failure: document.failure.withLock { $0 })
        }
    }

    // MARK: One source

    /// One planned output: where it goes and what its stamp says.
    private struct Target {
        let path: String
        let size: PixelSize
        let page: Int
        let stamp: String
    }

    private enum Progress { case finished, split }

    /// `.split` when the source's pages went to the page queue (the lane of its last page reports it).
    private func render(_ source: BatchSource, started: Double) throws -> Progress {
        let sourceStatus = source.isLocal ? Self.status(of: source.location) : nil
        // Without a page selection the outputs are known before loading: all up to date costs no load at all.
        if settings.pages == nil, !settings.everyFrame {
            let targets = try plan(source, pages: [settings.options.pageIndex], sourceStatus: sourceStatus)
            if targets.allSatisfy({ isUpToDate($0, sourceStatus: sourceStatus) }) {
                for target in targets { recordUpToDate(target, source: source) }
                return .finished
            }
        }
        if source.isLocal, try renderByRanges(source, started: started, sourceStatus: sourceStatus) { return .finished }
        let request = ImageRequest(url: source.location, options: settings.options, loadOptions: settings.loadOptions)
        let (bytes, fromCache) = try LaneThreads.wait { [manager] in try await manager.originalData(for: request) }
        let cache = source.isLocal ? "file" : fromCache ? "disk-cache" : "network"
        // The one sniff of these bytes: every page, size and frame below follows this route.
        let route = try host.coders.route(for: bytes, options: settings.options)
        let coder = route.coder
        let metadata = host.coders.keptMetadata(of: bytes, policy: settings.encodeOptions.keepMetadata, options: settings.options, route: route)
        let context = OutputContext(source: source, route: route, cache: cache, started: started, metadata: metadata)
        if settings.everyFrame, coder.descriptor.capabilities.contains(.animated) {
            try renderFrames(bytes, context: context, sourceStatus: sourceStatus)
            return .finished
        }
        let selected = try selectedPages(bytes, route: route)
        if selected.count > 1, settings.jobs > 1 {
            let document = SplitSource(bytes: bytes, context: context, sourceStatus: sourceStatus, pages: selected.count)
            pages.add(selected.map { PageUnit(document: document, page: $0) })
            return .split
        }
        for page in selected { try renderPage(page, of: bytes, context: context, sourceStatus: sourceStatus) }
        return .finished
    }

    /// A large local file whose coder reads by ranges in this process (PNG, TIFF) decoded from the file itself, where
    /// the image manager would (`ImageManager.rangedSource(for:)`: its threshold, limits and failed list): a lane then
    /// holds no copy of it, which for a folder of 300 MB scans is most of what `jobs` lanes would otherwise hold at
    /// once. Only the plain case — one page, no frames, no metadata kept (the metadata is read from the bytes) —;
    /// false leaves the source to the bytes path.
    private func renderByRanges(_ source: BatchSource, started: Double, sourceStatus: stat?) throws -> Bool {
        guard settings.pages == nil, !settings.everyFrame, settings.encodeOptions.keepMetadata == .none,
              let (ranged, route) = manager.rangedSource(for: ImageRequest(url: source.location, options: settings.options,
                                                                          loadOptions: settings.loadOptions)) else { return false }
        let context = OutputContext(source: source, route: route, cache: "file", started: started, metadata: nil)
        try renderPage(settings.options.pageIndex, context: context, sourceStatus: sourceStatus) { options, sizes in
            try host.coders.decode(source: ranged, options: options, sizes: sizes, route: route, transformers: settings.transformers)
        }
        return true
    }

    /// Every size of one page: the outputs not up to date, from one decode.
    private func renderPage(_ page: Int, of bytes: [UInt8], context: OutputContext, sourceStatus: stat?) throws {
        try renderPage(page, context: context, sourceStatus: sourceStatus) { options, sizes in
            try host.coders.decode(data: bytes, options: options, sizes: sizes, transformers: settings.transformers, route: context.route)
        }
    }

    /// Plans one page's outputs, records those up to date, and writes the others from one `decode` of all their sizes.
    private func renderPage(_ page: Int, context: OutputContext, sourceStatus: stat?,
                            decode: (DecodeOptions, [PixelSize]) throws -> [Image]) throws {
        let source = context.source
        let targets = try plan(source, pages: [page], sourceStatus: sourceStatus)
        let due = targets.filter { !isUpToDate($0, sourceStatus: sourceStatus) }
        for target in targets where !due.contains(where: { $0.path == target.path }) { recordUpToDate(target, source: source) }
        guard !due.isEmpty else { return }
        var options = settings.options
        options.pageIndex = page
        options.sourceURL = source.isLocal ? nil : source.location
        let images = try decode(options, due.map(\.size))
        for (target, image) in zip(due, images) { try write(image, to: target, context: context) }
    }

    /// The pages to render: the selection clipped to the document, or the one page asked.
    private func selectedPages(_ bytes: [UInt8], route: CoderRoute) throws -> [Int] {
        guard let selection = settings.pages else { return [settings.options.pageIndex] }
        let count = route.coder.descriptor.capabilities.contains(.multipage)
            ? try host.coders.probe(data: bytes, options: settings.options, route: route).pageCount : 1
        let pages = selection.pages(of: max(count, 1))
        guard !pages.isEmpty else {
            throw CLIError("none of the pages --pages \(selection) exists (the source has \(count) page\(count == 1 ? "" : "s"), counted from 0)")
        }
        return pages
    }

    /// `--frames all`: every frame of an animation at every size (a still source gives its one image).
    private func renderFrames(_ bytes: [UInt8], context: OutputContext, sourceStatus: stat?) throws {
        for size in settings.sizes {
            var options = settings.options
            options.thumbnailSize = size
            let reader = try host.coders.frames(data: bytes, options: options, transformers: settings.transformers, route: context.route)
            var index = 0
            while let frame = try reader.next() {
                let target = try plan(context.source, pages: [index], sizes: [size], sourceStatus: sourceStatus)[0]
                if isUpToDate(target, sourceStatus: sourceStatus) { recordUpToDate(target, source: context.source) } else {
                    try write(frame, to: target, context: context)
                }
                index += 1
            }
        }
    }

    private struct OutputContext: Sendable {
        let source: BatchSource
        let route: CoderRoute
        var coder: String { route.coder.descriptor.id }
        let cache: String
        let started: Double
        /// The source's Exif and XMP as `--keep-metadata` keeps them (nil: none, the default).
        let metadata: KeptMetadata?
    }

    private func write(_ image: Image, to target: Target, context: OutputContext) throws {
        let bytes = try host.coders.encode(image, format: settings.template.format, options: settings.encodeOptions,
                                           metadata: context.metadata)
        if ObjectOutput.isObjectURL(target.path) {
            try ObjectOutput.write(bytes, to: target.path, format: settings.template.format, stamp: target.stamp, loaders: host.loaders)
        } else { try writeFile(bytes, to: target) }
        reporter.record(.init(source: context.source.display, output: target.path, size: "\(target.size)", width: image.width,
                              height: image.height, page: target.page, coder: context.coder,
                              milliseconds: (BatchReporter.now() - context.started) * 1000, cache: context.cache, status: "written",
                              placeholders: try settings.placeholders.map { try Placeholders(PlaceholderSample(image), settings: $0) }))
    }

    private func writeFile(_ bytes: [UInt8], to target: Target) throws {
        try Self.makeParentFolders(of: target.path)
        do {
            try OutputFile.write(bytes, to: target.path, force: false, stamp: target.stamp)
        } catch let failure as OutputFile.Failure {
            throw CLIError(failure.description)
        }
    }

    private func recordUpToDate(_ target: Target, source: BatchSource) {
        reporter.record(.init(source: source.display, output: target.path, size: "\(target.size)", page: target.page, status: "up-to-date"))
    }

    // MARK: Outputs

    private func plan(_ source: BatchSource, pages: [Int], sizes: [PixelSize]? = nil, sourceStatus: stat?) throws -> [Target] {
        try pages.flatMap { page in
            try (sizes ?? settings.sizes).map { size in
                let path = settings.template.path(for: source, size: size, page: page, outputFolder: settings.outputFolder)
                try claim(path, for: source)
                let stamp = OutputStamp.text(settings: settings.stampSettings, source: source, sourceStatus: sourceStatus,
                                             size: "\(size)", page: page)
                return Target(path: path, size: size, page: page, stamp: stamp)
            }
        }
    }

    /// An output path belongs to one source per run, and is never the source itself.
    private func claim(_ path: String, for source: BatchSource) throws {
        if source.isLocal, Self.sameFile(path, source.location) {
            throw CLIError("the output \(path) would replace its own source; choose another -o template or --out-dir")
        }
        let owner = claimed.withLock { claimed -> String? in
            if let owner = claimed[path], owner != source.location { return owner }
            claimed[path] = source.location
            return nil
        }
        if let owner {
            throw CLIError("the output \(path) is also the output of \(owner) in this batch; add %e to the -o template, or use --out-dir")
        }
    }

    private func isUpToDate(_ target: Target, sourceStatus: stat?) -> Bool {
        guard !settings.redoUpToDate else { return false }
        if ObjectOutput.isObjectURL(target.path) {
            return ObjectOutput.isUpToDate(target.path, stamp: target.stamp, sourceStatus: sourceStatus, loaders: host.loaders)
        }
        return OutputStamp.isUpToDate(target.path, stamp: target.stamp, sourceStatus: sourceStatus)
    }

    static func status(of path: String) -> stat? {
        var status = stat()
        return stat(path, &status) == 0 ? status : nil
    }

    private static func sameFile(_ a: String, _ b: String) -> Bool {
        if a == b { return true }
        guard let x = status(of: a), let y = status(of: b) else { return false }
        return x.st_dev == y.st_dev && x.st_ino == y.st_ino
    }

    /// `mkdir -p` of an output's folder (an --out-dir tree mirrors the source tree).
    static func makeParentFolders(of path: String) throws {
        let folder = PathText.parent(of: path)
        var status = stat()
        if stat(folder, &status) == 0 { return }
        try makeParentFolders(of: folder)
        if mkdir(folder, 0o777) != 0, errno != EEXIST {
            throw CLIError("cannot create the folder \(folder): \(OutputFile.errorText(errno))")
        }
    }
}
