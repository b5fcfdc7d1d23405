import PluginAPI
import PluginKit

/// Calls a PNGCodec function with a message buffer; a non-OK status becomes a thrown `PluginFailure`
/// (see `CodecCall.run`).
func codecCall(_ body: (ip_message) -> ip_status) throws {
    try CodecCall.run(library: "libpng", body)
}
