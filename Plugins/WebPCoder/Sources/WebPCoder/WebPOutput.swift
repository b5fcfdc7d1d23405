import CWebP
import PluginAPI
import PluginKit

/// libwebp's writer callback: passes the bytes to the `WebPOutput` in `custom_ptr`; 0 stops the encoder.
let webpSinkWrite: WebPWriterFunction = { data, size, picture in
    guard let picture, let context = picture.pointee.custom_ptr else { return 0 }
    let output = Unmanaged<WebPOutput>.fromOpaque(context).takeUnretainedValue()
    return (try? output.write(UnsafeBufferPointer(start: data, count: data == nil ? 0 : size))) != nil ? 1 : 0
}

/// libwebp's progress hook: returning 0 aborts the encode, which is how cancellation reaches inside WebPEncode.
let webpProgress: WebPProgressHook = { _, picture in
    guard let picture, let context = picture.pointee.custom_ptr else { return 1 }
    let output = Unmanaged<WebPOutput>.fromOpaque(context).takeUnretainedValue()
    return Host.isCancelled(output.call) ? 0 : 1
}

/// The same for an encode into memory, whose `custom_ptr` is libwebp's memory writer: the output is in `user_data`.
let webpProgressInMemory: WebPProgressHook = { _, picture in
    guard let picture, let context = picture.pointee.user_data else { return 1 }
    let output = Unmanaged<WebPOutput>.fromOpaque(context).takeUnretainedValue()
    return Host.isCancelled(output.call) ? 0 : 1
}

/// The host's sink and call seen from libwebp's callbacks. Remembers the sink's refusal so the encoder reports
/// LIMIT_EXCEEDED / NO_MEMORY rather than a libwebp error.
final class WebPOutput {
    private let sink: UnsafePointer<ip_byte_sink>
    let call: OpaquePointer?
    private(set) var failure: PluginFailure?

    init(sink: UnsafePointer<ip_byte_sink>, call: OpaquePointer?) {
        self.sink = sink
        self.call = call
    }

    /// Unretained: the encoder keeps the output alive while libwebp may call back.
    var context: UnsafeMutableRawPointer { Unmanaged.passUnretained(self).toOpaque() }

    func write(_ bytes: UnsafeBufferPointer<UInt8>) throws {
        if let failure { throw failure }
        guard !bytes.isEmpty, let write = sink.pointee.write else { return }
        let status = write(sink.pointee.context, bytes.baseAddress, bytes.count)
        guard status == ip_status(IP_STATUS_OK) else {
            let failure = PluginFailure(status, status == ip_status(IP_STATUS_LIMIT_EXCEEDED)
                ? "the encoded WebP exceeds the output limit" : "the output sink refused the WebP's bytes (status \(status))")
            self.failure = failure
            throw failure
        }
    }
}

/// Adds chunks (ICCP, EXIF, XMP) to an encoded WebP — libwebpmux writes the VP8X header that announces them and
/// puts each where the container's order asks (ICCP before the image, EXIF and XMP after it) — and writes the
/// result to the output.
enum WebPChunks {
    /// The chunks a still or animation carries: the profile, then the metadata the host asked to embed.
    static func list(icc: [UInt8]?, metadata: MetadataBlocks?) -> [(fourCC: String, bytes: [UInt8])] {
        var chunks: [(fourCC: String, bytes: [UInt8])] = []
        if let icc { chunks.append(("ICCP", icc)) }
        if let exif = metadata?.exif { chunks.append(("EXIF", exif)) }
        if let xmp = metadata?.xmp { chunks.append(("XMP ", xmp)) }
        return chunks
    }

    static func write(_ encoded: inout WebPData, chunks: [(fourCC: String, bytes: [UInt8])], output: WebPOutput) throws {
        guard let mux = WebPMuxCreate(&encoded, 1) else { throw PluginFailure.internalError("libwebpmux could not read the encoded image") }
        defer { WebPMuxDelete(mux) }
        for chunk in chunks {
            let status = chunk.bytes.withUnsafeBufferPointer { bytes -> WebPMuxError in
                var data = WebPData(bytes: bytes.baseAddress, size: bytes.count)
                return WebPMuxSetChunk(mux, chunk.fourCC, &data, 1)
            }
            guard status == WEBP_MUX_OK else {
                throw PluginFailure.internalError("libwebpmux could not add the \(chunk.fourCC) chunk (error \(status.rawValue))")
            }
        }
        var assembled = WebPData()
        guard WebPMuxAssemble(mux, &assembled) == WEBP_MUX_OK else { throw PluginFailure.internalError("libwebpmux could not assemble the file") }
        defer { WebPDataClear(&assembled) }
        try output.write(UnsafeBufferPointer(start: assembled.bytes, count: assembled.size))
    }
}
