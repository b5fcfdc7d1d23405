import PluginAPI

/// Copies of versioned ABI structs across the boundary, never past the size the other side declared.
///
/// Every ABI struct starts with a uint32 `struct_size`. A host built for an older minor has shorter structs, a
/// newer one longer ones; both sides use what they know and default the rest. These were written once per plugin
/// before they moved here, so every plugin reads and writes the boundary the same way.
public enum ABIStruct {
    /// Copies `value` into the host-provided `target`, at most the host's `struct_size` bytes, and keeps the
    /// host's `struct_size`. A host that left it 0 gets the whole struct (with `value`'s own struct_size).
    public static func write<T>(_ value: T, to target: UnsafeMutablePointer<T>) {
        let raw = UnsafeMutableRawPointer(target)
        let declared = Int(raw.load(as: UInt32.self))
        let count = declared == 0 ? MemoryLayout<T>.size : min(declared, MemoryLayout<T>.size)
        withUnsafeBytes(of: value) { raw.copyMemory(from: $0.baseAddress!, byteCount: count) }
        if declared != 0 { raw.storeBytes(of: UInt32(declared), as: UInt32.self) }
    }

    /// `defaults` overwritten with the bytes the host's struct holds (its `struct_size`, at most ours).
    ///
    /// Lenient, for option structs whose zero defaults are safe: a size of 0 copies nothing, a larger size than
    /// ours copies only what we know. The copied `struct_size` is the host's.
    public static func read<T>(_ pointer: UnsafePointer<T>, defaults: T) -> T {
        let declared = Int(UnsafeRawPointer(pointer).load(as: UInt32.self))
        var copy = defaults
        let count = min(declared, MemoryLayout<T>.size)
        withUnsafeMutableBytes(of: &copy) { $0.copyMemory(from: UnsafeRawBufferPointer(start: pointer, count: count)) }
        return copy
    }

    /// A copy of the host's struct: as many bytes as its `struct_size` says (at most our own size), zero after.
    ///
    /// Strict, for tables the plugin cannot work without (load requests, callback tables): a size smaller than
    /// the struct's first field or larger than IP_MAX_STRUCT_SIZE means a corrupt table and throws INTERNAL.
    public static func readValidated<T>(_ pointer: UnsafePointer<T>, named name: String) throws -> T {
        let size = UnsafeRawPointer(pointer).load(as: UInt32.self)
        guard size >= MemoryLayout<UInt32>.size, size <= UInt32(IP_MAX_STRUCT_SIZE) else {
            throw PluginFailure.internalError("\(name) has an absurd struct_size of \(size)")
        }
        let count = min(Int(size), MemoryLayout<T>.size)
        let copy = UnsafeMutableRawPointer.allocate(byteCount: MemoryLayout<T>.size, alignment: MemoryLayout<T>.alignment)
        defer { copy.deallocate() }
        copy.initializeMemory(as: UInt8.self, repeating: 0, count: MemoryLayout<T>.size)
        copy.copyMemory(from: pointer, byteCount: count)
        return copy.load(as: T.self)
    }
}
