import PipelineHost

/// Builds the plugin host from the global options every command accepts.
enum HostSetup {
    static let valuedOptions: Set<String> = ["plugin-dir"]
    static let flags: Set<String> = ["no-default-plugins"]

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
