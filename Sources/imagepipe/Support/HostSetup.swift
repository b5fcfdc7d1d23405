import PipelineHost

/// Builds the plugin host from the global options every command accepts.
enum HostSetup {
    static let valuedOptions: Set<String> = ["plugin-dir"]
    static let flags: Set<String> = ["no-default-plugins"]
    static let cacheValued: Set<String> = ["cache-dir"]
    static let cacheFlags: Set<String> = ["no-cache"]

    /// The image manager of `render` and `info`: a disk cache for remote sources unless --no-cache.
    static func manager(_ arguments: Arguments, host: PluginHost) throws -> ImageManager {
        guard !arguments.flag("no-cache") else {
            return ImageManager(host: host, configuration: ImagePipelineConfiguration(memoryCache: nil))
        }
        let cache = try DiskCache(directory: arguments.value("cache-dir") ?? DiskCache.defaultDirectory())
        return ImageManager(host: host, configuration: ImagePipelineConfiguration(memoryCache: nil, dataCache: cache))
    }

    static let cacheHelpText = """
        Cache options:
          --cache-dir DIR    the disk cache folder (default $XDG_CACHE_HOME/imagepipe/default); remote sources are
                             cached (originals, and thumbnails as raw pixels); local files are read directly
          --no-cache         neither read nor write the disk cache
        """

    static func host(_ arguments: Arguments) -> PluginHost {
        PluginHost(searchPath: .standard(
            flags: arguments.all("plugin-dir"),
            executablePath: arguments.flag("no-default-plugins") ? nil : PluginSearchPath.currentExecutablePath()))
    }

    static let helpText = """
        Global options:
          --plugin-dir DIR   search DIR for plugins first (repeatable); then IMAGEPIPE_PLUGIN_PATH, then plugins.d
                             next to the executable. The current directory is never searched.
          --no-default-plugins  do not search plugins.d next to the executable (test a plugin folder alone)
          --help             show help
        """
}
