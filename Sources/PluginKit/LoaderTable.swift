import PluginAPI

/// What a Swift loader implements: `start` makes a task object and hands the host a handle to it (made with
/// `OpaqueHandle.retain`, before the task can call back); the kit answers `cancel` and `release` from the handle.
public protocol LoadTask: AnyObject, Sendable {
    static func start(request: UnsafePointer<ip_load_request>?, callbacks: UnsafePointer<ip_load_callbacks>?) throws
        -> OpaquePointer
    /// Asks the load to stop soon; `complete(CANCELLED)` follows unless it already completed.
    func cancel()
}

/// Builds a loader's `ip_loader` table from its task type (as `CoderTable` does for coders).
public enum LoaderTable {
    public static func make(descriptor: StaticTable<ip_loader_descriptor>, task: any LoadTask.Type) -> StaticTable<ip_loader> {
        let index = LoaderSlots.registry.register(task)
        return StaticTable(StaticStorage.value(ip_loader(
            struct_size: UInt32(MemoryLayout<ip_loader>.size), descriptor: descriptor.pointer,
            start: LoaderSlots.start(index), cancel: LoaderSlots.cancel, release: LoaderSlots.release)))
    }
}

/// The C entry points behind `LoaderTable`: `start` once per loader number, `cancel` and `release` shared.
enum LoaderSlots {
    static let registry = SlotRegistry<any LoadTask.Type>(kind: "loaders", capacity: 4)

    typealias Start = @convention(c) (UnsafePointer<ip_load_request>?, UnsafePointer<ip_load_callbacks>?,
                                      UnsafeMutablePointer<OpaquePointer?>?, ip_message) -> ip_status

    static func start(_ index: Int) -> Start {
        switch index {
        case 0: return { LoaderSlots.start(0, $0, $1, $2, $3) }
        case 1: return { LoaderSlots.start(1, $0, $1, $2, $3) }
        case 2: return { LoaderSlots.start(2, $0, $1, $2, $3) }
        case 3: return { LoaderSlots.start(3, $0, $1, $2, $3) }
        default: preconditionFailure("loader number \(index) has no entry point")
        }
    }

    fileprivate static func start(_ index: Int, _ request: UnsafePointer<ip_load_request>?,
                                  _ callbacks: UnsafePointer<ip_load_callbacks>?,
                                  _ task: UnsafeMutablePointer<OpaquePointer?>?, _ message: ip_message) -> ip_status {
        withStatus(message) {
            guard let task else { throw PluginFailure.internalError("start called without a task slot") }
            task.pointee = try registry[index].start(request: request, callbacks: callbacks)
        }
    }

    static let cancel: @convention(c) (OpaquePointer?) -> Void = { handle in
        guard let handle else { return }
        (Unmanaged<AnyObject>.fromOpaque(UnsafeRawPointer(handle)).takeUnretainedValue() as? any LoadTask)?.cancel()
    }

    static let release: @convention(c) (OpaquePointer?) -> Void = { handle in
        guard let handle else { return }
        Unmanaged<AnyObject>.fromOpaque(UnsafeRawPointer(handle)).release()
    }
}
