/// Everything that decides where a decode runs, in one object a coders manager is configured with: the policy,
/// the pool of sandboxed workers and the worker forked at start-up that the pool's first worker may adopt.
///
/// Why one object: the three used to be set separately (a policy and a pool on the manager, a process-wide
/// preforked child), so a second pipeline in the same process could take the first one's preforked worker, and
/// ending a command meant knowing every piece. An isolator is immutable; replacing it on the manager replaces all
/// three at once, and `shutdown` ends what it owns.
public final class Isolator: Sendable {
    /// Which decodes go to `pool`; requests that name a policy override it per call.
    public let policy: Isolation
    /// The workers isolated requests go to; nil = every request runs in process (`.isolated` then fails).
    public let pool: WorkerPool?

    /// `pool` nil with `.isolated` is accepted here and refused per request, so the failure names the request.
    public init(policy: Isolation = .automatic, pool: WorkerPool? = nil) {
        self.policy = policy
        self.pool = pool
    }

    /// A policy with a new pool of `workers`; `preforked` (from `PreforkedWorker.prepare()`) becomes its first worker.
    public convenience init(policy: Isolation, workers configuration: WorkerPool.Configuration, preforked: PreforkedWorker? = nil) {
        var configuration = configuration
        if let preforked { configuration.preforked = preforked }
        self.init(policy: policy, pool: WorkerPool(configuration: configuration))
    }

    /// Everything in process: no pool, no worker. What a manager starts with until it is given a pool.
    public static let noWorkers = Isolator(policy: .automatic, pool: nil)

    /// Ends the pool's workers and a preforked child it never adopted. `grace` 0 kills at once (a CLI about to exit).
    public func shutdown(grace: Double = 1) {
        pool?.shutdown(grace: grace)
        pool?.configuration.preforked?.discard()
    }
}
