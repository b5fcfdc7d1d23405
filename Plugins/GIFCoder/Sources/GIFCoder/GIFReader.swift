import CGIF
import PluginAPI
import PluginKit

/// The bytes giflib reads from: a borrowed buffer and a cursor. giflib calls `memoryRead` with the
/// `GifFileType` whose `UserData` points here.
struct MemorySource {
    var base: UnsafePointer<UInt8>?
    var count: Int
    var offset: Int

    var isExhausted: Bool { offset >= count }
}

/// giflib's input callback over a `MemorySource`: copies what is left, at most `length` bytes.
/// A short count is how giflib learns that the data ended (it then reports D_GIF_ERR_READ_FAILED).
private let memoryRead: InputFunc = { gif, buffer, length in
    guard let gif, let buffer, length > 0, let user = gif.pointee.UserData else { return 0 }
    let source = user.assumingMemoryBound(to: MemorySource.self)
    let available = min(Int(length), source.pointee.count - source.pointee.offset)
    guard available > 0, let base = source.pointee.base else { return 0 }
    buffer.update(from: base + source.pointee.offset, count: available)
    source.pointee.offset += available
    return Int32(available)
}

/// One image descriptor as read from the stream: its rectangle, interlacing and the colour table it uses.
struct GIFFrameHeader {
    var left: Int
    var top: Int
    var width: Int
    var height: Int
    var interlaced: Bool
    /// 256 packed RGBA entries (R in the low byte); indices past the table are opaque black, as in Firefox.
    var palette: [UInt32]
    var hasLocalPalette: Bool
}

/// A streaming giflib reader over memory: record by record, one line at a time, never the whole file.
///
/// Uses `DGifGetImageHeader` rather than `DGifGetImageDesc`: the latter appends a `SavedImage` record (with a
/// copy of the local colour table) for every frame, so its memory grows with the length of the animation.
/// `DGifSlurp` is never used, because it holds every frame's pixels.
final class GIFReader {
    private let source: UnsafeMutablePointer<MemorySource>
    private let gif: UnsafeMutablePointer<GifFileType>
    let screenWidth: Int
    let screenHeight: Int
    let isGIF89: Bool
    let hasGlobalPalette: Bool
    private let globalPalette: [UInt32]?

    init(_ data: UnsafeBufferPointer<UInt8>) throws {
        guard data.count >= 6 else { throw PluginFailure.truncated("a GIF needs at least 6 bytes; the data has \(data.count)") }
        source = .allocate(capacity: 1)
        source.initialize(to: MemorySource(base: data.baseAddress, count: data.count, offset: 0))
        var error: Int32 = 0
        guard let opened = DGifOpen(source, memoryRead, &error) else {
            let exhausted = source.pointee.isExhausted
            source.deallocate()
            if error == D_GIF_ERR_NOT_GIF_FILE { throw PluginFailure.invalidData("not a GIF: the data does not start with GIF87a or GIF89a") }
            if exhausted || error == D_GIF_ERR_READ_FAILED {
                throw PluginFailure.truncated("the GIF ends inside its screen descriptor or global colour table (\(data.count) bytes)")
            }
            throw Self.failure(code: error, during: "reading the screen descriptor", truncated: false)
        }
        gif = opened
        screenWidth = Int(opened.pointee.SWidth)
        screenHeight = Int(opened.pointee.SHeight)
        isGIF89 = data.count >= 6 && data[4] == UInt8(ascii: "9")
        hasGlobalPalette = opened.pointee.SColorMap != nil
        globalPalette = opened.pointee.SColorMap.map { Self.palette(from: $0.pointee) }
    }

    deinit {
        DGifCloseFile(gif, nil)
        source.deallocate()
    }

    /// How many input bytes giflib has consumed.
    var offset: Int { source.pointee.offset }

    /// True once `nextRecord` met the end of the data where a record should start (no trailer).
    private(set) var endedWithoutTrailer = false

    enum Record {
        case image
        case graphicsControl(GraphicsControlBlock)
        /// NETSCAPE2.0 / ANIMEXTS1.0 loop extension: the stored repetition count (0 = forever).
        case loop(Int)
        case otherExtension
        /// The trailer, or the end of the data where a record should start (a missing trailer, which browsers accept).
        case end
    }

    /// Reads the next record. For `.image` the caller must then call `readFrameHeader` and consume the pixels.
    func nextRecord() throws -> Record {
        if source.pointee.isExhausted {
            endedWithoutTrailer = true
            return .end
        }
        var type = UNDEFINED_RECORD_TYPE
        try check(DGifGetRecordType(gif, &type), "reading a record type")
        switch type {
        case IMAGE_DESC_RECORD_TYPE: return .image
        case TERMINATE_RECORD_TYPE: return .end
        case EXTENSION_RECORD_TYPE: return try readExtension()
        default: throw PluginFailure.invalidData("unknown GIF record type at byte \(offset - 1)")
        }
    }

