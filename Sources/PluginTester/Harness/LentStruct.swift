import VersionedStructs

/// An output struct as a host of ABI 1.0 lends it to a plugin (`ip_image_info` for probe, `ip_image` for decode):
/// `struct_size` is the struct's 1.0 size, and 64 canary bytes follow, which the plugin must leave alone — a plugin
/// built for a later minor writes only as far as the host's `struct_size` says (the ABI's rule for structs it
/// fills), never as far as its own `sizeof`.
struct LentStruct<T> {
    private let raw: UnsafeMutableRawPointer
    private let floor: Int
    private static var canaryBytes: Int { 64 }
    private static var canary: UInt8 { 0xEE }

    init() {
        floor = VersionedStruct.floor(of: T.self)
        let capacity = max(floor, MemoryLayout<T>.size) + Self.canaryBytes
        raw = .allocate(byteCount: capacity, alignment: max(16, MemoryLayout<T>.alignment))
        raw.initializeMemory(as: UInt8.self, repeating: 0, count: floor)
        (raw + floor).initializeMemory(as: UInt8.self, repeating: Self.canary, count: capacity - floor)
        raw.storeBytes(of: UInt32(floor), as: UInt32.self)
    }

    var pointer: UnsafeMutablePointer<T> { raw.assumingMemoryBound(to: T.self) }

    /// A problem when the plugin wrote past the `struct_size` it was given.
    func overrun(_ name: String) -> String? {
        let tail = UnsafeRawBufferPointer(start: raw + floor, count: Self.canaryBytes)
        guard let first = tail.firstIndex(where: { $0 != Self.canary }) else { return nil }
        return "wrote past the end of the \(name) the host lent (struct_size \(floor), a write at byte \(floor + first)): "
            + "write only as far as the host's struct_size"
    }

    /// What the plugin wrote, within the host's struct_size (fields beyond it read as zero).
    func value() -> T {
        let copy = UnsafeMutableRawPointer.allocate(byteCount: MemoryLayout<T>.size, alignment: MemoryLayout<T>.alignment)
        defer { copy.deallocate() }
        copy.initializeMemory(as: UInt8.self, repeating: 0, count: MemoryLayout<T>.size)
        copy.copyMemory(from: raw, byteCount: min(floor, MemoryLayout<T>.size))
        return copy.load(as: T.self)
    }

    func release() { raw.deallocate() }
}
