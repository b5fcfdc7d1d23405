import CJXL
import PluginKit

/// The container's Exif and XMP boxes read through libjxl's box events, so Brotli-compressed `brob` boxes (which
/// libjxl writes for a JPEG's metadata when it stores reconstruction data) are expanded as plain ones are. Only
/// boxes are subscribed to: no codestream is decoded. Each box is bounded by `MetadataBlocks.limit` (a larger one
/// is left out), so a hostile Brotli stream cannot inflate past it.
enum JXLMetadataBoxes {
    static func read(_ data: UnsafeBufferPointer<UInt8>) -> MetadataBlocks {
        guard let base = data.baseAddress, let decoder = JxlDecoderCreate(nil) else { return MetadataBlocks() }
        defer { JxlDecoderDestroy(decoder) }
        guard JxlDecoderSubscribeEvents(decoder, Int32(JXL_DEC_BOX.rawValue)) == JXL_DEC_SUCCESS,
              JxlDecoderSetDecompressBoxes(decoder, 1) == JXL_DEC_SUCCESS,
              JxlDecoderSetInput(decoder, base, data.count) == JXL_DEC_SUCCESS else { return MetadataBlocks() }
        JxlDecoderCloseInput(decoder)
        var exif: [UInt8]?, xmp: [UInt8]?
        var current: String?
        // Manually owned, so its address is stable while libjxl writes into it.
        var buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 0)
        defer { buffer.deallocate() }
        /// Ends the box being read: keeps it when it is one of the two (libjxl wrote capacity - remaining bytes).
        func finishBox() {
            guard let type = current else { return }
            let used = buffer.count - JxlDecoderReleaseBoxBuffer(decoder)
            let box = Array(buffer.prefix(max(0, used)))
            if type == "Exif", exif == nil { exif = box }
            if type == "xml ", xmp == nil { xmp = box }
            current = nil
        }
        /// Grows the buffer to `capacity`, keeping the first `kept` bytes, and hands libjxl the rest.
        func provide(capacity: Int, keeping kept: Int) -> Bool {
            let grown = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: capacity)
            if kept > 0 { _ = grown.initialize(from: buffer.prefix(kept)) }
            buffer.deallocate()
            buffer = grown
            return JxlDecoderSetBoxBuffer(decoder, buffer.baseAddress! + kept, capacity - kept) == JXL_DEC_SUCCESS
        }
        for _ in 0..<10_000 {
            switch JxlDecoderProcessInput(decoder) {
            case JXL_DEC_BOX:
                finishBox()
                var type: JxlBoxType = (0, 0, 0, 0)
                guard JxlDecoderGetBoxType(decoder, &type, 1) == JXL_DEC_SUCCESS else { return MetadataBlocks(exif: exif, xmp: xmp) }
                let name = String(decoding: [type.0, type.1, type.2, type.3].map { UInt8(bitPattern: $0) }, as: UTF8.self)
                guard (name == "Exif" && exif == nil) || (name == "xml " && xmp == nil) else { continue }
                current = name
                guard provide(capacity: 64 << 10, keeping: 0) else { return MetadataBlocks(exif: exif, xmp: xmp) }
            case JXL_DEC_BOX_NEED_MORE_OUTPUT:
                let filled = buffer.count - JxlDecoderReleaseBoxBuffer(decoder)
                // Past the limit the box is left out, and with it the rest of the file's boxes.
                guard current != nil, buffer.count * 2 <= MetadataBlocks.limit,
                      provide(capacity: buffer.count * 2, keeping: filled) else { return MetadataBlocks(exif: exif, xmp: xmp) }
            case JXL_DEC_SUCCESS:
                finishBox()
                return MetadataBlocks(exif: exif, xmp: xmp)
            default:
                // An error or the end of the input mid-box: what was complete is kept.
                return MetadataBlocks(exif: exif, xmp: xmp)
            }
        }
        return MetadataBlocks(exif: exif, xmp: xmp)
    }
}
