/// Formats that cannot store alpha get transparent pixels composited onto the background first
/// (`EncodeOptions.background`, white by default); the encoder then drops an alpha channel that is all opaque.
enum EncodeBackground {
    static let formatsWithoutAlpha: Set<String> = ["jpeg", "jpg"]
    static let defaultBackground = RGBAColor(red: 255, green: 255, blue: 255, alpha: 255)

    static func flattenIfNeeded(_ frame: Image, format: String, background: RGBAColor?) throws -> Image {
        guard frame.hasAlpha, formatsWithoutAlpha.contains(format) else { return frame }
        return try ImageTransformers.Flatten(background: background ?? defaultBackground).transform(frame)
    }
}
