/// Runs the same check in many tasks at once, for the thread-safety tests of coders that claim
/// IP_CODER_THREAD_SAFE.
public enum ConcurrentChecks {
    /// Runs `body(task)` for every task in 0..<count in one task group and returns what the bodies reported
    /// (nil means the task found nothing wrong), in the order the tasks finished.
    public static func failures(
        tasks count: Int, _ body: @escaping @Sendable (_ task: Int) throws -> String?
    ) async throws -> [String] {
        try await withThrowingTaskGroup(of: String?.self) { group in
            for task in 0..<count {
                group.addTask { try body(task) }
            }
            return try await group.reduce(into: [String]()) { if let failure = $1 { $0.append(failure) } }
        }
    }
}
