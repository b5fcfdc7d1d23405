#if canImport(Glibc)
import Glibc
#endif

/// Owns one pixel buffer and releases it with the last image that references it: a malloc'd buffer (freed), or a
/// mapped shared-memory region that an isolated worker filled (unmapped).
///
/// `@unchecked Sendable`: the buffer is written only before the owning `Image` is published (by the plugin
/// during its call, or by processing code that created it) and is read-only afterwards.
final class PixelStorage: @unchecked Sendable {
    let pointer: UnsafeMutablePointer<UInt8>
    let byteCount: Int
    /// True for a mapping (released with munmap), false for a malloc'd buffer (released with free).
    let isMapped: Bool

    /// Adopts a buffer allocated with malloc/calloc by the host services.
    init(adopting pointer: UnsafeMutablePointer<UInt8>, byteCount: Int) {
        self.pointer = pointer
        self.byteCount = byteCount
        isMapped = false
    }

    /// Adopts an mmap'd region of exactly `byteCount` bytes (a worker's sealed output memfd).
    init(mapping pointer: UnsafeMutableRawPointer, byteCount: Int) {
        self.pointer = pointer.assumingMemoryBound(to: UInt8.self)
        self.byteCount = byteCount
        isMapped = true
    }

    /// Allocates a zeroed buffer; nil when the allocation fails.
    convenience init?(byteCount: Int) {
        guard byteCount > 0, let raw = calloc(byteCount, 1) else { return nil }
        self.init(adopting: raw.assumingMemoryBound(to: UInt8.self), byteCount: byteCount)
    }

    deinit {
        if isMapped { munmap(pointer, byteCount) } else { free(pointer) }
    }
}
