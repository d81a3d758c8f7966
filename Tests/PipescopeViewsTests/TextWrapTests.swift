@testable import PipescopeViews
import XCTest

/// Messages in the detail pane and the warnings list wrap between words, and a message
/// cut short says so.
final class TextWrapTests: XCTestCase {
    func testLinesBreakBetweenWords() {
        XCTAssertEqual(DetailView.wrap("its AnyCancellable was not kept. Store it", width: 18, maxLines: 5),
                       ["its AnyCancellable", "was not kept.", "Store it"])
    }

    func testASpaceRightAfterTheWidthEndsTheLine() {
        XCTAssertEqual(DetailView.wrap("abc def ghi", width: 7, maxLines: 3), ["abc def", "ghi"])
    }

    func testAWordLongerThanALineIsCut() {
        XCTAssertEqual(DetailView.wrap("PassthroughSubject<Int, Never>", width: 10, maxLines: 5),
                       ["Passthroug", "hSubject<I", "nt, Never>"])
        XCTAssertEqual(DetailView.wrap("   leading", width: 4, maxLines: 5), ["   l", "eadi", "ng"])
    }

    /// The last line keeps the rest; `putTruncated` draws it with an ellipsis.
    func testTheLastLineHoldsTheRest() {
        let lines = DetailView.wrap("one two three four five six", width: 9, maxLines: 2)
        XCTAssertEqual(lines, ["one two", "three four five six"])
    }

    func testNothingToWrapInto() {
        XCTAssertEqual(DetailView.wrap("text", width: 0, maxLines: 3), [])
        XCTAssertEqual(DetailView.wrap("text", width: 10, maxLines: 0), [])
        XCTAssertEqual(DetailView.wrap("", width: 10, maxLines: 3), [])
    }
}
