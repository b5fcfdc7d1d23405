import PluginAPI

/// The release's version (library, CLI and the plugins built with them) and the plugin ABI it speaks.
public enum ImagepipeVersion {
    public static let string = HostServices.version
    public static let abi = "\(IP_ABI_MAJOR).\(IP_ABI_MINOR)"
}

/// The name before 0.x: it is the release's version (library and CLI), not only the plugin host's.
@available(*, deprecated, renamed: "ImagepipeVersion")
public typealias HostVersion = ImagepipeVersion
