import FoundationEssentials
import PipelineHost

/// `/info/...`: what a source is (the facts of `imagepipe info --json`), and its placeholders when asked, as JSON.
/// The same rules as images: the signature is checked before anything is parsed, the source policy applies, the
/// decode takes a render slot within the request's deadline, and answers are cached by source version and options.
extension ServeHandler {
    typealias Finish = @Sendable (Int, [(String, String)], [UInt8], String) -> Void

    func handleInfo(_ request: HTTPRequest, started: Double, finish: @escaping Finish) {
        let signedPath = String(request.path.dropFirst("/info".count))
        guard let signed = ProcessingURL.signedPart(of: signedPath), signatureIsValid(signed.signature, signed.signedPath) else {
            return finish(403, Self.text, Array("bad signature\n".utf8), "-")
        }
        let parsed: InfoURL
        do {
            parsed = try InfoURL(path: signedPath)
        } catch let failure as ProcessingURL.Failure {
            return finish(failure.status, Self.text, Array((failure.message + "\n").utf8), "-")
        } catch {
            return finish(400, Self.text, Array("bad request\n".utf8), "-")
        }
        let source: String
        switch settings.sources.resolve(parsed.source) {
        case .allowed(let resolved): source = resolved
        case .refused(let status, let why): return finish(status, Self.text, Array((why + "\n").utf8), "-")
        }
        var options = parsed.options
        options.limits = settings.limits
        let imageRequest = ImageRequest(url: source, options: options, loadOptions: settings.loadOptions)
        let key: @Sendable () -> String = { [settings] in
            "info|" + settings.sourceVersion(source) + "|" + parsed.canonicalOptions.joined(separator: "/")
        }
        let ifNoneMatch = request.header("If-None-Match")
        let answer: @Sendable (OutputCache.Entry, String) -> Void = { [settings] entry, tier in
            let headers = [("ETag", entry.etag), ("Cache-Control", "public, max-age=\(settings.cacheMaxAge)")]
            if Self.matches(ifNoneMatch, entry.etag) { return finish(304, headers, entry.body, tier) }
            finish(200, headers + [("Content-Type", entry.contentType)], entry.body, tier)
        }
        let needsRevalidation = Settings.isRemote(source) && !settings.versions.isFresh(source)
        if !needsRevalidation, let hit = outputs.entry(for: key()) {
            metrics.hit("memory")
            return answer(hit, "memory")
        }
        guard gate.admit() else {
            metrics.rejectedAsBusy()
            return finish(503, [("Retry-After", "1")] + Self.text, Array("busy: every render slot and queue place is taken\n".utf8), "-")
        }
        let given = parsed.source
        Task {
            defer { self.gate.finish() }
            do {
                if needsRevalidation { try await self.revalidate(imageRequest, arrived: started) }
                let entry = try await self.infoEntry(for: imageRequest, placeholders: parsed.placeholders, arrived: started)
                self.outputs.store(entry, for: key())
                answer(entry, "render")
            } catch {
                let (status, message) = Self.status(for: error)
                finish(status, Self.text, Array((self.shown(message, source: source, given: given) + "\n").utf8), "render")
            }
        }
    }

    /// The JSON answer. A remote source is fetched before the slot is taken when pixels are needed (placeholders),
    /// as for images; the facts alone may come from the first bytes (a range request) without a slot's worth of work.
    private func infoEntry(for request: ImageRequest, placeholders: Placeholders.Settings?, arrived: Double) async throws -> OutputCache.Entry {
        let remaining = max(0.001, settings.timeout - (Self.now() - arrived))
        let dataKey = ImageCacheKey(request, filter: settings.sourceVersion).dataKey
        let body = try await Self.withDeadline(remaining) { [manager, gate, originals] in
            if placeholders != nil, Settings.isRemote(request.url) { _ = try await manager.originalData(for: request) }
            guard await gate.enter() else { throw CancellationError() }
            defer {
                gate.leave()
                originals.release(dataKey)
            }
            let info = try await manager.info(for: request.url, options: request.options, loadOptions: request.loadOptions)
            var found: Placeholders?
            if let placeholders {
                found = try await manager.placeholders(for: request.url, options: request.options, loadOptions: request.loadOptions, settings: placeholders)
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            return Array(try encoder.encode(InfoAnswer(info: info, placeholders: found))) + [10]
        }
        return OutputCache.Entry(body: body, contentType: "application/json", etag: Self.etag(body))
    }
}

/// The JSON of `/info`: `imagepipe info --json`'s keys, without the coder's id (which plugin read a file is the
/// server's business), plus `placeholders` when asked.
struct InfoAnswer: Encodable {
    let info: ImageInfo
    let placeholders: Placeholders?

    private enum Keys: String, CodingKey {
        case format, width, height, frameCount, pageCount, loopCount, bitDepth, hasAlpha, details, color, metadata, placeholders
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(info.format, forKey: .format)
        try c.encode(info.width, forKey: .width)
        try c.encode(info.height, forKey: .height)
        try c.encode(info.frameCount, forKey: .frameCount)
        try c.encode(info.pageCount, forKey: .pageCount)
        try c.encodeIfPresent(info.loopCount, forKey: .loopCount)
        try c.encode(info.bitDepth, forKey: .bitDepth)
        try c.encode(info.hasAlpha, forKey: .hasAlpha)
        try c.encode(info.details, forKey: .details)
        try c.encodeIfPresent(info.color, forKey: .color)
        // Never the GPS coordinates: a service publishes whether a file has them, not where it was taken.
        if var metadata = info.metadata {
            metadata.exif = metadata.exif?.withoutCoordinates
            try c.encode(metadata, forKey: .metadata)
        }
        try c.encodeIfPresent(placeholders, forKey: .placeholders)
    }
}
