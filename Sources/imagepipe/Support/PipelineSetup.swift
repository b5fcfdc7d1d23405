import PipelineHost
#if canImport(Glibc)
import Glibc
#endif

/// Builds the plugin host from the global options every command accepts.
enum PipelineSetup {

    /// The image manager of `render`, `info` and `thumbnail`: a disk cache when a source may be remote
    /// (`remoteSources`), unless --no-cache.
    ///
    /// A local file is read directly and never cached, so it needs no cache folder at all: a service account whose
    /// HOME does not exist renders local files without --no-cache. For a remote source whose cache folder cannot be
    /// created, the cache turns itself off with one warning line and the request goes on uncached.
    static func manager(_ arguments: Arguments, host: PluginHost, remoteSources: Bool) throws -> ImageManager {
        let uncached = ImageManager(host: host, configuration: ImageManagerConfiguration(memoryCache: nil))
        guard !arguments.flag("no-cache"), remoteSources else { return uncached }
        do {
            let cache = try DiskCache(directory: arguments.value("cache-dir"))
            return ImageManager(host: host, configuration: ImageManagerConfiguration(memoryCache: nil, dataCache: cache))
        } catch {
            let why = (error as? PipelineError).map { "\($0)" } ?? "\(error)"
            Output.error("imagepipe: warning: disk cache off for this run: \(why) (--cache-dir DIR chooses another folder, --no-cache silences this)")
            return uncached
        }
    }

    /// A source loaded over the network (and so cached), as opposed to a path or a file: URL.
    static func isRemote(_ source: String) -> Bool {
        source.contains("://") && !source.lowercased().hasPrefix("file://")
    }

    static let cacheSection = OptionSection("Cache options:", column: 21, [
        .option(Option("cache-dir", value: "DIR", help: """
                the disk cache folder (default $XDG_CACHE_HOME/imagepipe/default); remote sources are
                cached (originals, and thumbnails as raw pixels); local files are read directly
                """)),
        .option(Option("no-cache", help: "neither read nor write the disk cache")),
    ])

    /// Files missing from the registry cache are inspected by a child `imagepipe __scan`, so a plugin that crashes
    /// while being opened is listed as refused instead of taking the command down. IMAGEPIPE_SCAN_TIMEOUT (seconds,
    /// default 10) is how long one file may take; IMAGEPIPE_SCAN_IN_PROCESS=1 inspects in this process instead
    /// (debugging a plugin under a debugger, measuring).
    static func host(_ arguments: Arguments) throws -> PluginHost {
        let searchPath = PluginSearchPath.standard(
            flags: try pluginDirectories(arguments), defaults: !arguments.flag("no-default-plugins"))
        let timeout = getenv("IMAGEPIPE_SCAN_TIMEOUT").flatMap { Double(String(cString: $0)) }.map { max(0.1, $0) } ?? 10
        let inProcess = getenv("IMAGEPIPE_SCAN_IN_PROCESS").map { String(cString: $0) == "1" } ?? false
        let scanner = inProcess ? nil : PluginSearchPath.currentExecutablePath().map { PluginScanner(executable: $0, timeout: timeout) }
        let host = PluginHost(registry: PluginRegistry.scan(searchPath, scanner: scanner),
                              loaderConfigurations: try loaderConfigurations(arguments))
        // A configuration a loader refuses (a misspelt key) fails here, before any work, naming the key.
        try host.loaders.openConfigured()
        return host
    }

