#if canImport(Glibc)
import Glibc
#endif

/// Owns one malloc'd pixel buffer and frees it with the last image that references it.
///
/// `@unchecked Sendable`: the buffer is written only before the owning `Image` is published (by the plugin
/// during its call, or by processing code that created it) and is read-only afterwards.
final class PixelStorage: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<UInt8>
    let byteCount: Int

    /// Adopts a buffer allocated with malloc/calloc by the host services.
    init(adopting pointer: UnsafeMutablePointer<UInt8>, byteCount: Int) {
        self.pointer = pointer
        self.byteCount = byteCount
    }

    /// Allocates a zeroed buffer; nil when the allocation fails.
    convenience init?(byteCount: Int) {
        guard byteCount > 0, let raw = calloc(byteCount, 1) else { return nil }
        self.init(adopting: raw.assumingMemoryBound(to: UInt8.self), byteCount: byteCount)
    }

    deinit { free(pointer) }
}
