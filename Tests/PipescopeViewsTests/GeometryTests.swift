import PipescopeGraph
import PipescopeModel
import PipescopeTestSupport
import PipescopeViews
import TerminalKit
import XCTest

/// The reducer pages by what the layout draws: the geometry the resize message carries
/// comes from the same layout as the drawing, so a page of the help moves exactly the
/// lines on screen, in every size and glyph set.
final class GeometryTests: XCTestCase {
    /// The help's footer range, "scroll 20-38/45", as (first, last, count).
    private func shownRange(_ state: AppState, _ width: Int, _ height: Int, _ theme: Theme) -> (Int, Int, Int)? {
        var buffer = ScreenBuffer(width: width, height: height)
        ScreenView.render(state, theme: theme, into: &buffer)
        for line in buffer.lines() {
            guard let found = line.range(of: #"scroll [0-9]+-[0-9]+/[0-9]+"#, options: .regularExpression) else { continue }
            let numbers = line[found].dropFirst("scroll ".count).split(whereSeparator: { $0 == "-" || $0 == "/" })
                .compactMap { Int($0) }
            return (numbers[0], numbers[1], numbers[2])
        }
        return nil
    }

    func testAPageOfTheHelpMovesExactlyTheLinesOnScreen() throws {
        for (width, height) in [(80, 24), (50, 22), (60, 30)] {
            for theme in [Theme.plainUnicode, .plainASCII] {
                var state = ViewFixtures.help()
                _ = reduce(&state, ScreenView.resized(width: width, height: height, theme: theme))
                var shown = try XCTUnwrap(shownRange(state, width, height, theme), "\(width)x\(height) scrolls")
                XCTAssertEqual(shown.0, 1)
                XCTAssertEqual(state.geometry.helpPage, shown.1 - shown.0 + 1, "\(width)x\(height)")
                XCTAssertEqual(state.geometry.helpLines, shown.2)
                while shown.1 < shown.2 {
                    _ = reduce(&state, .action(.pageDown))
                    let next = try XCTUnwrap(shownRange(state, width, height, theme))
                    XCTAssertEqual(next.0, min(shown.1 + 1, shown.2 - state.geometry.helpPage + 1),
                                   "\(width)x\(height): a page down shows the next lines, none skipped")
                    shown = next
                }
                _ = reduce(&state, .action(.pageDown))
                XCTAssertEqual(state.layer.overlay?.offset, shown.2 - state.geometry.helpPage, "it stops at its end")
            }
        }
    }

    func testAHelpThatFitsDoesNotScroll() {
        var state = ViewFixtures.help()
        _ = reduce(&state, ScreenView.resized(width: 200, height: 80))
        XCTAssertEqual(state.geometry.helpPage, state.geometry.helpLines)
        _ = reduce(&state, .action(.pageDown))
        XCTAssertEqual(state.layer.overlay?.offset, 0)
    }
}
