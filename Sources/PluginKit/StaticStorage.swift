import PluginAPI

/// Process-lifetime C storage for descriptor tables.
///
/// Plugins are never unloaded (the host opens them with RTLD_NODELETE), so the strings and tables a
/// plugin hands to the host are allocated once and deliberately never freed: the host may keep pointers
/// into them for as long as the process lives.
public enum StaticStorage {
    /// A NUL-terminated copy of `text` that lives for the process.
    public static func cString(_ text: String) -> UnsafePointer<CChar> {
        let utf8 = Array(text.utf8)
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: utf8.count + 1)
        for (index, byte) in utf8.enumerated() { buffer[index] = CChar(bitPattern: byte) }
        buffer[utf8.count] = 0
        return UnsafePointer(buffer)
    }

    /// A NULL-terminated array of C strings that lives for the process.
    public static func cStringList(_ items: [String]) -> UnsafePointer<UnsafePointer<CChar>?> {
        let list = UnsafeMutablePointer<UnsafePointer<CChar>?>.allocate(capacity: items.count + 1)
        for (index, item) in items.enumerated() { list[index] = cString(item) }
        list[items.count] = nil
        return UnsafePointer(list)
    }

    /// A copy of `bytes` that lives for the process (magic patterns and masks).
    public static func bytes(_ bytes: [UInt8]) -> UnsafePointer<UInt8> {
        let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: max(bytes.count, 1))
        for (index, byte) in bytes.enumerated() { buffer[index] = byte }
        return UnsafePointer(buffer)
    }

    /// A single value that lives for the process (a descriptor, a vtable, a factory).
    public static func value<T>(_ value: T) -> UnsafePointer<T> {
        let pointer = UnsafeMutablePointer<T>.allocate(capacity: 1)
        pointer.initialize(to: value)
        return UnsafePointer(pointer)
    }

    /// An array of values that lives for the process.
    public static func array<T>(_ values: [T]) -> UnsafePointer<T> {
        let pointer = UnsafeMutablePointer<T>.allocate(capacity: max(values.count, 1))
        for (index, value) in values.enumerated() { (pointer + index).initialize(to: value) }
        return UnsafePointer(pointer)
    }
}