    /// The loaders' configurations by URL scheme, from `--loader-option SCHEME:KEY=VALUE` (repeatable; a later one
    /// overrides an earlier one for the same key) and IMAGEPIPE_HTTP_MAX_CONNECTIONS, which older releases read inside
    /// the HTTP plugin and which the host now hands over as `http:max-connections` unless an option sets it. The
    /// host reads the environment; plugins never do (loader.h, `open`).
    static func loaderConfigurations(_ arguments: Arguments) throws -> [String: String] {
        var lines: [String: [String]] = [:]
        if let connections = getenv("IMAGEPIPE_HTTP_MAX_CONNECTIONS").map({ String(cString: $0) }), !connections.isEmpty {
            lines["http", default: []].append("max-connections=\(connections)")
        }
        for option in arguments.all("loader-option") {
            guard let colon = option.firstIndex(of: ":"), let equals = option[colon...].firstIndex(of: "="),
                  option.index(after: colon) < equals else {
                throw UsageError("--loader-option takes SCHEME:KEY=VALUE (e.g. http:max-connections=8), not '\(option)'")
            }
            let scheme = option[..<colon].lowercased()
            guard !scheme.isEmpty, scheme.allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) }) else {
                throw UsageError("--loader-option '\(option)': '\(scheme)' is not a URL scheme")
            }
            lines[scheme, default: []].append(String(option[option.index(after: colon)...]))
        }
        // The S3 loader's credentials, region and endpoint, found as AWS's tools find them (S3LoaderEnvironment),
        // before the explicit lines so that those win.
        do {
            let found = try S3LoaderEnvironment.configurationLines(explicit: lines["s3"] ?? [])
            if !found.isEmpty { lines["s3"] = found + (lines["s3"] ?? []) }
        } catch {
            throw CLIError("\(error)")
        }
        return lines.mapValues { $0.joined(separator: "\n") }
    }

    /// Fails before any work when no coder writes `format`: with where the host looked when no plugin loaded at all
    /// (a copied binary with no plugins installed), else with the formats that can be written.
    static func requireEncoder(for format: String, in host: PluginHost) throws {
        guard !host.coders.canEncode(format: format) else { return }
        if let nothing = host.registry.nothingLoaded { throw nothing }
        let known = host.coders.coders.filter { $0.descriptor.capabilities.contains(.encode) }.map(\.descriptor.format)
        throw CLIError("no coder can encode '\(format)' (encodable: \(known.isEmpty ? "none" : known.joined(separator: ", ")))")
    }

    /// One line on standard error when no plugin loaded: an empty listing alone does not say where the host looked.
    static func warnWhenNothingLoaded(_ host: PluginHost, command: String) {
        if let nothing = host.registry.nothingLoaded { Output.error("imagepipe \(command): \(nothing) [E\(nothing.code)]") }
    }

    /// The `--plugin-dir` folders, checked: an empty or relative one is a usage mistake (it would mean the current
    /// folder, which is never searched), and a missing one is worth a warning (a typo otherwise shows only as
    /// "no plugin files found").
    static func pluginDirectories(_ arguments: Arguments) throws -> [String] {
        let folders = arguments.all("plugin-dir")
        for folder in folders {
            guard folder.hasPrefix("/") else {
                throw UsageError(folder.isEmpty
                    ? "--plugin-dir needs a folder; an empty one would mean the current folder, which is never searched"
                    : "--plugin-dir must be an absolute path, not '\(folder)' (the current folder is never searched; "
                        + "write \"$PWD/\(folder)\" to mean it)")
            }
            var status = stat()
            if stat(folder, &status) != 0 {
                Output.error("imagepipe: warning: --plugin-dir \(folder) does not exist (\(String(cString: strerror(errno)).lowercased()))")
            } else if status.st_mode & S_IFMT != S_IFDIR {
                Output.error("imagepipe: warning: --plugin-dir \(folder) is not a folder")
            }
        }
        return folders
    }

    /// The options of the commands that decode and write images (render, thumbnail), after their own.
    static let renderingSections = [DecodeArguments.section, ProcessingArguments.section, cacheSection, IsolationSetup.section, globalSection]

    /// The options every command takes.
    static let globalSection = OptionSection("Global options:", column: 21, [
        .option(Option("plugin-dir", value: "DIR", help: """
                search DIR (an absolute path) for plugins first (repeatable); then IMAGEPIPE_PLUGIN_PATH,
                the per-user folder ($XDG_DATA_HOME/imagepipe/1/plugins.d), the system folders
                (<prefix>/lib/imagepipe/1/plugins.d, /usr/lib/<multiarch>/imagepipe/1/plugins.d ...),
                then plugins.d next to the executable; 'imagepipe plugins' lists them. The current
                directory is never searched.
                """)),
        .option(Option("no-default-plugins", help: "search only --plugin-dir and IMAGEPIPE_PLUGIN_PATH (test a plugin folder alone)")),
        .option(Option("loader-option", value: "SCHEME:KEY=VALUE", help: """
                configure the loader of SCHEME (repeatable), e.g. http:max-connections=8;
                the loader refuses keys it does not know (its README lists them)
                """)),
        .option(Option("help", help: "show help")),
    ])
}
