import CHEIF
import PluginAPI
import PluginKit

/// Turns libheif's `heif_error` into the ABI's statuses, with messages that name the cause.
///
/// Mapping: Invalid_input → INVALID_DATA (TRUNCATED when the sub-code is End_of_data or a top-level box runs past
/// the data); Unsupported_filetype / Unsupported_feature → UNSUPPORTED ("libheif 1.15 cannot decode <codec>");
/// Memory_allocation_error → NO_MEMORY, or LIMIT_EXCEEDED for libheif's security limits; a decoder-plugin error
/// (libde265, dav1d) → INVALID_DATA or TRUNCATED. When libheif calls a file invalid only because it skipped
/// an item type it does not know, `ItemTypeInspector` finds the type and the status becomes UNSUPPORTED.
enum HEIFFailure {
    static let libraryName = "libheif " + String(cString: heif_get_version())

    /// Throws the mapped failure unless `error` is heif_error_Ok. `data` (the input) helps diagnose the cause.
    static func check(_ error: heif_error, _ action: String, data: UnsafeBufferPointer<UInt8>? = nil) throws {
        guard error.code != heif_error_Ok else { return }
        throw failure(error, action, data: data)
    }

    static func failure(_ error: heif_error, _ action: String, data: UnsafeBufferPointer<UInt8>?) -> PluginFailure {
        // libheif's messages sometimes end in a newline.
        var text = error.message.map { String(cString: $0) } ?? "code \(error.code.rawValue)"
        while text.last?.isWhitespace == true { text.removeLast() }
        let said = "\(libraryName) failed \(action): \(text)"
        if let data, let unsupported = unsupportedCodec(error, data) { return unsupported }
        switch error.code {
        case heif_error_Unsupported_filetype, heif_error_Unsupported_feature:
            return .unsupported(said)
        case heif_error_Memory_allocation_error:
            return error.subcode == heif_suberror_Security_limit_exceeded
                ? .limitExceeded(said) : PluginFailure(IP_STATUS_NO_MEMORY, said)
        case heif_error_Invalid_input, heif_error_Decoder_plugin_error:
            if error.subcode == heif_suberror_End_of_data { return .truncated(said) }
            if let data, ItemTypeInspector.inspect(data).truncated {
                return .truncated(said + " (a box runs past the end of the \(data.count) bytes)")
            }
            return .invalidData(said)
        case heif_error_Usage_error:
            // libheif also reports references to missing items in corrupt files as a usage error.
            return error.subcode == heif_suberror_Nonexisting_item_referenced ? .invalidData(said) : .internalError(said)
        case heif_error_Encoder_plugin_error:
            return error.subcode == heif_suberror_Unsupported_bit_depth ? .unsupported(said) : .internalError(said)
        default:
            return .internalError(said)
        }
    }

    /// "libheif 1.15.1 cannot decode JPEG-coded items".
    static func cannotDecode(_ itemType: String) -> PluginFailure {
        .unsupported("\(libraryName) cannot decode \(ItemTypeInspector.codecName(itemType))")
    }

    /// UNSUPPORTED with the codec's name when the file's primary item is something libheif 1.15 cannot decode,
    /// whatever libheif itself reported; nil when the item type is one it decodes or cannot be found.
    private static func unsupportedCodec(_ error: heif_error, _ data: UnsafeBufferPointer<UInt8>) -> PluginFailure? {
        let facts = ItemTypeInspector.inspect(data)
        if facts.isLowOverhead {
            return .unsupported("\(libraryName) cannot decode low-overhead HEIF files (a 'mini' box, brand mif3)")
        }
        guard let type = facts.primaryType else { return nil }
        return ItemTypeInspector.decodableTypes.contains(type) ? nil : cannotDecode(type)
    }
}
