import Foundation
import PipelineHost
import PluginAPI

/// For plugin tests that call a coder's slots directly (incremental decoding, encode failures): loads a private
/// copy of a plugin once per process and initialises it with a minimal host table whose allocation and
/// cancellation the test supplies; placement is the real host's (`HostServices.placeService`).
///
/// Three plugin test suites wrote this load-and-init sequence and host table each before it moved here.
public enum DirectPlugin {
    public typealias AllocatePixels = @convention(c) (
        UnsafePointer<ip_host>?, OpaquePointer?, UInt32, UInt32, ip_pixel_format, UnsafeMutablePointer<ip_image>?
    ) -> ip_status
    public typealias FreePixels = @convention(c) (UnsafePointer<ip_host>?, OpaquePointer?, UnsafeMutablePointer<UInt8>?) -> Void
    public typealias IsCancelled = @convention(c) (UnsafePointer<ip_host>?, OpaquePointer?) -> Int32

    /// A host table for the life of the process (plugins keep the pointer). No colour bytes (`alloc_bytes` is NULL
    /// in effect: it refuses), no log output, no host extensions.
    public static func host(allocate: AllocatePixels, free: FreePixels = { _, _, _ in },
                            isCancelled: IsCancelled = { _, _ in 0 }) -> UnsafePointer<ip_host> {
        let table = UnsafeMutablePointer<ip_host>.allocate(capacity: 1)
        table.initialize(to: ip_host(
            struct_size: UInt32(MemoryLayout<ip_host>.size), abi_major: UInt32(IP_ABI_MAJOR), abi_minor: UInt32(IP_ABI_MINOR),
            name: nil, version: nil, host_data: nil,
            get_extension: { _, _ in nil },
            alloc_pixels: allocate, free_pixels: free, is_cancelled: isCancelled,
            log: { _, _, _ in },
            alloc_bytes: { _, _, _ in nil },
            place: { _, request, placement in HostServices.placeService(request, placement) }))
        return UnsafePointer(table)
    }

    /// Loads a private copy of `library` (a file in plugins.d, copied by `PluginSandbox`), initialises it with
    /// `host` and returns its first coder.
    public static func coder(_ library: String, host: UnsafePointer<ip_host>) throws -> UnsafePointer<ip_coder> {
        let folder = try PluginSandbox.directory(with: [library])
        let path = folder + "/" + library
        guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE) else {
            throw TestSupportError("dlopen: \(String(cString: dlerror()))")
        }
        guard let symbol = dlsym(handle, IP_ENTRY_SYMBOL) else { throw TestSupportError("no entry symbol") }
        guard let entry = unsafeBitCast(symbol, to: ip_plugin_entry_function.self)() else {
            throw TestSupportError("entry returned NULL")
        }
        var minor: UInt32 = 0
        var text = [CChar](repeating: 0, count: 256)
        let status = text.withUnsafeMutableBufferPointer { buffer in
            entry.pointee.`init`?(host, path, UInt32(IP_ABI_MINOR), &minor, ip_message(buffer: buffer.baseAddress, capacity: buffer.count))
        }
        guard status == nil || status == IP_STATUS_OK else { throw TestSupportError("init failed: \(String(describing: status))") }
        guard let factory = entry.pointee.get_factory?(IP_CODER_FACTORY_ID)?.assumingMemoryBound(to: ip_coder_factory.self),
              factory.pointee.coder_count >= 1, let coder = factory.pointee.coders[0]
        else { throw TestSupportError("\(library) has no coder") }
        return coder
    }

    /// Runs `body` with C decode options whose `limits` point to `limits` (valid for the call).
    public static func withOptions<R>(_ options: ip_decode_options, limits: ip_limits? = nil,
                                      _ body: (UnsafeMutablePointer<ip_decode_options>) throws -> R) rethrows -> R {
        var options = options
        options.struct_size = UInt32(MemoryLayout<ip_decode_options>.size)
        guard var limits else { return try body(&options) }
        limits.struct_size = UInt32(MemoryLayout<ip_limits>.size)
        return try withUnsafePointer(to: &limits) { pointer in
            options.limits = pointer
            return try body(&options)
        }
    }
}
