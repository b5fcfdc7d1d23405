/// Writes results into host-provided ABI structs without overrunning an older, smaller host struct.
enum ABIStruct {
    /// Copies `value` into `target`, at most the host's `struct_size` bytes (every ABI struct starts with a
    /// uint32 struct_size), and keeps the host's struct_size. A host that left it 0 gets the whole struct.
    static func write<T>(_ value: T, to target: UnsafeMutablePointer<T>) {
        let raw = UnsafeMutableRawPointer(target)
        let declared = Int(raw.load(as: UInt32.self))
        let count = declared == 0 ? MemoryLayout<T>.size : min(declared, MemoryLayout<T>.size)
        withUnsafeBytes(of: value) { raw.copyMemory(from: $0.baseAddress!, byteCount: count) }
        if declared != 0 { raw.storeBytes(of: UInt32(declared), as: UInt32.self) }
    }
}
