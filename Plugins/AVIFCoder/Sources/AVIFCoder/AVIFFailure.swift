import CAVIF
import PluginAPI
import PluginKit

/// Turns a libavif result into the ABI status and a message that says what libavif said.
///
/// libavif 0.11 reports most problems as BMFF_PARSE_FAILED with the cause only in its diagnostics text, so two
/// causes are told apart here: a limit (the image count or dimension limits this plugin passes in) and a file
/// that ends early (its top-level boxes run past the end of the data, see `BoxLayout`, or libavif's diagnostics
/// suspect truncation because an item's data lies past the end).
enum AVIFFailure {
    static func make(
        _ result: avifResult, diagnostics: String, data: UnsafeBufferPointer<UInt8>, stage: String
    ) -> PluginFailure {
        let name = String(cString: avifResultToString(result))
        let message = "libavif failed \(stage): \(name)" + (diagnostics.isEmpty ? "" : " (\(diagnostics))")
        switch result {
        case AVIF_RESULT_TRUNCATED_DATA:
            return .truncated(message)
        case AVIF_RESULT_OUT_OF_MEMORY:
            return PluginFailure(IP_STATUS_NO_MEMORY, message)
        case AVIF_RESULT_NO_CODEC_AVAILABLE, AVIF_RESULT_NOT_IMPLEMENTED, AVIF_RESULT_UNSUPPORTED_DEPTH:
            return .unsupported(message)
        case AVIF_RESULT_NO_IMAGES_REMAINING:
            return .notFound(message)
        case AVIF_RESULT_INVALID_FTYP:
            // Another ISO-BMFF format (HEIF, MP4) is valid input this coder does not handle; anything else is junk.
            let isBMFF = data.count >= 8 && data[4] == 0x66 && data[5] == 0x74 && data[6] == 0x79 && data[7] == 0x70
            return isBMFF
                ? .unsupported("not an AVIF file: its ftyp box names neither the avif nor the avis brand")
                : .invalidData(message)
        case AVIF_RESULT_BMFF_PARSE_FAILED, AVIF_RESULT_NO_CONTENT, AVIF_RESULT_NO_AV1_ITEMS_FOUND,
            AVIF_RESULT_DECODE_COLOR_FAILED, AVIF_RESULT_DECODE_ALPHA_FAILED, AVIF_RESULT_COLOR_ALPHA_SIZE_MISMATCH,
            AVIF_RESULT_ISPE_SIZE_MISMATCH, AVIF_RESULT_INVALID_IMAGE_GRID, AVIF_RESULT_INVALID_EXIF_PAYLOAD:
            if isLimit(diagnostics) { return .limitExceeded(message) }
            if BoxLayout.endsEarly(data) { return .truncated(message + "; the file ends inside a box") }
            // Data referenced past the end of a file cut at a box boundary: libavif says "Truncated data?".
            if diagnostics.lowercased().contains("truncated") { return .truncated(message) }
            return .invalidData(message)
        default:
            return .internalError(message)
        }
    }

    /// The diagnostics libavif 0.11 writes when one of the decoder's limits refuses the file.
    private static func isLimit(_ diagnostics: String) -> Bool {
        diagnostics.contains("imageCountLimit") || diagnostics.contains("dimensions are too large")
            || diagnostics.contains("imageSizeLimit") || diagnostics.contains("imageDimensionLimit")
    }
}

/// The top-level ISO-BMFF box structure, read only to tell truncated files from corrupt ones.
enum BoxLayout {
    /// True when a top-level box header or body runs past the end of `data` (the file was cut short).
    static func endsEarly(_ data: UnsafeBufferPointer<UInt8>) -> Bool {
        var offset = 0
        while offset < data.count {
            let remaining = data.count - offset
            guard remaining >= 8 else { return true }
            let size32 = Int(AVIFSniffer.readUInt32(data, at: offset))
            let size: Int
            let header: Int
            switch size32 {
            case 0: return false  // the box runs to the end of the file, whatever its length
            case 1:
                guard remaining >= 16 else { return true }
                let high = UInt64(AVIFSniffer.readUInt32(data, at: offset + 8))
                let low = UInt64(AVIFSniffer.readUInt32(data, at: offset + 12))
                let large = high << 32 | low
                guard large <= UInt64(Int.max) else { return true }
                size = Int(large)
                header = 16
            default:
                size = size32
                header = 8
            }
            guard size >= header else { return false }  // a malformed size: corrupt, not truncated
            if size > remaining { return true }
            offset += size
        }
        return false
    }
}
