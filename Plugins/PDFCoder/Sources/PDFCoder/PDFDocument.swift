import CPoppler
import PluginKit

/// A poppler document opened over the request's borrowed bytes, released when the value goes away.
///
/// The bytes are wrapped with `g_bytes_new_static`, so poppler reads the host's buffer without copying it;
/// that is only safe because a document never outlives the plugin call that received the bytes.
final class PDFDocument {
    private let handle: OpaquePointer

    /// Opens `data`, using `password` (user or owner) only when the document cannot be opened without one.
    /// Throws UNSUPPORTED for an encrypted document without the right password, TRUNCATED when poppler fails
    /// and the bytes have no `%%EOF` near their end, INVALID_DATA for other malformed input.
    ///
    /// Rationale for the two paths: in poppler 22.12, `poppler_document_new_from_bytes` (and `_from_data`)
    /// crash with a NULL dereference when a non-NULL password fails (the retry with the UTF-8 password copies
    /// the stream and `dynamic_cast`s the copy to the wrong class). Opening without a password never takes
    /// that path, so the no-copy bytes path is tried first; only an encrypted document that needs the
    /// caller's password goes through `poppler_document_new_from_stream` over a `GMemoryInputStream` of the
    /// same static GBytes, which is still no copy of the input and whose retry path is sound.
    init(data: UnsafeBufferPointer<UInt8>, password: UnsafePointer<CChar>?) throws {
        guard let base = data.baseAddress, !data.isEmpty else { throw PluginFailure.invalidData("empty input") }
        let bytes = g_bytes_new_static(base, gsize(data.count))
        // Documents and streams take their own references to the GBytes.
        defer { g_bytes_unref(bytes) }
        var error: UnsafeMutablePointer<GError>?
        if let document = poppler_document_new_from_bytes(bytes, nil, &error) {
            handle = document
            return
        }
        guard let password, PDFDocument.isEncryptionError(error) else {
            throw PDFDocument.failure(for: error, data: data, passwordGiven: false)
        }
        g_error_free(error)
        error = nil
        let stream = g_memory_input_stream_new_from_bytes(bytes)
        defer { g_object_unref(stream) }
        guard let document = poppler_document_new_from_stream(stream, goffset(data.count), password, nil, &error)
        else { throw PDFDocument.failure(for: error, data: data, passwordGiven: true) }
        handle = document
    }

    deinit { g_object_unref(UnsafeMutableRawPointer(handle)) }

    /// Opens the request's bytes with its password (the kit has checked their size) and insists on at least one
    /// page: poppler "repairs" some broken files (a truncated page tree, an absurd /Count) into documents of
    /// zero pages, which are errors here rather than a NOT_FOUND for page 1.
    static func open(_ request: DecodeRequestView) throws -> PDFDocument {
        let document = try PDFDocument(data: request.data, password: request.options.password)
        guard document.pageCount > 0 else {
            if !hasEndMarker(request.data) {
                throw PluginFailure.truncated("PDF ends early (no %%EOF marker) and no page could be read")
            }
            throw PluginFailure.invalidData("malformed PDF: no page could be read")
        }
        return document
    }

    var pageCount: Int { Int(poppler_document_get_n_pages(handle)) }

    /// "1.7", or nil when poppler cannot tell.
    var pdfVersion: String? {
        guard let text = poppler_document_get_pdf_version_string(handle) else { return nil }
        defer { g_free(text) }
        return String(cString: text)
    }

    /// The page at a 0-based index. Throws NOT_FOUND (naming the page count) when out of range and
    /// INVALID_DATA when poppler lists the page but cannot load it (broken page tree).
    func page(at index: Int) throws -> PDFPage {
        let count = pageCount
        guard index >= 0, index < count else {
            throw PluginFailure.notFound(
                "page \(index) does not exist: the document has \(count) page\(count == 1 ? "" : "s"), "
                    + "numbered from 0 (0...\(max(0, count - 1)))")
        }
        guard let page = poppler_document_get_page(handle, Int32(index)) else {
            throw PluginFailure.invalidData("page \(index + 1) of \(count) cannot be loaded (broken page tree)")
        }
        return PDFPage(handle: page, index: index)
    }

    /// Maps poppler's GError (and a look at the bytes) onto a plugin status, then frees the error.
    private static func failure(
        for error: UnsafeMutablePointer<GError>?, data: UnsafeBufferPointer<UInt8>, passwordGiven: Bool
    ) -> PluginFailure {
        defer { if let error { g_error_free(error) } }
        let reason = error.flatMap { $0.pointee.message.map { String(cString: $0) } } ?? "unknown poppler error"
        if isEncryptionError(error) {
            return passwordGiven
                ? .unsupported("encrypted PDF: the password given is incorrect")
                : .unsupported("encrypted PDF: password required")
        }
        if !hasEndMarker(data) { return .truncated("PDF ends early (no %%EOF marker): \(reason)") }
        return .invalidData("malformed PDF: \(reason)")
    }

    private static func isEncryptionError(_ error: UnsafeMutablePointer<GError>?) -> Bool {
        guard let error else { return false }
        return error.pointee.domain == poppler_error_quark()
            && error.pointee.code == Int32(POPPLER_ERROR_ENCRYPTED.rawValue)
    }

    /// True when `%%EOF` occurs in the last 1024 bytes, where the spec puts it (tolerating trailing junk).
    static func hasEndMarker(_ data: UnsafeBufferPointer<UInt8>) -> Bool {
        let marker = Array("%%EOF".utf8)
        guard data.count >= marker.count else { return false }
        let start = max(0, data.count - 1024)
        for offset in stride(from: data.count - marker.count, through: start, by: -1)
        where data[offset] == marker[0] && Array(data[offset..<offset + marker.count]) == marker {
            return true
        }
        return false
    }
}

/// One page of an open `PDFDocument`; must not outlive it.
final class PDFPage {
    let handle: OpaquePointer
    let index: Int

    init(handle: OpaquePointer, index: Int) {
        self.handle = handle
        self.index = index
    }

    deinit { g_object_unref(UnsafeMutableRawPointer(handle)) }

    /// Display size in points: the crop box with /Rotate applied (poppler swaps the sides for 90 and 270).
    var displaySize: (width: Double, height: Double) {
        var width = 0.0, height = 0.0
        poppler_page_get_size(handle, &width, &height)
        return (width, height)
    }

    /// The crop box in default user space, before /Rotate.
    var cropBox: PopplerRectangle {
        var box = PopplerRectangle()
        poppler_page_get_crop_box(handle, &box)
        return box
    }

    /// True when /Rotate is 90 or 270: the display size is the crop box with its sides swapped.
    /// (poppler-glib has no getter for /Rotate, so 0 and 180 cannot be told apart here.)
    var isQuarterTurned: Bool {
        let box = cropBox, size = displaySize
        let boxWidth = abs(box.x2 - box.x1), boxHeight = abs(box.y2 - box.y1)
        return abs(boxWidth - boxHeight) > 0.001 && abs(size.width - boxHeight) < 0.001
            && abs(size.height - boxWidth) < 0.001
    }

    /// Throws INVALID_DATA unless the display size is a finite, positive area.
    func requireDrawableSize() throws -> (width: Double, height: Double) {
        let size = displaySize
        guard size.width.isFinite, size.height.isFinite, size.width > 0, size.height > 0 else {
            throw PluginFailure.invalidData(
                "page \(index + 1) has an empty page box (\(size.width)x\(size.height) pt): nothing to render")
        }
        return size
    }
}
