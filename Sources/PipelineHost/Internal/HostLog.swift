#if canImport(Glibc)
import Glibc
#endif
import PluginAPI
import Synchronization

/// Plugin and host diagnostics, to standard error when the level is at least the threshold.
///
/// The threshold comes from IMAGEPIPE_LOG (debug, info, warning, error; default warning), read once.
public enum HostLog {
    /// Where log lines go: standard error, unless an application that moved descriptor 2 aside (the CLI keeps C
    /// libraries' own chatter off its terminal) points the log at the real one. Set before the first request.
    public static var descriptor: Int32 {
        get { output.load(ordering: .relaxed) }
        set { output.store(newValue, ordering: .relaxed) }
    }
    private static let output = Atomic<Int32>(2)

    private static let threshold: Int32 = {
        switch getenv("IMAGEPIPE_LOG").map({ String(cString: $0).lowercased() }) {
        case "debug": IP_LOG_DEBUG
        case "info": IP_LOG_INFO
        case "error": IP_LOG_ERROR
        default: IP_LOG_WARNING
        }
    }()
    private static let lock = Mutex(())

    public static func write(level: Int32, source: String, message: String) {
        guard level >= threshold else { return }
        let name = ["debug", "info", "warning", "error"][Int(max(0, min(3, level)))]
        let line = "imagepipe: \(name): [\(source)] \(message)\n"
        lock.withLock { _ in _ = line.withCString { Glibc.write(descriptor, $0, strlen($0)) } }
    }
}
