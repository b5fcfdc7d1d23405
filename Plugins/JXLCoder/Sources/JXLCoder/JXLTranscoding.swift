import CJXL
import PluginAPI
import PluginKit

/// JPEG XL's lossless JPEG recompression, through the ABI 1.1 transcode slot (the pairs "jpeg>jxl" and "jxl>jpeg").
///
/// - jpeg → jxl: libjxl takes the JPEG's DCT coefficients as they are (`JxlEncoderAddJPEGFrame`) and stores, in a
///   `jbrd` box, what it needs to rebuild the exact file (Huffman tables, marker order, padding); Exif, XMP and JUMBF
///   go to their own boxes. Nothing is re-quantised, so nothing is lost; the file is typically about 20 % smaller.
///   A JPEG libjxl cannot represent so (arithmetic coding, some 12-bit or odd-sampled files) is UNSUPPORTED, with
///   libjxl's reason.
/// - jxl → jpeg: a file with reconstruction data gives back the original JPEG bytes (`JxlDecoderSetJPEGBuffer`),
///   bit for bit, without decoding pixels; a file made from pixels has none and is UNSUPPORTED (the host then
///   decodes and encodes).
enum JXLTranscoding {
    static let fromJPEG = "jpeg>jxl"
    static let toJPEG = "jxl>jpeg"

    /// The largest JPEG a reconstruction may produce: the host's input limit's scale, and never more than 1 GiB.
    static let maxReconstructedBytes = 1 << 30

    static func transcode(_ request: UnsafePointer<ip_transcode_request>, sink: UnsafePointer<ip_byte_sink>) throws {
        let view = try ABIStruct.read(request, named: "ip_transcode_request")
        guard let source = view.source_format.map({ String(cString: $0) }), let target = view.target_format.map({ String(cString: $0) }) else {
            throw PluginFailure.internalError("the transcode request names no formats")
        }
        let data = UnsafeBufferPointer(start: view.data, count: view.data == nil ? 0 : view.size)
        let options = try EncodeInput.options(view.options)
        switch "\(source)>\(target)" {
        case fromJPEG: try recompress(data, options: options, call: view.call, sink: sink)
        case toJPEG: try reconstruct(data, call: view.call, sink: sink)
        default: throw PluginFailure.unsupported("the JPEG XL coder converts jpeg to jxl and jxl to jpeg, not \(source) to \(target)")
        }
    }

    // MARK: JPEG → JPEG XL

    private static func recompress(_ jpeg: UnsafeBufferPointer<UInt8>, options: ip_encode_options, call: OpaquePointer?,
                                   sink: UnsafePointer<ip_byte_sink>) throws {
        guard jpeg.count >= 4, jpeg[0] == 0xFF, jpeg[1] == 0xD8, jpeg[2] == 0xFF else {
            throw PluginFailure.invalidData("not a JPEG file (no FF D8 FF start of image)")
        }
        guard let encoder = JxlEncoderCreate(nil) else { throw PluginFailure(IP_STATUS_NO_MEMORY, "libjxl could not create an encoder") }
        defer { JxlEncoderDestroy(encoder) }
        let runner = JxlThreadParallelRunnerCreate(nil, JxlThreadParallelRunnerDefaultNumWorkerThreads())
        defer { if let runner { JxlThreadParallelRunnerDestroy(runner) } }
        func check(_ status: JxlEncoderStatus, _ what: String) throws {
            guard status == JXL_ENC_SUCCESS else { throw failure(JxlEncoderGetError(encoder), what) }
        }
        if let runner { try check(JxlEncoderSetParallelRunner(encoder, JxlThreadParallelRunner, runner), "its thread runner") }
        // The reconstruction data lives in a jbrd box, so the file needs the container.
        try check(JxlEncoderUseContainer(encoder, 1), "the container")
        try check(JxlEncoderStoreJPEGMetadata(encoder, 1), "keeping the JPEG reconstruction data")
        guard let frameSettings = JxlEncoderFrameSettingsCreate(encoder, nil) else {
            throw PluginFailure(IP_STATUS_NO_MEMORY, "libjxl could not create frame settings")
        }
        let effort = options.speed == 0 ? 7 : max(1, min(9, 10 - Int(options.speed)))
        try check(JxlEncoderFrameSettingsSetOption(frameSettings, JXL_ENC_FRAME_SETTING_EFFORT, Int64(effort)), "the effort")
        try Host.checkCancellation(call)
        try check(JxlEncoderAddJPEGFrame(frameSettings, jpeg.baseAddress, jpeg.count), "this JPEG")
        JxlEncoderCloseInput(encoder)
        try JXLEncoding.drain(encoder, sink: sink, call: call)
    }

