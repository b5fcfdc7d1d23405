/// The media type an output of a format is served or stored with (browsers and CDNs go by it, not by a name's
/// suffix): the service's Content-Type and an object output's.
enum MediaType {
    static func name(for format: String) -> String {
        switch format.lowercased() {
        case "jpg", "jpeg": "image/jpeg"
        case "png": "image/png"
        case "webp": "image/webp"
        case "avif": "image/avif"
        case "heic", "heif": "image/heic"
        case "gif": "image/gif"
        case "jxl": "image/jxl"
        case "tif", "tiff": "image/tiff"
        default: "application/octet-stream"
        }
    }
}
