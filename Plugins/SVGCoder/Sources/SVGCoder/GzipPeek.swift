import CRsvg

/// Inflates the start of a gzip stream (an `.svgz`) so that the text sniffer can look at it.
///
/// zlib is not a dependency of this package, but GIO (which librsvg already links, and which librsvg itself uses
/// to read `.svgz`) has a gzip decompressor. Bounded: at most `limit` output bytes from the bytes given, so a
/// decompression bomb costs nothing here. The inflater's own state (~40 KiB for zlib's window) is the only
/// allocation, which is why the gzip magic pattern exists at all: plain text never pays for it.
enum GzipPeek {
    static func sniff(_ compressed: UnsafeBufferPointer<UInt8>, limit: Int = 4096) -> SVGSniffer.Verdict {
        guard compressed.count >= 2, compressed[0] == 0x1F, compressed[1] == 0x8B else { return .notSVG }
        guard let converter = g_zlib_decompressor_new(G_ZLIB_COMPRESSOR_FORMAT_GZIP) else { return .notSVG }
        defer { g_object_unref(UnsafeMutableRawPointer(converter)) }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: limit) { output in
            var consumed = 0
            var produced = 0
            var failed = false
            while consumed < compressed.count, produced < limit {
                var read: gsize = 0
                var written: gsize = 0
                var error: UnsafeMutablePointer<GError>? = nil
                let result = g_converter_convert(
                    converter, compressed.baseAddress! + consumed, gsize(compressed.count - consumed),
                    output.baseAddress! + produced, gsize(limit - produced), G_CONVERTER_NO_FLAGS,
                    &read, &written, &error)
                consumed += Int(read)
                produced += Int(written)
                if let error {
                    // PARTIAL_INPUT only means "the bytes given end mid-stream": use what was inflated.
                    failed = !(error.pointee.domain == g_io_error_quark()
                        && error.pointee.code == G_IO_ERROR_PARTIAL_INPUT.rawValue)
                    g_error_free(error)
                    break
                }
                if result == G_CONVERTER_FINISHED || (read == 0 && written == 0) { break }
            }
            if failed && produced == 0 { return .notSVG }
            return SVGSniffer.classify(UnsafeBufferPointer(rebasing: output[0..<produced]))
        }
    }
}
