import Testing
import TestSupport

/// The skip rule the whole suite relies on: a skip is reported as one (a cancelled test), and under make test
/// (IMAGEPIPE_REQUIRE_BOOTSTRAPPED=1) a missing piece that bootstrap installs is a failure, never a quiet pass.
@Suite struct SkipTests {
    @Test func onlyABootstrapPieceInARequiringRunFails() {
        #expect(Skip.failsInsteadOfSkipping(bootstrapProvides: true, required: true))
        #expect(!Skip.failsInsteadOfSkipping(bootstrapProvides: true, required: false))
        #expect(!Skip.failsInsteadOfSkipping(bootstrapProvides: false, required: true))   // the corpus: bootstrap cannot
        #expect(!Skip.failsInsteadOfSkipping(bootstrapProvides: false, required: false))
    }

    /// make test sets the variable for swift test; a bare `swift test` leaves it to the developer.
    @Test func makeTestRequiresBootstrapsPieces() throws {
        let makefile = try String(contentsOfFile: TestPaths.repositoryRoot + "/Makefile", encoding: .utf8)
        #expect(makefile.contains("IMAGEPIPE_REQUIRE_BOOTSTRAPPED=1 $(NO_LEFTOVERS) $(SWIFT) test"))
    }
}
