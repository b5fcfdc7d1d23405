import Dispatch
import Synchronization

/// A deadline for a decode that runs in this process: at the deadline the call's context is cancelled, which every
/// coder sees at its next `is_cancelled` poll; the decode then fails with `timedOutInProcess`. A result that comes
/// back after the deadline (a coder that finished before polling) fails the same way, so the deadline means the same
/// in process as in a worker.
enum InProcessDeadline {
    static func run<T>(seconds: Double, context: CallContext, _ body: (CallContext) throws -> T) throws -> T {
        let passed = DeadlineFlag()
        let timer = DispatchWorkItem {
            passed.fired.store(true, ordering: .releasing)
            context.cancel()
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: timer)
        defer { timer.cancel() }
        let result = Result { try body(context) }
        if passed.fired.load(ordering: .acquiring) { throw PipelineError.timedOutInProcess(after: seconds) }
        return try result.get()
    }

    private final class DeadlineFlag: Sendable {
        let fired = Atomic<Bool>(false)
    }
}
