import Foundation
import Pipescope
import PipescopeModel
import PipescopeTap

extension Pipescope {
    /// Runs `body` with the tap on for the pipelines it makes, lets them settle, and returns
    /// what went wrong with them: every lint raised on them while it ran (each mistake once,
    /// with the line to change), and each of them still active when it ended that nothing
    /// it released holds (``LintKind/leakedSubscription``).
    ///
    /// Findings are the block's own: a pipeline belongs to the block whose task subscribed
    /// it (and the tasks it starts: `async let`, task groups, `Task { }`), so tests running
    /// in parallel never see each other's. A pipeline subscribed from a dispatch queue, a
    /// thread or `Task.detached` is no block's.
    ///
    /// ```swift
    /// let found = Pipescope.findings {
    ///     _ = subject.sink { print($0) }      // line 12: nobody keeps the AnyCancellable
    /// }
    /// found.map(\.kind)        // [.unretainedCancellable]
    /// found[0].at?.line        // 12
    /// ```
    public static func findings(_ thresholds: FindingThresholds = FindingThresholds(),
                                _ body: () throws -> Void) rethrows -> [Finding] {
        let tap = TestTap.shared
        let scope = tap.begin(linter: thresholds.linter)
        do {
            try FindingScope.$current.withValue(scope) { try body() }
        } catch {
            _ = tap.end(scope, thresholds: thresholds)
            throw error
        }
        return tap.end(scope, thresholds: thresholds).findings
    }

    /// ``findings(_:_:)-(_,()->Void)`` for an async block: the tasks it starts are its too.
    ///
    /// ```swift
    /// let found = try await Pipescope.findings { try await FeedModel().refresh() }
    /// #expect(found.isEmpty, "\(found.map(\.line))")
    /// ```
    public static func findings(_ thresholds: FindingThresholds = FindingThresholds(),
                                isolation: isolated (any Actor)? = #isolation,
                                _ body: () async throws -> Void) async rethrows -> [Finding] {
        let tap = TestTap.shared
        let scope = tap.begin(linter: thresholds.linter)
        do {
            try await FindingScope.$current.withValue(scope) { try await body() }
        } catch {
            _ = tap.end(scope, thresholds: thresholds)
            throw error
        }
        return tap.end(scope, thresholds: thresholds).findings
    }
}