    /// Reads an extension and its sub-blocks; interprets the graphic control and the loop extensions.
    private func readExtension() throws -> Record {
        var code: Int32 = 0
        var block: UnsafeMutablePointer<GifByteType>?
        try check(DGifGetExtension(gif, &code, &block), "reading an extension")
        var result = Record.otherExtension
        if code == GRAPHICS_EXT_FUNC_CODE, let first = block {
            var gcb = GraphicsControlBlock()
            // A malformed GCB (length != 4) is ignored, as browsers do.
            if DGifExtensionToGCB(Int(first[0]), first + 1, &gcb) == GIF_OK { result = .graphicsControl(gcb) }
        }
        var isLoopApplication = false
        if code == APPLICATION_EXT_FUNC_CODE, let first = block, first[0] == 11 {
            let name = String(decoding: UnsafeBufferPointer(start: first + 1, count: 11), as: UTF8.self)
            isLoopApplication = name == "NETSCAPE2.0" || name == "ANIMEXTS1.0"
        }
        while block != nil {
            try check(DGifGetExtensionNext(gif, &block), "reading an extension block")
            if isLoopApplication, let sub = block, sub[0] >= 3, sub[1] == 1 {
                result = .loop(Int(sub[2]) | Int(sub[3]) << 8)
            }
        }
        return result
    }

    /// Reads an image descriptor and its local colour table (after `.image`).
    func readFrameHeader(index: Int) throws -> GIFFrameHeader {
        try check(DGifGetImageHeader(gif), "reading image descriptor \(index)")
        let image = gif.pointee.Image
        let palette: [UInt32]
        if let local = image.ColorMap {
            palette = Self.palette(from: local.pointee)
        } else if let globalPalette {
            palette = globalPalette
        } else {
            throw PluginFailure.invalidData("frame \(index) has no colour table (neither local nor global)")
        }
        return GIFFrameHeader(
            left: Int(image.Left), top: Int(image.Top), width: Int(image.Width), height: Int(image.Height),
            interlaced: image.Interlace, palette: palette, hasLocalPalette: image.ColorMap != nil)
    }

    /// Decodes the next `count` pixels (one row of the current frame) into `line`.
    func readLine(_ line: UnsafeMutablePointer<UInt8>, count: Int, frame: Int) throws {
        try check(DGifGetLine(gif, line, Int32(count)), "decoding frame \(frame)")
    }

    /// Skips the current frame's LZW data without decoding it (a fast scan, or an empty frame).
    func skipImageData(frame: Int) throws {
        var codeSize: Int32 = 0
        var block: UnsafeMutablePointer<GifByteType>?
        try check(DGifGetCode(gif, &codeSize, &block), "skipping frame \(frame)")
        while block != nil {
            try check(DGifGetCodeNext(gif, &block), "skipping frame \(frame)")
        }
    }

    private func check(_ result: Int32, _ action: String) throws {
        guard result != GIF_OK else { return }
        throw Self.failure(code: gif.pointee.Error, during: action, truncated: source.pointee.isExhausted)
    }

    /// Maps giflib's error codes onto statuses. Any failure once every byte has been read means the file ended early.
    private static func failure(code: Int32, during action: String, truncated: Bool) -> PluginFailure {
        let reason = GifErrorString(code).map { String(cString: $0) } ?? "giflib error \(code)"
        // giflib reports D_GIF_ERR_READ_FAILED for a short read (only possible at the end of the data) and also for an
        // LZW code size above 8; the cursor tells the two apart.
        if truncated { return .truncated("the GIF ends early while \(action)") }
        if code == D_GIF_ERR_READ_FAILED { return .invalidData("corrupt GIF while \(action) (bad LZW code size)") }
        if code == D_GIF_ERR_NOT_ENOUGH_MEM { return PluginFailure(IP_STATUS_NO_MEMORY, "giflib ran out of memory while \(action)") }
        return .invalidData("corrupt GIF while \(action): \(reason)")
    }

    private static func palette(from map: ColorMapObject) -> [UInt32] {
        var table = [UInt32](repeating: 0xFF00_0000, count: 256)
        let count = min(Int(map.ColorCount), 256)
        if let colors = map.Colors {
            for i in 0..<count {
                let c = colors[i]
                table[i] = UInt32(c.Red) | UInt32(c.Green) << 8 | UInt32(c.Blue) << 16 | 0xFF00_0000
            }
        }
        return table
    }
}
