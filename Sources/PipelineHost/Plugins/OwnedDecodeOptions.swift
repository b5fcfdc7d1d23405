import PluginAPI
#if canImport(Glibc)
import Glibc
#endif

/// The C form of `DecodeOptions` together with everything it points to (limits, strings, named extensions),
/// owned here so that it can outlive one call: under the ABI's lifetime rule, a frames_open request stays valid
/// until frames_close.
final class OwnedDecodeOptions {
    let pointer: UnsafeMutablePointer<ip_decode_options>
    private let limits: UnsafeMutablePointer<ip_limits>
    private var tint: UnsafeMutablePointer<ip_decode_tint>?
    private var password: UnsafeMutablePointer<ip_decode_password>?
    private var strings: [UnsafeMutablePointer<CChar>] = []

    /// The extension IDs as static C strings (extension heads point to them).
    private static let tintID = UnsafeSendablePointer(pointer: permanentCString(IP_DECODE_EXTENSION_TINT))
    private static let passwordID = UnsafeSendablePointer(pointer: permanentCString(IP_DECODE_EXTENSION_PASSWORD))

    init(_ options: DecodeOptions) {
        var flags: UInt32 = 0
        if options.firstFrameOnly { flags |= UInt32(IP_DECODE_FIRST_FRAME_ONLY) }
        if options.allowUpscale { flags |= UInt32(IP_DECODE_ALLOW_UPSCALE) }
        if options.highBitDepth { flags |= UInt32(IP_DECODE_HIGH_BIT_DEPTH) }
        if options.transparentBackground { flags |= UInt32(IP_DECODE_TRANSPARENT_BACKGROUND) }
        if options.ignoreOrientation { flags |= UInt32(IP_DECODE_IGNORE_ORIENTATION) }
        limits = .allocate(capacity: 1)
        limits.initialize(to: options.limits.abi)
        pointer = .allocate(capacity: 1)
        var extensions: UnsafePointer<ip_decode_extension>?
        if let text = options.password {
            let value = UnsafeMutablePointer<ip_decode_password>.allocate(capacity: 1)
            value.initialize(to: ip_decode_password(
                head: ip_decode_extension(struct_size: UInt32(MemoryLayout<ip_decode_password>.size),
                                          id: Self.passwordID.pointer, next: extensions),
                password: keep(text)))
            password = value
            extensions = UnsafeRawPointer(value).assumingMemoryBound(to: ip_decode_extension.self)
        }
        // A template without a colour draws in opaque black (as a template image with no foreground set).
        if let color = options.tint ?? (options.template ? RGBAColor(red: 0, green: 0, blue: 0) : nil) {
            let value = UnsafeMutablePointer<ip_decode_tint>.allocate(capacity: 1)
            value.initialize(to: ip_decode_tint(
                head: ip_decode_extension(struct_size: UInt32(MemoryLayout<ip_decode_tint>.size),
                                          id: Self.tintID.pointer, next: extensions),
                rgba: color.packed, flags: options.template ? UInt32(IP_TINT_TEMPLATE) : 0))
            tint = value
            extensions = UnsafeRawPointer(value).assumingMemoryBound(to: ip_decode_extension.self)
        }
        pointer.initialize(to: ip_decode_options(
            struct_size: UInt32(MemoryLayout<ip_decode_options>.size),
            thumbnail_width: UInt32(clamping: options.thumbnailSize?.width ?? 0),
            thumbnail_height: UInt32(clamping: options.thumbnailSize?.height ?? 0),
            scale_mode: options.scaleMode.abi, flags: flags,
            page_index: UInt32(clamping: options.pageIndex), frame_index: UInt32(clamping: options.frameIndex),
            threads: UInt32(clamping: options.threads), limits: UnsafePointer(limits),
            source_url: options.sourceURL.flatMap { keep($0) }, extensions: extensions))
    }

    deinit {
        pointer.deallocate()
        limits.deallocate()
        tint?.deallocate()
        password?.deallocate()
        strings.forEach { free($0) }
    }

    private func keep(_ text: String) -> UnsafePointer<CChar>? {
        guard let copy = strdup(text) else { return nil }
        strings.append(copy)
        return UnsafePointer(copy)
    }
}
