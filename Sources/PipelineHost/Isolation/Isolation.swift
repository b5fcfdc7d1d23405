/// Where a coder runs: in this process, or in a sandboxed worker process of a `WorkerPool`.
public enum Isolation: String, Sendable, Hashable, Codable, CaseIterable {
    /// In the host process: fastest, but a crashing or hanging coder takes the host with it.
    case inProcess = "in-process"
    /// Always in a worker (fails with `invalidArgument` when no pool is configured).
    case isolated
    /// In a worker when the chosen coder declares IP_CODER_RECOMMENDS_ISOLATION (SVG, PDF) and a pool is
    /// configured; in process otherwise. The default.
    case automatic = "auto"
}
