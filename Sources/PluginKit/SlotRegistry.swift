import Synchronization

/// The Swift implementation behind each C table of one kind (coders, loaders or caches) a plugin built with the kit,
/// keyed by the table's address: ABI 1.1's slots receive that address (the "2" slots, loader open, cache open2), so
/// one shared C entry point per slot finds its implementation with no per-component trampolines and no cap on how
/// many components a plugin defines. Filled while the plugin's tables are built (before the host can call any slot).
final class ComponentRegistry<Element: Sendable>: Sendable {
    private let kind: String
    /// By table address (an integer: a pointer is not Sendable).
    private let elements = Mutex<[UInt: Element]>([:])

    init(kind: String) { self.kind = kind }

    func register(_ element: Element, for table: UnsafeRawPointer) {
        let key = UInt(bitPattern: table)
        elements.withLock { $0[key] = element }
    }

    /// The implementation behind `table`; a pointer the kit never made is the host's error, reported, not trapped.
    func element(for table: UnsafeRawPointer?) throws -> Element {
        let key = table.map { UInt(bitPattern: $0) } ?? 0
        guard let element = elements.withLock({ $0[key] }) else {
            throw PluginFailure.internalError("called with a \(kind) table this plugin did not make")
        }
        return element
    }
}
