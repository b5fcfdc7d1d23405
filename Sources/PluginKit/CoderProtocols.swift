import PluginAPI

// What a Swift coder implements, one protocol per group of slots of `ip_coder`. `CoderTable.make` turns the
// conformances into the C table: the plugin never writes a vtable, and the capabilities that say which slots are
// filled (CAN_DECODE, CAN_ENCODE, ANIMATED, INCREMENTAL) follow from what it passes, so they cannot disagree.
//
// Each function receives the slot's own arguments (minus the message buffer) and throws `PluginFailure` for a
// status other than OK; the kit writes the message and returns the status.

/// `sniff`: confirms a candidate from its first bytes (OK, UNSUPPORTED or NEED_MORE). Must not throw or allocate.
public protocol ImageSniffing {
    static func sniff(_ data: UnsafePointer<UInt8>?, _ size: Int) -> ip_status
}

/// `probe` and `decode`. The kit checks the request's input size against `max_input_bytes` before either runs.
public protocol PluginDecoding {
    static func probe(_ request: UnsafePointer<ip_decode_request>?, into info: UnsafeMutablePointer<ip_image_info>?) throws
    static func decode(_ request: UnsafePointer<ip_decode_request>?, into image: UnsafeMutablePointer<ip_image>?) throws
}

/// `frames_open` / `frames_next` / `frames_close`: one object per iteration, which the kit hands to the host as
/// the opaque iterator and releases at frames_close. The request it was opened with stays valid until then.
public protocol FrameIterating: AnyObject {
    static func open(_ request: UnsafePointer<ip_decode_request>) throws -> Self
    /// OK with the next composited frame in `frame`, or END after the last (returned or thrown).
    func next(call: OpaquePointer?, into frame: UnsafeMutablePointer<ip_image>) throws -> ip_status
}

/// `incremental_open` / `incremental_update` / `incremental_close`: one object per session (see
/// `IncrementalOptions` for keeping the options, which are borrowed for `open` only).
public protocol IncrementalDecoding: AnyObject {
    static func open(_ options: UnsafePointer<ip_decode_options>?) throws -> Self
    /// OK with a preview (or, when final, the finished image) in `image`, or NEED_MORE (returned or thrown).
    func update(_ data: UnsafeBufferPointer<UInt8>, isFinal: Bool, call: OpaquePointer?,
                into image: UnsafeMutablePointer<ip_image>) throws -> ip_status
}

/// `encode`. `EncodeInput.check` reads the frames and the sink the same way for every encoder. `settingKeys`: the
/// ABI 1.1 settings the encoder reads (`EncodeInput.settings`); the kit refuses any other key before `encode` runs.
public protocol PluginEncoding {
    static var settingKeys: [String] { get }
    static func encode(frames: UnsafePointer<UnsafePointer<ip_image>?>?, count: UInt32,
                       options: UnsafePointer<ip_encode_options>?, call: OpaquePointer?,
                       sink: UnsafePointer<ip_byte_sink>?) throws
}

/// `transcode` (ABI 1.1): one file converted to another format without pixels, for the pairs the descriptor lists
/// in `transcodes`. Throw `PluginFailure.unsupported` when this file cannot be converted that way (the host then
/// decodes and encodes instead); write the output through `sink` (`EncodeOutput`).
public protocol PluginTranscoding {
    static func transcode(_ request: UnsafePointer<ip_transcode_request>, sink: UnsafePointer<ip_byte_sink>) throws
}

extension PluginEncoding {
    public static var settingKeys: [String] { [] }
}
