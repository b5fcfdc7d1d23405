import PluginAPI

/// The host's callback table for one load, copied at start (the ABI lets the host free its copy afterwards).
///
/// Shared by the loader plugins, which each wrote the same wrapper. `@unchecked Sendable`: the value is
/// immutable, and the host's context pointer inside it is opaque to the plugin. loader.h tags the callbacks
/// [loader-thread]: the host expects them on a thread the loader chooses, one call at a time per task, so a
/// loader hands this value to the one thread that runs the task, which is exactly what the ABI asks for.
public struct LoadCallbacks: @unchecked Sendable {
    private let table: ip_load_callbacks

    /// Copies the fields the host's struct_size covers; the rest stay NULL ("not provided").
    public init(copying pointer: UnsafePointer<ip_load_callbacks>?) throws {
        guard let pointer else { throw PluginFailure.internalError("start called without callbacks") }
        table = try ABIStruct.read(pointer, named: "ip_load_callbacks")
        guard table.complete != nil else { throw PluginFailure.internalError("the host's callbacks lack complete()") }
    }

    /// Reports the final response (status code 0 where the scheme has none); true when the host accepts it.
    public func response(statusCode: Int32, expectedSize: Int64, contentType: UnsafePointer<CChar>?,
                         effectiveURL: UnsafePointer<CChar>?) -> Bool {
        guard let response = table.response else { return true }
        return response(table.context, statusCode, expectedSize, contentType, effectiveURL) == 0
    }

    /// Hands over the next bytes; true when the host wants more.
    public func data(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let data = table.data else { return true }
        return data(table.context, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count) == 0
    }

    /// Reports one header line of the final response, before `response` (ABI 1.1; a 1.0 host does not ask, and
    /// the line is dropped). True when the host accepts it.
    public func header(name: String, value: String) -> Bool {
        guard let header = table.header else { return true }
        return name.withCString { n in value.withCString { v in header(table.context, n, v) == 0 } }
    }

    /// Asks whether to follow a redirect to `location` (absolute), before connecting to it (ABI 1.1). True when
    /// the host allows it, or when the host (1.0) has no such callback.
    public func redirect(statusCode: Int32, location: String) -> Bool {
        guard let redirect = table.redirect else { return true }
        return location.withCString { redirect(table.context, statusCode, $0) == 0 }
    }

    /// The last call for the task.
    public func complete(_ status: ip_status, _ message: String) {
        message.withCString { table.complete(table.context, status, $0) }
    }
}
