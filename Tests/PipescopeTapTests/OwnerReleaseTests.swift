@preconcurrency import OpenCombine
@testable import PipescopeTap
import XCTest

/// How a cancel by an owner's release is told from one somebody asked for, at the cost
/// of a frame-pointer walk, so that a subscribe-and-cancel stays cheap.
final class OwnerReleaseTests: XCTestCase {
    func testTheReleasePathIsFoundByWalkingFramePointers() {
        XCTAssertTrue(OwnerRelease.walksFramePointers,
                      "calibration fell back to glibc's backtrace(): every outermost cancel costs a microsecond")
    }

    func testAReleaseIsSeenAndACancelIsNot() {
        final class Seen: @unchecked Sendable { var releasing: [Bool] = [] }
        OwnerRelease.calibrateNow()  // as the tap does when it is made: not inside a release
        let seen = Seen()
        func record() { seen.releasing.append(OwnerRelease.isReleasingOwner(frames: ThreadFrames.current)) }
        var released: AnyCancellable? = AnyCancellable { record() }
        released = nil
        let cancelled = AnyCancellable { record() }
        cancelled.cancel()
        withExtendedLifetime(released) {}
        XCTAssertEqual(seen.releasing, [true, false])
    }
}
