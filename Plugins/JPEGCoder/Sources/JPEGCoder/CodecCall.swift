import PluginAPI
import PluginKit

/// Calls a JPEGCodec function with a message buffer; a non-OK status becomes a thrown `PluginFailure`
/// (see `CodecCall.run`).
func codecCall(_ body: (ip_message) -> ip_status) throws {
    try CodecCall.run(library: "libjpeg", body)
}
