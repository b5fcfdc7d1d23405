import PluginAPI

/// The one error type a Swift plugin throws: a C status plus the message the host will show.
///
/// `withStatus` turns it back into the ABI's status + message buffer at the boundary, so plugin code
/// can use `throw` and `defer` like any Swift code while nothing Swift-shaped crosses into the host.
public struct PluginFailure: Error, Sendable {
    public let status: ip_status
    public let message: String

    public init(_ status: Int32, _ message: String) {
        self.status = ip_status(status)
        self.message = message
    }

    public static func invalidData(_ message: String) -> PluginFailure { PluginFailure(IP_STATUS_INVALID_DATA, message) }
    public static func truncated(_ message: String) -> PluginFailure { PluginFailure(IP_STATUS_TRUNCATED, message) }
    public static func unsupported(_ message: String) -> PluginFailure { PluginFailure(IP_STATUS_UNSUPPORTED, message) }
    public static func limitExceeded(_ message: String) -> PluginFailure { PluginFailure(IP_STATUS_LIMIT_EXCEEDED, message) }
    public static func notFound(_ message: String) -> PluginFailure { PluginFailure(IP_STATUS_NOT_FOUND, message) }
    public static func io(_ message: String) -> PluginFailure { PluginFailure(IP_STATUS_IO, message) }
    public static func internalError(_ message: String) -> PluginFailure { PluginFailure(IP_STATUS_INTERNAL, message) }
    public static let cancelled = PluginFailure(IP_STATUS_CANCELLED, "cancelled")
}

/// Writes `text` into a caller-provided message buffer, truncated at a UTF-8 character boundary.
public func writeMessage(_ message: ip_message, _ text: String) {
    guard let buffer = message.buffer, message.capacity > 0 else { return }
    var utf8 = Array(text.utf8)
    if utf8.count > message.capacity - 1 {
        utf8.removeSubrange((message.capacity - 1)...)
        // Drop a trailing partial multi-byte sequence so the host always receives valid UTF-8.
        while let last = utf8.last, last & 0xC0 == 0x80 { utf8.removeLast() }
        if let last = utf8.last, last >= 0xC0 { utf8.removeLast() }
    }
    for (index, byte) in utf8.enumerated() { buffer[index] = CChar(bitPattern: byte) }
    buffer[utf8.count] = 0
}

/// Runs a plugin body at the ABI boundary: OK when it returns, its status and message when it throws.
public func withStatus(_ message: ip_message, _ body: () throws -> Void) -> ip_status {
    do {
        try body()
        return ip_status(IP_STATUS_OK)
    } catch let failure as PluginFailure {
        writeMessage(message, failure.message)
        return failure.status
    } catch {
        writeMessage(message, "\(error)")
        return ip_status(IP_STATUS_INTERNAL)
    }
}
