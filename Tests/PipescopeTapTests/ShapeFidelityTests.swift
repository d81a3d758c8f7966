@preconcurrency import OpenCombine
@testable import Pipescope
@testable import PipescopeLocations
@testable import PipescopeProbe
@testable import PipescopeTap
import PipescopeTestSupport
import XCTest

/// The table of pipeline shapes: each must produce exactly its expected tree.
final class ShapeFidelityTests: XCTestCase {
    func testEveryShapeProducesItsExactTree() {
        var report: [String] = []
        for shape in Shapes.all {
            let probe = Probe()
            probe.enable()
            let keep = shape.run()
            probe.flush()
            let lines = GraphDump.lines(probe.graph)
            probe.disable()
            withExtendedLifetime(keep) {}
            if lines != shape.expected {
                report.append("== \(shape.name)\n" + lines.map { "\"\($0)\"," }.joined(separator: "\n"))
            }
        }
        XCTAssertTrue(report.isEmpty, "\n" + report.joined(separator: "\n"))
    }
}
