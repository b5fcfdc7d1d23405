import Foundation
import Testing

/// Skipping a test so that the run reports it as skipped (Swift Testing's test cancellation), never as passed.
///
/// Two kinds of prerequisite: what `scripts/bootstrap` installs (reference tools, redis-server, compilers) and what
/// it cannot provide (the third-party corpus in ../shared). With `IMAGEPIPE_REQUIRE_BOOTSTRAPPED=1` in the
/// environment (`make test` sets it, so CI has it), a missing bootstrap prerequisite fails the test with the same
/// reason instead: bootstrap should have provided it, and a green run must not hide that it did not.
public enum Skip {
    /// Whether a missing bootstrap prerequisite is a failure (make test) rather than a skip (a bare `swift test`).
    public static var bootstrapRequired: Bool {
        ProcessInfo.processInfo.environment["IMAGEPIPE_REQUIRE_BOOTSTRAPPED"] == "1"
    }

    /// The rule, on its own so that it can be tested without changing the environment: only a missing piece that
    /// bootstrap provides, in a run that requires bootstrap's pieces, fails.
    public static func failsInsteadOfSkipping(bootstrapProvides: Bool, required: Bool) -> Bool {
        bootstrapProvides && required
    }

    /// Ends the running test as skipped with `reason`; a failure instead when bootstrap should have provided the
    /// missing piece and the run requires it.
    public static func because(_ reason: String, bootstrapProvides: Bool,
                               fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column) throws -> Never {
        if failsInsteadOfSkipping(bootstrapProvides: bootstrapProvides, required: bootstrapRequired) {
            throw TestSupportError("\(reason), although scripts/bootstrap provides it (IMAGEPIPE_REQUIRE_BOOTSTRAPPED=1)")
        }
        try Test.cancel(Comment(rawValue: "skipped: \(reason)"),
                        sourceLocation: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
    }

    /// The verified path of a reference tool bootstrap installs (`ReferenceTool`), or the test ends skipped.
    @discardableResult
    public static func unlessTool(_ name: String, fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column) throws -> String {
        guard let path = ReferenceTool.path(name) else {
            try because("\(name) is not installed (scripts/bootstrap installs it)", bootstrapProvides: true,
                        fileID: fileID, filePath: filePath, line: line, column: column)
        }
        return path
    }

    /// The corpus folder (../shared/corpus or IMAGEPIPE_CORPUS), or the test ends skipped: third-party files that
    /// bootstrap cannot provide.
    public static func unlessCorpus(fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column) throws -> String {
        guard let corpus = TestPaths.corpus else {
            try because("../shared/corpus is absent (set IMAGEPIPE_CORPUS)", bootstrapProvides: false,
                        fileID: fileID, filePath: filePath, line: line, column: column)
        }
        return corpus
    }
}

extension Trait where Self == ConditionTrait {
    /// For a test that reads the third-party corpus: without it the run reports the test as skipped, by the trait,
    /// before it starts (bootstrap cannot provide the corpus, so this is never a failure).
    public static var requiresCorpus: Self {
        .enabled(if: TestPaths.corpus != nil, "../shared/corpus is absent (set IMAGEPIPE_CORPUS)")
    }
}
