#if canImport(Testing)
import Foundation
import Pipescope
import PipescopeModel
import Testing

/// Records an issue in the current Swift Testing test for each finding of `body`'s
/// pipelines (``Pipescope/findings(_:_:)-(_,()->Void)``), at the line to change when it is
/// known, else at this call. Tests run in parallel by default: each sees only the
/// pipelines its own task made.
///
/// ```swift
/// @Test func searchKeepsItsSubscription() async throws {
///     try await expectNoPipelineFindings {
///         try await SearchModel().search("shoe")   // made in the block: released at its end
///     }
/// }
/// ```
public func expectNoPipelineFindings(_ thresholds: FindingThresholds = FindingThresholds(),
                                     sourceLocation: Testing.SourceLocation = #_sourceLocation,
                                     _ body: () throws -> Void) rethrows {
    record(try Pipescope.findings(thresholds, body), at: sourceLocation)
}

/// ``expectNoPipelineFindings(_:sourceLocation:_:)`` for an async block.
public func expectNoPipelineFindings(_ thresholds: FindingThresholds = FindingThresholds(),
                                     sourceLocation: Testing.SourceLocation = #_sourceLocation,
                                     isolation: isolated (any Actor)? = #isolation,
                                     _ body: () async throws -> Void) async rethrows {
    record(try await Pipescope.findings(thresholds, body), at: sourceLocation)
}

private func record(_ findings: [Finding], at call: Testing.SourceLocation) {
    for finding in findings {
        let text = "\(finding.kind.rawValue): \(finding.message)" + (finding.count > 1 ? " (×\(finding.count))" : "")
        var place = call
        if let path = finding.at?.file, let line = finding.at?.line {
            // The module part of the file ID is the caller's: a finding's place is in the
            // code under test, which is compiled into the test's module or one it imports.
            let module = call.moduleName
            let name = (path as NSString).lastPathComponent
            place = Testing.SourceLocation(fileID: "\(module)/\(name)", filePath: path, line: line, column: 1)
        }
        Issue.record(Comment(rawValue: text), sourceLocation: place)
    }
}
#endif

#if canImport(Testing)
/// The trait form of ``expectNoPipelineFindings(_:sourceLocation:isolation:_:)``: every
/// test it is on (a suite's tests too, and each case of a parameterized test) runs as a
/// `findings { }` block, and each finding is an issue at the line to change.
///
/// ```swift
/// @Suite(.noPipelineFindings()) struct SearchModelTests {
///     @Test func search() async throws { try await SearchModel().search("shoe") }
/// }
/// ```
public struct NoPipelineFindingsTrait: TestTrait, SuiteTrait, TestScoping {
    public var thresholds: FindingThresholds
    public var isRecursive: Bool { true }

    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        // A suite is no block: its tests are, each in its own.
        guard !test.isSuite else { return try await function() }
        try await expectNoPipelineFindings(thresholds, sourceLocation: test.sourceLocation) { try await function() }
    }
}

extension Trait where Self == NoPipelineFindingsTrait {
    /// Fails the test for each pipeline mistake it makes (``NoPipelineFindingsTrait``).
    public static func noPipelineFindings(_ thresholds: FindingThresholds = FindingThresholds()) -> Self {
        NoPipelineFindingsTrait(thresholds: thresholds)
    }
}
#endif
