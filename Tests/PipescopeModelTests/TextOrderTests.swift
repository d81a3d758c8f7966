@testable import PipescopeModel
import PipescopeGraph
import XCTest

/// Names and locations are numbered once per rebuild so the table sorts by numbers: the
/// numbers must give the texts' order, and equal texts the same number.
final class TextOrderTests: XCTestCase {
    func testEqualTextsShareANumberAndNumbersFollowTheTexts() {
        XCTAssertEqual(TextOrder.numbers(["Map", "", "Filter", "Map"]), [2, 0, 1, 2])
        XCTAssertEqual(TextOrder.numbers([]), [])
    }

    func testAPrefixComesFirst() {
        XCTAssertEqual(TextOrder.numbers(["Map → Sink", "Map", "Map → Filter → Sink"]), [2, 0, 1])
    }

    func testTheOrderIsStringsOrderForTheNamesATableShows() {
        let names = ["PassthroughSubject → Map → Sink", "Just → Assign", "story: cache lookup", "Timer → Sink",
                     "profile avatar", "Future", "DemoProgram.swift:51", "…cleStories.swift:31", "Ünïcode",
                     "日本 → Sink", "", "PassthroughSubject → Map → Sink", "Zip → Sink"]
        let numbers = TextOrder.numbers(names)
        for (i, a) in names.enumerated() {
            for (j, b) in names.enumerated() {
                XCTAssertEqual(numbers[i] < numbers[j], a < b, "\(a) vs \(b)")
                XCTAssertEqual(numbers[i] == numbers[j], a == b, "\(a) vs \(b)")
            }
        }
    }

    func testTheTableSortsByNameAsByTheTexts() {
        // 300 pipelines whose names repeat: the table's order by name, from its numbers,
        // is the texts' order (ties by id).
        let parts = [["PassthroughSubject", "Map", "Sink"], ["Just", "Assign"], ["Timer", "Filter", "Sink"]]
        let rows = (1...300).map { id in
            PipelineRow(id: NodeID(id), name: PipelineName(parts: parts[(id * 7) % 3], named: false),
                        location: "File\(id % 5).swift:\(id % 11)", status: .active, stages: 1, rate: 0,
                        values: 0, createdNanos: 0, lastEventNanos: 0, warnings: 0)
        }
        var numbered = rows
        let names = TextOrder.numbers(rows.map(\.name.sortKey)), locations = TextOrder.numbers(rows.map(\.location))
        for i in numbered.indices { (numbered[i].nameOrder, numbered[i].locationOrder) = (names[i], locations[i]) }
        for (column, text) in [(TableColumn.name, { (r: PipelineRow) in r.name.sortKey }), (.location, { $0.location })] {
            for descending in [false, true] {
                let expected = rows.sorted { a, b in
                    text(a) != text(b) ? (descending ? text(a) > text(b) : text(a) < text(b)) : a.id < b.id
                }.map(\.id)
                XCTAssertEqual(numbered.sorted(by: column, descending: descending).map(\.id), expected, "\(column)")
                XCTAssertEqual(rows.sorted(by: column, descending: descending).map(\.id), expected, "\(column), as text")
            }
        }
    }
}
