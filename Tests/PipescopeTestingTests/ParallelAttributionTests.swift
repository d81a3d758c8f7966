import Foundation
@preconcurrency import OpenCombine
import PipescopeTesting
import Testing

/// Blocks running at once each see their own pipelines' findings and no other's: each
/// drops a different number of AnyCancellables (and keeps a few, and sends values), so a
/// finding counted in the wrong block shows as a wrong count.
@Suite struct ParallelAttributionTests {
    /// The line each block drops its cancellables on.
    static let dropLine = #line + 9

    /// Drops `dropped` AnyCancellables and keeps `kept` subscriptions for the block, sending
    /// values through both; yields between, so blocks interleave on the pool's threads.
    static func work(dropped: Int, kept: Int) async {
        let subject = PassthroughSubject<Int, Never>()
        var bag: [AnyCancellable] = []
        for i in 0..<max(dropped, kept) {
            if i < kept { subject.map { $0 + 1 }.sink { _ in }.store(in: &bag) }
            if i < dropped { _ = subject.sink { _ in } }
            subject.send(i)
            await Task.yield()
        }
        bag = []
    }

    /// What is counted here is attribution, not time: waits and one-shots are given far
    /// longer than a block lasts, so that dozens of blocks at once on a slow machine (under
    /// ThreadSanitizer one subscribe took longer than the default half second) raise no
    /// `stalled` of their own.
    static var patient: FindingThresholds {
        var t = FindingThresholds()
        t.stalledAfter = 60
        t.neverCompletesAfter = 60
        return t
    }

    static func check(_ found: [Finding], dropped: Int) {
        guard dropped > 0 else {
            #expect(found == [], "a block that dropped none")
            return
        }
        #expect(found.map(\.kind) == [.unretainedCancellable], "dropped \(dropped)")
        #expect(found.first?.count == dropped, "dropped \(dropped)")
        #expect(found.first?.at?.line == dropLine)
    }

    /// Swift Testing runs a parameterized test's cases in parallel.
    @Test(arguments: 0..<24)
    func eachCaseSeesItsOwn(dropped: Int) async {
        let found = await Pipescope.findings(Self.patient) { await Self.work(dropped: dropped % 6, kept: 3) }
        Self.check(found, dropped: dropped % 6)
    }

    /// Thirty-two blocks in one task group, all running at once.
    @Test func blocksInATaskGroupSeeTheirOwn() async {
        let results = await withTaskGroup(of: (Int, [Finding]).self) { group in
            for n in 0..<32 {
                group.addTask { (n % 8, await Pipescope.findings(Self.patient) { await Self.work(dropped: n % 8, kept: 2) }) }
            }
            var all: [(Int, [Finding])] = []
            for await result in group { all.append(result) }
            return all
        }
        #expect(results.count == 32)
        for (dropped, found) in results { Self.check(found, dropped: dropped) }
    }

    /// A block's child tasks are its own: `async let` inherits the block.
    @Test func childTasksAreTheBlocks() async {
        let found = await Pipescope.findings(Self.patient) {
            async let a: Void = Self.work(dropped: 2, kept: 1)
            async let b: Void = Self.work(dropped: 3, kept: 1)
            _ = await (a, b)
        }
        Self.check(found, dropped: 5)
    }
}
