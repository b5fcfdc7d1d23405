import PluginAPI

/// The host's version and the plugin ABI it speaks.
public enum HostVersion {
    public static let string = HostServices.version
    public static let abi = "\(IP_ABI_MAJOR).\(IP_ABI_MINOR)"
}
