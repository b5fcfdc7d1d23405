import PluginAPI
import PluginKit

/// The host's callback table for one load, copied at start (the ABI lets the host free its copy afterwards).
///
/// `@unchecked Sendable`: the value is immutable, and the host's context pointer inside it is opaque to us.
/// loader.h tags the callbacks [loader-thread] — the host expects them on a thread we choose, one at a time per
/// task — and FileLoadTask calls them only from its single worker, so handing this value to that worker is
/// exactly what the ABI asks for.
struct HostCallbacks: @unchecked Sendable {
    private let table: ip_load_callbacks

    /// Copies the fields the host's struct_size covers; the rest stay NULL ("not provided").
    init(copying pointer: UnsafePointer<ip_load_callbacks>?) throws {
        guard let pointer else { throw PluginFailure.internalError("start called without callbacks") }
        table = try ABIStruct.readValidated(pointer, named: "ip_load_callbacks")
        guard table.complete != nil else { throw PluginFailure.internalError("the host's callbacks lack complete()") }
    }

    /// Reports the size and URL; true when the host accepts the response.
    func response(expectedSize: Int64, effectiveURL: String) -> Bool {
        guard let response = table.response else { return true }
        return effectiveURL.withCString { response(table.context, 0, expectedSize, nil, $0) } == 0
    }

    /// Hands over the next bytes; true when the host wants more.
    func data(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let data = table.data else { return true }
        return data(table.context, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count) == 0
    }

    /// The last call for the task.
    func complete(_ status: ip_status, _ message: String) {
        message.withCString { table.complete(table.context, status, $0) }
    }
}
