import Synchronization

/// Runs one operation per key however many callers ask for it at once, and cancels it only when every caller
/// has cancelled (Nuke's task coalescing).
///
/// Each caller waits on its own continuation, so a caller that cancels returns at once with `PipelineError.cancelled`
/// while the others keep waiting. Callers may observe progress; the operation reports it to whoever is waiting now.
final class Coalescer<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    typealias Progress = @Sendable (FetchEvent) -> Void

    private struct Waiter {
        let continuation: CheckedContinuation<Value, Error>
        let progress: Progress?
    }

    private struct Operation {
        let id: UInt64
        var task: Task<Void, Never>?
        var waiters: [UInt64: Waiter] = [:]
    }

    private let operations = Mutex<[Key: Operation]>([:])
    private let counter = Atomic<UInt64>(0)

    /// Number of operations in flight (tests, statistics).
    var inFlight: Int { operations.withLock { $0.count } }

    /// Joins the operation for `key`, starting it with `start` when none is in flight.
    func value(for key: Key, progress: Progress? = nil,
               start: @escaping @Sendable (_ report: @escaping Progress) async throws -> Value) async throws -> Value {
        let waiterID = counter.add(1, ordering: .relaxed).newValue
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, Error>) in
                let startID: UInt64? = operations.withLock { ops in
                    if Task.isCancelled {
                        continuation.resume(throwing: PipelineError.cancelled)
                        return nil
                    }
                    if ops[key] != nil {
                        ops[key]!.waiters[waiterID] = Waiter(continuation: continuation, progress: progress)
                        return nil
                    }
                    let id = counter.add(1, ordering: .relaxed).newValue
                    ops[key] = Operation(id: id, waiters: [waiterID: Waiter(continuation: continuation, progress: progress)])
                    return id
                }
                guard let operationID = startID else { return }
                let task = Task {
                    let report: Progress = { [weak self] event in
                        let observers = self?.operations.withLock { ops in
                            ops[key].flatMap { $0.id == operationID ? $0.waiters.values.compactMap(\.progress) : nil }
                        } ?? []
                        for observer in observers { observer(event) }
                    }
                    let result: Result<Value, Error>
                    do { result = .success(try await start(report)) } catch { result = .failure(error) }
                    let waiters = self.operations.withLock { ops -> [Waiter] in
                        guard let op = ops[key], op.id == operationID else { return [] }
                        ops[key] = nil
                        return Array(op.waiters.values)
                    }
                    for waiter in waiters { waiter.continuation.resume(with: result) }
                }
                operations.withLock { ops in
                    if ops[key]?.id == operationID { ops[key]!.task = task }
                }
            }
        } onCancel: {
            let (waiter, abandoned): (Waiter?, Task<Void, Never>?) = operations.withLock { ops in
                guard var op = ops[key], let waiter = op.waiters.removeValue(forKey: waiterID) else { return (nil, nil) }
                if op.waiters.isEmpty {
                    // The last waiter left: forget the operation so a new request starts afresh, and stop it.
                    ops[key] = nil
                    return (waiter, op.task)
                }
                ops[key] = op
                return (waiter, nil)
            }
            waiter?.continuation.resume(throwing: PipelineError.cancelled)
            abandoned?.cancel()
        }
    }
}
