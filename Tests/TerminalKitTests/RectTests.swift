import TerminalKit
import XCTest

final class RectTests: XCTestCase {
    let rect = Rect(x: 2, y: 3, width: 10, height: 5)

    func testEdgesAndEmptiness() {
        XCTAssertEqual(rect.maxX, 12)
        XCTAssertEqual(rect.maxY, 8)
        XCTAssertFalse(rect.isEmpty)
        XCTAssertTrue(Rect(x: 1, y: 1, width: 0, height: 3).isEmpty)
        XCTAssertEqual(Rect(x: -1, y: -2, width: -3, height: 4), Rect(x: 0, y: 0, width: 0, height: 4))
    }

    func testInset() {
        XCTAssertEqual(rect.inset(by: 1), Rect(x: 3, y: 4, width: 8, height: 3))
        XCTAssertEqual(rect.inset(by: 0), rect)
        let collapsed = rect.inset(by: 3)
        XCTAssertEqual(collapsed.width, 4)
        XCTAssertEqual(collapsed.height, 0)
        XCTAssertTrue(collapsed.isEmpty)
        XCTAssertTrue(rect.inset(by: 100).isEmpty)
    }

    func testSplitHorizontally() {
        let (left, right) = rect.splitHorizontally(at: 4)
        XCTAssertEqual(left, Rect(x: 2, y: 3, width: 4, height: 5))
        XCTAssertEqual(right, Rect(x: 6, y: 3, width: 6, height: 5))
        XCTAssertEqual(rect.splitHorizontally(at: 50).left, rect)
        XCTAssertTrue(rect.splitHorizontally(at: 50).right.isEmpty)
        XCTAssertTrue(rect.splitHorizontally(at: -1).left.isEmpty)
    }

    func testSplitVertically() {
        let (top, bottom) = rect.splitVertically(at: 2)
        XCTAssertEqual(top, Rect(x: 2, y: 3, width: 10, height: 2))
        XCTAssertEqual(bottom, Rect(x: 2, y: 5, width: 10, height: 3))
        XCTAssertEqual(rect.splitVertically(at: 9).top, rect)
    }

    func testRow() {
        XCTAssertEqual(rect.row(0), Rect(x: 2, y: 3, width: 10, height: 1))
        XCTAssertEqual(rect.row(4), Rect(x: 2, y: 7, width: 10, height: 1))
        XCTAssertTrue(rect.row(5).isEmpty)
        XCTAssertTrue(rect.row(-1).isEmpty)
    }

    func testIntersection() {
        XCTAssertEqual(rect.intersection(Rect(x: 0, y: 0, width: 5, height: 5)), Rect(x: 2, y: 3, width: 3, height: 2))
        XCTAssertTrue(rect.intersection(Rect(x: 20, y: 0, width: 5, height: 5)).isEmpty)
    }
}
