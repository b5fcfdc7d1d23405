#if canImport(Glibc)
import Glibc
#endif

/// Which sources a service may read: remote URLs only under an allowed prefix (none by default), compared and
/// fetched in one normalised form (`RemoteURL`), so `..`, escapes or user information cannot pass as one URL and be
/// fetched as another; local files only beneath the root folder, opened through a descriptor of it (`RootedFiles`),
/// so neither `..`, a symbolic link nor a link swapped in during the request leaves it.
struct SourcePolicy: Sendable {
    /// Normalised `--allow-source` prefixes.
    let allowedPrefixes: [RemoteURL]
    /// `--allow-source s3://bucket/prefix` prefixes (keys are literal: compared as given).
    let allowedS3Prefixes: [S3Source]
    /// The reader of local sources; nil without --root (no local source is allowed).
    let rootedFiles: RootedFiles?

    init(allowedPrefixes: [String], root: String?) throws {
        let isS3: (String) -> Bool = { $0.prefix(5).lowercased() == "s3://" }
        allowedS3Prefixes = try allowedPrefixes.filter(isS3).map { text in
            do {
                return try S3Source(parsing: text, allowEmptyKey: true)
            } catch let refusal as S3Source.Refusal {
                throw UsageError("--allow-source \(text): not a usable s3:// prefix (\(refusal.reason))")
            }
        }
        self.allowedPrefixes = try allowedPrefixes.filter { !isS3($0) }.map { text in
            do {
                let prefix = try RemoteURL(parsing: text)
                guard prefix.query == nil else { throw RemoteURL.Refusal(reason: "a query") }
                return prefix
            } catch let refusal as RemoteURL.Refusal {
                throw UsageError("--allow-source \(text): not a usable http(s) prefix (\(refusal.reason))")
            }
        }
        rootedFiles = try root.map { try RootedFiles(root: $0) }
    }

    /// Whether a redirect may be followed to `target` (absolute, as the loader resolved it): the same test as a
    /// remote source, in its normal form, under an allowed prefix. Never to a local source or another scheme. The
    /// address policy is the loader's, on every connection, so it holds for every hop as well.
    func allowsRedirect(to target: String) -> Bool {
        let lowered = target.lowercased()
        guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://"),
              let url = try? RemoteURL(parsing: target) else { return false }
        return allowedPrefixes.contains(where: url.isUnder)
    }

    /// `allowed`: the URL the pipeline reads (a remote URL in its normal form, or a versioned local source).
    enum Decision: Sendable, Equatable { case allowed(String), refused(Int, String) }

    func resolve(_ source: String) -> Decision { resolve(plan(source)) }

    /// What can be decided about a source from its text alone, once per distinct URL (`VerifiedRequests` keeps it):
    /// remote and s3 sources are decided; a local one still needs its file looked at on every request.
    enum Plan: Sendable, Equatable { case decided(Decision), local(String) }

    func plan(_ source: String) -> Plan {
        let lowered = source.lowercased()
        if lowered.hasPrefix("s3://") {
            let object: S3Source
            do { object = try S3Source(parsing: source) } catch let refusal as S3Source.Refusal {
                return .decided(.refused(403, "the source URL is refused: \(refusal.reason)"))
            } catch {
                return .decided(.refused(403, "the source URL is refused"))
            }
            guard allowedS3Prefixes.contains(where: object.isUnder) else {
                return .decided(.refused(403, allowedS3Prefixes.isEmpty ? "s3:// sources are not allowed here (no --allow-source s3://...)"
                                                                         : "the source is not under an allowed prefix"))
            }
            return .decided(.allowed(object.text))
        }
        if lowered.hasPrefix("http://") || lowered.hasPrefix("https://") {
            let url: RemoteURL
            do { url = try RemoteURL(parsing: source) } catch let refusal as RemoteURL.Refusal {
                return .decided(.refused(403, "the source URL is refused: \(refusal.reason)"))
            } catch {
                return .decided(.refused(403, "the source URL is refused"))
            }
            guard allowedPrefixes.contains(where: url.isUnder) else {
                return .decided(allowedPrefixes.isEmpty
                    ? .refused(403, "remote sources are not allowed here (the service runs with no --allow-source)")
                    : .refused(403, "the source is not under an allowed prefix"))
            }
            return .decided(.allowed(url.text))
        }
        var path = source
        if lowered.hasPrefix("local://") { path = String(source.dropFirst("local://".count)) }
        guard path.hasPrefix("/"), !lowered.contains("://") || lowered.hasPrefix("local://") else {
            return .decided(.refused(403, "only http(s) and s3 URLs and local:///paths are sources"))
        }
        guard rootedFiles != nil else { return .decided(.refused(403, "local sources are not allowed here (the service runs with no --root)")) }
        let segments = path.split(separator: "/")
        if segments.contains("..") { return .decided(.refused(403, "the path leaves the root folder")) }
        guard !path.utf8.contains(0) else { return .decided(.refused(400, "a NUL in a local source")) }
        return .local("/" + segments.joined(separator: "/"))
    }

    /// The decision for this request: a local source's file is looked at now (its identity is part of the key).
    func resolve(_ plan: Plan) -> Decision {
        switch plan {
        case .decided(let decision): return decision
        case .local(let relative):
            guard let rootedFiles else { return .refused(403, "local sources are not allowed here (the service runs with no --root)") }
            switch rootedFiles.lookup(relative) {
            case .found(let versioned): return .allowed(versioned)
            case .refused(let status, let why): return .refused(status, why)
            }
        }
    }
}
