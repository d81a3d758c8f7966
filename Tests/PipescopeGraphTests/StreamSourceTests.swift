import XCTest

@testable import PipescopeGraph

/// Which operators make an inner publisher a joined stream (its values come from
/// elsewhere), decided by byte comparisons the flush can afford for every inner.
final class StreamSourceTests: XCTestCase {
    func testSubjectsPublishedTimersAndNotificationsAreStreamsAndNothingElse() {
        let streams = ["PassthroughSubject", "CurrentValueSubject", "PublishedPublisher", "TimerPublisher",
                       "Timer.TimerPublisher", "NotificationCenter.Publisher", "Autoconnect<Timer>"]
        let work = ["Future", "Sequence", "Just", "Map", "", "Time", "Notificatio", "Subjec", "Publishe", "Record",
                    "Deferred<Timr>", "ÜberTimeR"]
        XCTAssertEqual(streams.filter { !Graph.isStreamSource($0) }, [])
        XCTAssertEqual(work.filter { Graph.isStreamSource($0) }, [])
        XCTAssertTrue(Graph.contains("x Timer", "Timer"), "at the end")
        XCTAssertTrue(Graph.contains("TTimer", "Timer"), "after a false start")
        XCTAssertTrue(Graph.contains("é Notification é", "Notification"), "among multi-byte characters")
        XCTAssertFalse(Graph.contains("Tim", "Timer"), "shorter than the part")
    }
}
