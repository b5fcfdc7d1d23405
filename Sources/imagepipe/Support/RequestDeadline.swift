import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// `--timeout` as a bound on the whole request of a one-shot command, whatever runs it.
///
/// An isolated decode is stopped by killing its worker, and a download by libcurl's own deadline, but an in-process
/// decoder that never polls for cancellation (libavif, libheif, giflib) cannot be stopped from outside. For a CLI
/// that is not needed: when the deadline passes, the process reports the timeout on its one line, removes the
/// temporary output it may be writing, ends its workers and exits; the decode dies with it.
enum RequestDeadline {
    /// Kept so that the timer is not released (and cancelled) when `start` returns. `nonisolated(unsafe)`: written
    /// once by `start` on the main thread and never read (DispatchSourceTimer is not Sendable, so no Mutex).
    nonisolated(unsafe) private static var timer: DispatchSourceTimer?
    /// Whoever ends the process first (the deadline, or the command finishing or failing) says the last word: never
    /// a second line after a timeout, never a timeout after the command's own result.
    private static let ended = Atomic<Bool>(false)

    /// True for the first caller only. The CLI's main calls it before its exit line; when the deadline won, main
    /// waits for the deadline's exit instead of printing.
    static func claimExit() -> Bool {
        ended.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
    }

    /// Starts the deadline when `--timeout` was given (without it, each stage keeps its own default).
    static func start(_ arguments: Arguments, command: String, subject: String) throws {
        guard let seconds = try arguments.seconds("timeout") else { return }
        let source = DispatchSource.makeTimerSource(queue: DispatchQueue.global(qos: .userInitiated))
        // A stage with its own deadline (an isolated decode, a download) reports first, with its more precise line;
        // this one catches what no stage can stop, a little later.
        source.schedule(deadline: .now() + seconds + min(2, max(0.5, seconds / 10)))
        let shown = seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
        source.setEventHandler {
            guard claimExit() else { return }
            InterruptCleanup.removeTemporaryFiles()
            Output.error("imagepipe \(command): \(subject): the request did not finish within --timeout \(shown) s; "
                         + "raise --timeout for a file known to be slow [E6002]")
            IsolationSetup.endWorkers()
            exit(1)
        }
        source.resume()
        timer = source
    }
}
