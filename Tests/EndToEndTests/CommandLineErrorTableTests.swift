import Foundation
import PipescopeTestSupport
import XCTest

/// The table of bad command lines in the docs (CommandLineErrors.md), walked row by row:
/// the built `pipescope` run as the row says must exit with the row's status and say the
/// row's text on standard error, and nothing on standard output. A message changed
/// without its row, or a row nobody ran, fails here.
final class CommandLineErrorTableTests: XCTestCase {
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    private static let article = root.appendingPathComponent("Sources/Pipescope/Pipescope.docc/CommandLineErrors.md")
    private static let recording = root.appendingPathComponent("Tests/Fixtures/demo-v1.pipescope").path

    struct Row {
        var arguments: [String]
        var says: String
        var status: Int32
    }

    /// A table cell's code span: `text` (DocC reads a double-backquoted span as a symbol
    /// link, so the table's texts hold no backquote).
    static func code(_ cell: Substring) -> String? {
        let cell = cell.trimmingCharacters(in: .whitespaces)
        guard cell.hasPrefix("`"), cell.hasSuffix("`"), cell.count > 1 else { return nil }
        return String(cell.dropFirst().dropLast())
    }

    /// The rows of the article's table: `| `pipescope …` | `text` | status |`.
    static func rows() throws -> [Row] {
        let text = try String(contentsOf: article, encoding: .utf8)
        return text.split(separator: "\n").compactMap { line -> Row? in
            guard line.hasPrefix("| `pipescope") else { return nil }
            let cells = line.dropFirst().dropLast().split(separator: "|", omittingEmptySubsequences: false)
            guard cells.count == 3, let command = code(cells[0]), let says = code(cells[1]),
                  let status = Int32(cells[2].trimmingCharacters(in: .whitespaces)) else { return nil }
            let arguments = command.split(separator: " ").dropFirst().map {
                $0 == "RECORDING" ? recording : String($0)
            }
            return Row(arguments: arguments, says: says, status: status)
        }
    }

    func testEveryRowOfTheTableIsWhatPipescopeSays() throws {
        let rows = try Self.rows()
        XCTAssertGreaterThanOrEqual(rows.count, 20, "the table is read (\(rows.count) rows)")
        // In a directory of its own: a row that wrongly succeeded writes its output there.
        let directory = makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let previous = FileManager.default.currentDirectoryPath
        XCTAssertTrue(FileManager.default.changeCurrentDirectoryPath(directory))
        defer { _ = FileManager.default.changeCurrentDirectoryPath(previous) }
        for row in rows {
            let shown = "pipescope " + row.arguments.joined(separator: " ")
            let out = try Programs.run(Programs.pipescope, row.arguments, timeout: 30)
            XCTAssertEqual(out.status, row.status, "\(shown): exit status\n\(out.stderr)")
            XCTAssertTrue(out.stderr.hasPrefix("pipescope: "), "\(shown): \(out.stderr)")
            XCTAssertTrue(out.stderr.contains(row.says.replacingOccurrences(of: "RECORDING", with: Self.recording)),
                          "\(shown) says:\n\(out.stderr)\nnot:\n\(row.says)")
            XCTAssertEqual(out.stdout, "", "\(shown): nothing on standard output")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory), [], "no row wrote a file")
    }
}
