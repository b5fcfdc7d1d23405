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
}
