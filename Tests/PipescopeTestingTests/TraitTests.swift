@preconcurrency import OpenCombine
import PipescopeTesting
import Testing

/// `.noPipelineFindings()` runs a test as a findings block.
@Suite struct TraitTests {
    @Test(.noPipelineFindings()) func aCleanTestPasses() {
        let subject = PassthroughSubject<Int, Never>()
        let kept = subject.sink { _ in }
        subject.send(1)
        kept.cancel()
    }

    /// The trait's scope around a block that drops an AnyCancellable records the finding
    /// at that line, and only it.
    @Test func aMistakeUnderTheTraitIsAnIssueAtItsLine() async throws {
        let test = try #require(Test.current)
        let subject = PassthroughSubject<Int, Never>()
        let line = #line + 5
        try await withKnownIssue {
            try await NoPipelineFindingsTrait.noPipelineFindings().provideScope(for: test, testCase: Test.Case.current) {
                // Made here, in the scope: the trait's block is this task's.
                await Task.yield()
                _ = subject.sink { _ in }
            }
        } matching: { issue in
            issue.sourceLocation?.line == line
                && issue.comments.first?.rawValue.hasPrefix("unretained-cancellable: ") == true
        }
    }
}