    /// libjxl's reason as a status: what it cannot represent is UNSUPPORTED (the caller may take the pixel path),
    /// a broken JPEG is INVALID_DATA.
    private static func failure(_ error: JxlEncoderError, _ what: String) -> PluginFailure {
        switch error {
        case JXL_ENC_ERR_JBRD:
            return .unsupported("libjxl cannot keep \(what)'s reconstruction data (JPEG XL cannot rebuild this file exactly)")
        case JXL_ENC_ERR_NOT_SUPPORTED:
            return .unsupported("libjxl cannot recompress \(what) losslessly (an unsupported JPEG feature, such as arithmetic coding)")
        case JXL_ENC_ERR_BAD_INPUT:
            return .invalidData("libjxl could not read \(what): the JPEG is corrupt")
        case JXL_ENC_ERR_OOM:
            return PluginFailure(IP_STATUS_NO_MEMORY, "libjxl ran out of memory on \(what)")
        default:
            return .unsupported("libjxl refused \(what) (error \(error.rawValue))")
        }
    }

    // MARK: JPEG XL → the original JPEG

    private static func reconstruct(_ data: UnsafeBufferPointer<UInt8>, call: OpaquePointer?, sink: UnsafePointer<ip_byte_sink>) throws {
        guard !data.isEmpty else { throw PluginFailure.invalidData("empty input: not a JPEG XL file") }
        guard let decoder = JxlDecoderCreate(nil) else { throw PluginFailure(IP_STATUS_NO_MEMORY, "libjxl could not create a decoder") }
        defer { JxlDecoderDestroy(decoder) }
        let events = Int32(JXL_DEC_JPEG_RECONSTRUCTION.rawValue | JXL_DEC_FULL_IMAGE.rawValue)
        guard JxlDecoderSubscribeEvents(decoder, events) == JXL_DEC_SUCCESS,
              JxlDecoderSetInput(decoder, data.baseAddress, data.count) == JXL_DEC_SUCCESS else {
            throw PluginFailure.internalError("libjxl refused the reconstruction set-up")
        }
        JxlDecoderCloseInput(decoder)
        // The reconstructed file grows in a buffer libjxl writes into; it never exceeds maxReconstructedBytes.
        var output = JPEGOutput(capacity: max(64 << 10, min(data.count * 2, 64 << 20)))
        defer { output.free() }
        var reconstructing = false
        while true {
            try Host.checkCancellation(call)
            switch JxlDecoderProcessInput(decoder) {
            case JXL_DEC_JPEG_RECONSTRUCTION:
                reconstructing = true
                guard JxlDecoderSetJPEGBuffer(decoder, output.free_start, output.free_count) == JXL_DEC_SUCCESS else {
                    throw PluginFailure.internalError("libjxl refused the JPEG buffer")
                }
            case JXL_DEC_JPEG_NEED_MORE_OUTPUT:
                output.used = output.capacity - JxlDecoderReleaseJPEGBuffer(decoder)
                try output.grow(limit: maxReconstructedBytes)
                guard JxlDecoderSetJPEGBuffer(decoder, output.free_start, output.free_count) == JXL_DEC_SUCCESS else {
                    throw PluginFailure.internalError("libjxl refused the JPEG buffer")
                }
            case JXL_DEC_NEED_IMAGE_OUT_BUFFER, JXL_DEC_FULL_IMAGE where !reconstructing:
                // Pixels are all this file holds: it was not made from a JPEG (or its jbrd box was dropped).
                throw PluginFailure.unsupported("this JPEG XL file holds no JPEG reconstruction data (it was not made from a JPEG)")
            case JXL_DEC_FULL_IMAGE:
                output.used = output.capacity - JxlDecoderReleaseJPEGBuffer(decoder)
                let written = sink.pointee.write(sink.pointee.context, output.start, output.used)
                guard written == ip_status(IP_STATUS_OK) else { throw PluginFailure(written, "the host's sink refused the output") }
                return
            case JXL_DEC_SUCCESS:
                throw PluginFailure.unsupported("this JPEG XL file holds no JPEG reconstruction data")
            case JXL_DEC_NEED_MORE_INPUT:
                throw PluginFailure.truncated("the JPEG XL file ends before its image does")
            default:
                throw PluginFailure.invalidData("libjxl could not reconstruct the JPEG: the JPEG XL file is corrupt")
            }
        }
    }

    /// The buffer a reconstruction is written into: allocated memory, since libjxl keeps the pointer between calls.
    private struct JPEGOutput {
        private(set) var start: UnsafeMutablePointer<UInt8>
        private(set) var capacity: Int
        var used = 0

        init(capacity: Int) {
            self.capacity = capacity
            start = .allocate(capacity: capacity)
        }

        var free_start: UnsafeMutablePointer<UInt8> { start + used }
        var free_count: Int { capacity - used }

        /// Doubles the buffer, keeping what libjxl has written.
        mutating func grow(limit: Int) throws {
            guard capacity < limit else {
                throw PluginFailure.limitExceeded("the reconstructed JPEG would be larger than \(limit >> 20) MiB")
            }
            let larger = min(limit, capacity * 2)
            let next = UnsafeMutablePointer<UInt8>.allocate(capacity: larger)
            next.update(from: start, count: used)
            start.deallocate()
            start = next
            capacity = larger
        }

        func free() { start.deallocate() }
    }
}
