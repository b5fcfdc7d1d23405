import CRsvg
import PluginKit

/// One parsed SVG document: an `RsvgHandle` owned for the duration of a single probe or decode call.
///
/// A class only so that `deinit` releases the handle on every path, errors included.
final class SVGDocument {
    let handle: UnsafeMutablePointer<RsvgHandle>

    /// CSS pixels per inch; rsvg-convert and browsers use 96 (librsvg's own handle default is 90).
    static let dpi = 96.0

    /// Parses `data` (plain or gzip-compressed SVG) without copying it.
    ///
    /// Safety rule for external resources (images, CSS `@import`, XInclude, `<use>` of other files): only when
    /// `sourceURL` is a local `file:` URL does the handle get that file as its base, and librsvg then allows
    /// files in the SVG's own folder and below, nothing else. Any other URL, or none, leaves the handle without
    /// a base, and librsvg then loads no external file at all (`data:` URLs still work). `http(s)` is never
    /// fetched by librsvg. RSVG_HANDLE_FLAGS_NONE keeps libxml2's size limits (never UNLIMITED).
    init(data: UnsafeBufferPointer<UInt8>, sourceURL: String?) throws {
        guard let stream = g_memory_input_stream_new_from_data(
            UnsafeRawPointer(data.baseAddress), gssize(data.count), nil)
        else { throw PluginFailure.internalError("cannot create a memory stream") }
        defer { g_object_unref(UnsafeMutableRawPointer(stream)) }
        let base = SVGDocument.baseFile(for: sourceURL)
        defer { if let base { g_object_unref(UnsafeMutableRawPointer(base)) } }

        var error: UnsafeMutablePointer<GError>? = nil
        let handle = rsvg_handle_new_from_stream_sync(stream, base, RSVG_HANDLE_FLAGS_NONE, nil, &error)
        guard let handle else {
            let message = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
            if let error { g_error_free(error) }
            throw PluginFailure.invalidData("not a valid SVG document: \(message)")
        }
        self.handle = handle
        rsvg_handle_set_dpi(handle, SVGDocument.dpi)
    }

    deinit { g_object_unref(UnsafeMutableRawPointer(handle)) }

    /// The base for relative references, or nil: only `file:///abs/path` (or `file://localhost/abs/path`).
    static func baseFile(for sourceURL: String?) -> OpaquePointer? {
        guard let sourceURL else { return nil }
        let lower = sourceURL.lowercased()
        guard lower.hasPrefix("file:///") || lower.hasPrefix("file://localhost/") else { return nil }
        guard let file = g_file_new_for_uri(sourceURL) else { return nil }
        // GIO maps a malformed or non-local file URI to a file without a local path: treat it as "no base".
        guard let path = g_file_get_path(file) else {
            g_object_unref(UnsafeMutableRawPointer(file))
            return nil
        }
        g_free(path)
        return file
    }

    /// Sets the CSS `color` of the root element, which `currentColor` resolves to. As a user stylesheet it
    /// overrides a `color` presentation attribute on the root too (checked against librsvg 2.54).
    func setCurrentColor(red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8) throws {
        let css = ":root { color: rgba(\(red), \(green), \(blue), \(Double(alpha) / 255.0)); }"
        var error: UnsafeMutablePointer<GError>? = nil
        let bytes = Array(css.utf8)
        let ok = bytes.withUnsafeBufferPointer { rsvg_handle_set_stylesheet(handle, $0.baseAddress, gsize($0.count), &error) }
        if ok == 0 {
            let message = error.map { String(cString: $0.pointee.message) } ?? "unknown error"
            if let error { g_error_free(error) }
            throw PluginFailure.internalError("cannot set the tint stylesheet: \(message)")
        }
    }
}
