import Synchronization

/// Turns byte snapshots of a transfer into preview images off the loader's thread, one decode at a time, always
/// from the newest snapshot (older ones are skipped), and never after `stop()`.
///
/// `@unchecked Sendable`: `decoder` is touched only by the single drain task that `state.running` admits.
final class PreviewRenderer: @unchecked Sendable {
    private struct State {
        var pending: [UInt8]?
        var running = false
        var stopped = false
        var disabled = false
    }

    private let coders: CodersManager
    private let options: DecodeOptions
    private let transformers: [any ImageTransforming]
    private let deliver: @Sendable (Image) -> Void
    private let state = Mutex(State())
    private var decoder: IncrementalDecoder?

    init(coders: CodersManager, options: DecodeOptions, transformers: [any ImageTransforming] = [],
         deliver: @escaping @Sendable (Image) -> Void) {
        self.coders = coders
        self.options = options
        self.transformers = transformers
        self.deliver = deliver
    }

    func offer(_ bytes: [UInt8]) {
        let start = state.withLock { s -> Bool in
            guard !s.stopped, !s.disabled else { return false }
            s.pending = bytes
            if s.running { return false }
            s.running = true
            return true
        }
        if start { Task.detached { self.drain() } }
    }

    func stop() { state.withLock { $0.stopped = true } }

    private func drain() {
        while true {
            let next = state.withLock { s -> [UInt8]? in
                guard !s.stopped, !s.disabled, let bytes = s.pending else { s.running = false; return nil }
                s.pending = nil
                return bytes
            }
            guard let bytes = next else { return }
            do {
                if decoder == nil {
                    guard let made = try coders.incrementalDecoder(forPrefix: bytes, options: options, transformers: transformers) else {
                        // Either the format has no incremental decoding or too few bytes to tell: retry with more
                        // only in the second case.
                        if coders.coder(forData: bytes) != nil { state.withLock { $0.disabled = true } }
                        continue
                    }
                    decoder = made
                }
                if let preview = try decoder?.update(data: bytes, isFinal: false) {
                    let deliverable = state.withLock { !$0.stopped }
                    if deliverable { deliver(preview) }
                }
            } catch {
                // A preview that fails is no error of the request: the final decode decides.
                state.withLock { $0.disabled = true }
            }
        }
    }
}
