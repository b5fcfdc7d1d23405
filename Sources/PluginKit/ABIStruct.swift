import PluginAPI
import VersionedStructs

/// Copies of versioned ABI structs across the boundary, under the one rule every reader follows
/// (`VersionedStruct`: at least the struct's 1.0 size, at most IP_MAX_STRUCT_SIZE, `min(struct_size, ours)` bytes
/// copied and the rest zero), with failures as the `PluginFailure` a slot returns.
public enum ABIStruct {
    /// Copies `value` into the host-provided `target`, at most the host's `struct_size` bytes, and keeps the
    /// host's `struct_size`. A host that left it 0 gets the whole struct (with `value`'s own struct_size).
    public static func write<T>(_ value: T, to target: UnsafeMutablePointer<T>) {
        VersionedStruct.write(value, to: target)
    }

    /// A copy of the host's struct; INTERNAL when it breaks the rule (a table that is not what it claims).
    public static func read<T>(_ pointer: UnsafePointer<T>, named name: String) throws -> T {
        do {
            return try VersionedStruct.read(pointer, as: T.self, named: name)
        } catch {
            throw PluginFailure.internalError(error.description)
        }
    }
}
