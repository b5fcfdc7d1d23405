import Foundation
import PipelineHost
import PluginAPI
import TestSupport

/// Calls the PNG coder's encode slot directly, with a byte sink and a cancellation check the test controls: the
/// host's `encode` API has neither a refusing sink nor cancellation. Loads a private copy of libPNGCoder.so (from
/// a sandbox folder, as PluginSandbox makes) once per process and gives it a minimal host table.
enum EncodeHarness {
    struct Outcome {
        var status: PluginStatus
        var message: String
        /// Bytes the sink accepted.
        var written: [UInt8]
        /// How often the encoder asked whether it was cancelled.
        var cancellationPolls: Int
    }

    /// What the sink and the cancellation check do.
    struct Behaviour {
        /// The sink refuses the write that would take the output past this many bytes.
        var acceptBytes = Int.max
        var refusal = ip_status(IP_STATUS_LIMIT_EXCEEDED)
        /// The cancellation check answers "cancelled" from this poll on (0 = the first).
        var cancelAtPoll = Int.max
    }

    /// The state one encode shares with the C callbacks through their context pointers.
    private final class CallState {
        let behaviour: Behaviour
        var written: [UInt8] = []
        var polls = 0
        init(_ behaviour: Behaviour) { self.behaviour = behaviour }
    }

    /// Encodes `rgba` (tightly packed, `pixelFormat` rows) with the coder's encode slot.
    static func encode(width: Int, height: Int, pixelFormat: PixelFormat = .rgba8, alphaMode: AlphaMode = .straight,
                       rgba: [UInt8], options: ip_encode_options = ip_encode_options(), _ behaviour: Behaviour) throws -> Outcome {
        let coder = try loadedCoder.get()
        guard let encode = coder.pointee.encode2 else { throw TestSupportError("the PNG coder has no encode2 slot") }
        let state = CallState(behaviour)
        let bytesPerPixel = pixelFormat == .rgba16 ? 8 : 4
        var options = options
        options.struct_size = UInt32(MemoryLayout<ip_encode_options>.size)
        var text = [CChar](repeating: 0, count: 512)
        let status = rgba.withUnsafeBufferPointer { pixels in
            var image = ip_image()
            image.struct_size = UInt32(MemoryLayout<ip_image>.size)
            image.width = UInt32(width)
            image.height = UInt32(height)
            image.stride = UInt32(width * bytesPerPixel)
            image.format = pixelFormat == .rgba16 ? IP_PIXEL_RGBA16 : IP_PIXEL_RGBA8
            image.alpha_mode = alphaMode == .premultiplied ? IP_ALPHA_PREMULTIPLIED : alphaMode == .none ? IP_ALPHA_NONE : IP_ALPHA_STRAIGHT
            image.pixels = UnsafeMutablePointer(mutating: pixels.baseAddress)
            let context = Unmanaged.passUnretained(state).toOpaque()
            var sink = ip_byte_sink(struct_size: UInt32(MemoryLayout<ip_byte_sink>.size), context: context, write: { context, data, size in
                let state = Unmanaged<CallState>.fromOpaque(context!).takeUnretainedValue()
                guard state.written.count + size <= state.behaviour.acceptBytes else { return state.behaviour.refusal }
                if let data, size > 0 { state.written.append(contentsOf: UnsafeBufferPointer(start: data, count: size)) }
                return ip_status(IP_STATUS_OK)
            })
            return withExtendedLifetime(state) {
                text.withUnsafeMutableBufferPointer { buffer in
                    // The call handle is the state itself: the host table's is_cancelled reads it back.
                    withUnsafePointer(to: &image) { image in
                        var frames: [UnsafePointer<ip_image>?] = [image]
                        return encode(coder, &frames, 1, &options, OpaquePointer(context), &sink,
                                      ip_message(buffer: buffer.baseAddress, capacity: buffer.count))
                    }
                }
            }
        }
        return Outcome(status: PluginStatus(rawValue: status) ?? .internalError,
                      message: text.withUnsafeBufferPointer { String(cString: $0.baseAddress!) },
                      written: state.written, cancellationPolls: state.polls)
    }

    /// The coder of the private copy, loaded on first use (a `static let` initialiser runs once, thread-safely).
    /// (`nonisolated(unsafe)`: written once, then it points to the plugin's static, immutable vtable.)
    nonisolated(unsafe) private static let loadedCoder = Swift.Result<UnsafePointer<ip_coder>, any Error> { try load() }

    private static func load() throws -> UnsafePointer<ip_coder> {
        try DirectPlugin.coder("libPNGCoder.so", host: host)
    }

    /// The host table: the plugin keeps it for the process, so it is never freed. Encoding allocates no pixels.
    /// (`nonisolated(unsafe)`: initialised once, then an immutable C table.)
    nonisolated(unsafe) private static let host = DirectPlugin.host(
        allocate: { _, _, _, _, _, _ in ip_status(IP_STATUS_LIMIT_EXCEEDED) },
        isCancelled: { _, call in
            guard let call else { return 0 }
            let state = Unmanaged<CallState>.fromOpaque(UnsafeRawPointer(call)).takeUnretainedValue()
            defer { state.polls += 1 }
            return state.polls >= state.behaviour.cancelAtPoll ? 1 : 0
        })
}
