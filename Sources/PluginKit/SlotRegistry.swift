import Synchronization

/// The components of one kind (coders, loaders or caches) a plugin registered through the kit, by number: filled
/// while the plugin's entry table is built (before the host can call any slot), read by the numbered C entry
/// points, which cannot carry which component they belong to.
final class SlotRegistry<Element: Sendable>: Sendable {
    /// How many components of the kind a plugin may define (numbered entry points exist for these).
    let capacity: Int
    private let kind: String
    private let elements = Mutex<[Element]>([])

    init(kind: String, capacity: Int) {
        self.kind = kind
        self.capacity = capacity
    }

    /// Adds a component; returns its number.
    func register(_ element: Element) -> Int {
        elements.withLock { list in
            precondition(list.count < capacity, "PluginKit builds at most \(capacity) \(kind) per plugin")
            list.append(element)
            return list.count - 1
        }
    }

    subscript(index: Int) -> Element { elements.withLock { $0[index] } }
}
