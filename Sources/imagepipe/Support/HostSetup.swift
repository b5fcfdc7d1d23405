import PipelineHost

/// Builds the plugin host from the global options every command accepts.
enum HostSetup {
    static let valuedOptions: Set<String> = ["plugin-dir"]

    static func host(_ arguments: Arguments) -> PluginHost {
        PluginHost(searchPath: .standard(flags: arguments.all("plugin-dir")))
    }

    static let helpText = """
        Global options:
          --plugin-dir DIR   search DIR for plugins first (repeatable); then IMAGEPIPE_PLUGIN_PATH, then plugins.d
                             next to the executable. The current directory is never searched.
          --help             show help
        """
}
