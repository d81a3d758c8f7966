import PipescopeGraph
import XCTest

/// A setting in the environment that is not a number it can take is said, with what
/// would be accepted and what is used instead; never ignored silently.
final class EnvironmentSettingsTests: XCTestCase {
    func testGoodRetentionValuesAreUsed() {
        let (retention, problems) = Retention.parse(["PIPESCOPE_RETAIN_SECONDS": "90", "PIPESCOPE_RETAIN_PIPELINES": "0",
                                                     "PIPESCOPE_RETAIN_INNER": " 20 "])
        XCTAssertEqual(retention, Retention(seconds: 90, maxEndedPipelines: 0, maxEndedInner: 20))
        XCTAssertEqual(problems, [])
        XCTAssertEqual(Retention.parse([:]).0, .standard)
        XCTAssertEqual(Retention.parse(["PIPESCOPE_RETAIN_SECONDS": ""]).problems, [], "empty is unset")
    }

    func testBadRetentionValuesAreSaidAndTheStandardIsUsed() {
        let (retention, problems) = Retention.parse(["PIPESCOPE_RETAIN_SECONDS": "abc", "PIPESCOPE_RETAIN_PIPELINES": "-3",
                                                     "PIPESCOPE_RETAIN_INNER": "2.5"])
        XCTAssertEqual(retention, .standard)
        XCTAssertEqual(problems, [
            "PIPESCOPE_RETAIN_SECONDS=abc is not a number of seconds (expected 0 or more, for example 60); using 60",
            "PIPESCOPE_RETAIN_PIPELINES=-3 is not a number of ended pipelines (expected 0 or more, for example 500); using 500",
            "PIPESCOPE_RETAIN_INNER=2.5 is not a number of ended inner stages (expected 0 or more, for example 500); using 500",
        ])
        XCTAssertEqual(Retention.parse(["PIPESCOPE_RETAIN_SECONDS": "inf"]).problems.count, 1, "not finite")
        XCTAssertEqual(Retention.parse(["PIPESCOPE_RETAIN_SECONDS": "nan"]).problems.count, 1)
    }

    func testAnExclusiveMinimum() {
        let read = { (text: String) in
            EnvironmentNumber.read("PIPESCOPE_PAUSE_DEADLINE", in: ["PIPESCOPE_PAUSE_DEADLINE": text], default: 60.0,
                                   minimum: 0, exclusive: true, unit: "seconds")
        }
        XCTAssertEqual(read("0.5").value, 0.5)
        XCTAssertNil(read("0.5").problem)
        XCTAssertEqual(read("-5").value, 60)
        XCTAssertEqual(read("-5").problem,
                       "PIPESCOPE_PAUSE_DEADLINE=-5 is not a number of seconds (expected more than 0, for example 60); using 60")
        XCTAssertNotNil(read("0").problem)
    }
}
