#if canImport(XCTest)
import Pipescope
import PipescopeModel
import XCTest

extension XCTestCase {
    /// Fails the test once per finding of `body`'s pipelines (``Pipescope/findings(_:_:)-(_,()->Void)``),
    /// each at the line to change when it is known (so the IDE shows it on that line), else
    /// at this call; the message is the finding's, with its lint and place.
    ///
    /// ```swift
    /// func testSearchKeepsItsSubscription() {
    ///     assertNoPipelineFindings {
    ///         SearchModel().search("shoe")   // a finding in it fails the test at its line
    ///     }
    /// }
    /// ```
    public func assertNoPipelineFindings(_ thresholds: FindingThresholds = FindingThresholds(),
                                         file: StaticString = #filePath, line: UInt = #line,
                                         _ body: () throws -> Void) rethrows {
        recordPipelineFindings(try Pipescope.findings(thresholds, body), file: file, line: line)
    }

    /// ``assertNoPipelineFindings(_:file:line:_:)`` for an async block.
    public func assertNoPipelineFindings(_ thresholds: FindingThresholds = FindingThresholds(),
                                         file: StaticString = #filePath, line: UInt = #line,
                                         isolation: isolated (any Actor)? = #isolation,
                                         _ body: () async throws -> Void) async rethrows {
        recordPipelineFindings(try await Pipescope.findings(thresholds, body), file: file, line: line)
    }

    /// Fails the test once per finding, at its place when known, else at `file`:`line`
    /// (the assertion's), or with no place at all when `file` is nil (a whole-suite
    /// observer's: no line of the test made the call).
    func recordPipelineFindings(_ findings: [Finding], file: StaticString?, line: UInt) {
        for finding in findings {
            let text = "\(finding.kind.rawValue): \(finding.message)" + (finding.count > 1 ? " (×\(finding.count))" : "")
            if let path = finding.at?.file, let at = finding.at?.line {
                recordFailure(withDescription: text, inFile: path, atLine: at, expected: true)
            } else if let file {
                // This test case's, not XCTest's current one (XCTFail's): the same while
                // the test runs, and right for a test case asked to judge from elsewhere.
                recordFailure(withDescription: text + " (place unknown)", inFile: "\(file)", atLine: Int(line), expected: true)
            } else {
                recordFailure(withDescription: text + " (place unknown)", inFile: "<unknown>", atLine: 0, expected: true)
            }
        }
    }
}
#endif
