/// Swift objects handed to the host as the ABI's opaque handles (frame iterators, incremental decoders, load
/// tasks): the host holds one reference from `retain` until the matching close/release slot calls `release`.
///
/// Every plugin with such a handle wrote the same Unmanaged calls; here they are written once, so that
/// ownership works the same way everywhere.
public enum OpaqueHandle {
    /// A handle that keeps `object` alive until `release`.
    public static func retain<Object: AnyObject>(_ object: Object) -> OpaquePointer {
        OpaquePointer(Unmanaged.passRetained(object).toOpaque())
    }

    /// The object behind a handle made by `retain`, without changing its reference count.
    public static func object<Object: AnyObject>(_ handle: OpaquePointer, as type: Object.Type) -> Object {
        Unmanaged<Object>.fromOpaque(UnsafeRawPointer(handle)).takeUnretainedValue()
    }

    /// Drops the reference a handle made by `retain` holds; a NULL handle is ignored.
    public static func release<Object: AnyObject>(_ handle: OpaquePointer?, as type: Object.Type) {
        guard let handle else { return }
        Unmanaged<Object>.fromOpaque(UnsafeRawPointer(handle)).release()
    }
}
