/// Routes each URL to the loader for its scheme (plain paths are "file"); the first loader on the search path
/// that handles a scheme wins, ties broken by descriptor priority.
public final class LoadersManager: DataLoading {
    public let loaders: [PluginLoader]
    /// Reported instead of "no loader" when the search path loaded no plugin at all (see CodersManager's).
    let nothingInstalled: PipelineError?

    /// `configurations`: "key=value" lines per URL scheme (loader.h `open`); a loader is opened with the lines of
    /// every scheme it serves, in the order of its descriptor's schemes.
    public init(loaders: [PluginLoader], configurations: [String: String] = [:], nothingInstalled: PipelineError? = nil) {
        self.nothingInstalled = nothingInstalled
        let loaders = loaders.map { loader in
            loader.configured(loader.descriptor.schemes.compactMap { configurations[$0] }.filter { !$0.isEmpty }.joined(separator: "\n"))
        }
        self.loaders = loaders.enumerated().sorted {
            $0.element.descriptor.priority != $1.element.descriptor.priority
                ? $0.element.descriptor.priority > $1.element.descriptor.priority : $0.offset < $1.offset
        }.map(\.element)
    }

    public func loader(for url: String) -> PluginLoader? { loaders.first { $0.canLoad(url: url) } }

    /// Opens every configured loader now, so a configuration the loader refuses fails at start-up (a service)
    /// rather than at the first request; loaders left at their defaults stay unopened until used.
    public func openConfigured() throws {
        for loader in loaders where !loader.configuration.isEmpty { _ = try loader.opened() }
    }

    public func canLoad(url: String) -> Bool { loader(for: url) != nil }

    public func load(url: String, options: LoadOptions = LoadOptions()) async throws -> [UInt8] {
        try await load(url: url, options: options, hooks: LoadHooks())
    }

    public func load(url: String, options: LoadOptions, hooks: LoadHooks) async throws -> [UInt8] {
        guard let loader = loader(for: url) else {
            let error = PipelineError.noLoader(url: url, scheme: urlScheme(of: url))
            throw loaders.isEmpty ? nothingInstalled ?? error : error
        }
        return try await loader.load(url: url, options: options, hooks: hooks)
    }
}
