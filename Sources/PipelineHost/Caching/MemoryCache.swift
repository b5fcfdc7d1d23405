import Synchronization

/// Decoded images in memory with byte-cost and count limits, least recently used first out.
///
/// O(1) lookups, stores and evictions (a dictionary over a doubly linked list of nodes in an array); one Mutex
/// guards everything, and no work but bookkeeping happens under it.
public final class MemoryCache: ImageCaching {
    public struct Limits: Sendable {
        /// Total bytes of pixels. Default 256 MiB.
        public var maxBytes: Int
        /// Entries. Default 1000.
        public var maxCount: Int
        public init(maxBytes: Int = 256 << 20, maxCount: Int = 1000) {
            self.maxBytes = maxBytes
            self.maxCount = maxCount
        }
    }

    private struct Node {
        var key: String
        var image: Image
        var cost: Int
        var previous: Int
        var next: Int
    }

    private struct State {
        var index: [String: Int] = [:]
        var nodes: [Node] = []
        var free: [Int] = []
        var head = -1  // most recent
        var tail = -1  // least recent
        var totalCost = 0
        var hits = 0
        var misses = 0

        mutating func unlink(_ i: Int) {
            let (p, n) = (nodes[i].previous, nodes[i].next)
            if p >= 0 { nodes[p].next = n } else { head = n }
            if n >= 0 { nodes[n].previous = p } else { tail = p }
        }

        mutating func pushFront(_ i: Int) {
            nodes[i].previous = -1
            nodes[i].next = head
            if head >= 0 { nodes[head].previous = i }
            head = i
            if tail < 0 { tail = i }
        }

        mutating func remove(_ i: Int) {
            unlink(i)
            index[nodes[i].key] = nil
            totalCost -= nodes[i].cost
            nodes[i].image = Image.placeholder
            free.append(i)
        }
    }

    public let limits: Limits
    private let state = Mutex(State())

    public init(limits: Limits = Limits()) { self.limits = limits }

    public func image(for key: String) -> Image? {
        state.withLock { s in
            guard let i = s.index[key] else { s.misses += 1; return nil }
            s.hits += 1
            if s.head != i { s.unlink(i); s.pushFront(i) }
            return s.nodes[i].image
        }
    }

    public func store(_ image: Image, for key: String) {
        let cost = image.stride * image.height
        guard cost <= limits.maxBytes else { return }
        state.withLock { s in
            if let existing = s.index[key] { s.remove(existing) }
            let node = Node(key: key, image: image, cost: cost, previous: -1, next: -1)
            let i: Int
            if let reused = s.free.popLast() { s.nodes[reused] = node; i = reused } else { s.nodes.append(node); i = s.nodes.count - 1 }
            s.index[key] = i
            s.pushFront(i)
            s.totalCost += cost
            while (s.totalCost > limits.maxBytes || s.index.count > limits.maxCount), s.tail >= 0, s.tail != i {
                s.remove(s.tail)
            }
        }
    }

    public func removeImage(for key: String) {
        state.withLock { s in if let i = s.index[key] { s.remove(i) } }
    }

    public func removeAll() {
        state.withLock { s in s = State(hits: s.hits, misses: s.misses) }
    }

    public var statistics: CacheStatistics {
        state.withLock { s in
            CacheStatistics(name: "memory", entryCount: s.index.count, totalBytes: s.totalCost, hits: s.hits, misses: s.misses)
        }
    }
}

extension Image {
    /// A 1x1 image that stands in a freed cache slot, so the slot does not keep a large buffer alive.
    static let placeholder: Image = {
        let storage = PixelStorage(byteCount: 4)!
        return Image(width: 1, height: 1, stride: 4, pixelFormat: .rgba8, alphaMode: .none, storage: storage)
    }()
}
