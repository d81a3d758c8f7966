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
        record(try Pipescope.findings(thresholds, body), file: file, line: line)
    }

    /// ``assertNoPipelineFindings(_:file:line:_:)`` for an async block.
    public func assertNoPipelineFindings(_ thresholds: FindingThresholds = FindingThresholds(),
                                         file: StaticString = #filePath, line: UInt = #line,
                                         isolation: isolated (any Actor)? = #isolation,
                                         _ body: () async throws -> Void) async rethrows {
        record(try await Pipescope.findings(thresholds, body), file: file, line: line)
    }

    private func record(_ findings: [Finding], file: StaticString, line: UInt) {
        for finding in findings {
            let text = "\(finding.kind.rawValue): \(finding.message)" + (finding.count > 1 ? " (×\(finding.count))" : "")
            if let path = finding.at?.file, let at = finding.at?.line {
                recordFailure(withDescription: text, inFile: path, atLine: at, expected: true)
            } else {
                XCTFail(text + " (place unknown)", file: file, line: line)
            }
        }
    }
}
#endif
