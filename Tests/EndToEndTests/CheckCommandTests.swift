import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import PipescopeTestSupport
import XCTest

/// `pipescope check` on recordings the example program makes of itself (PIPESCOPE_RECORD):
/// a dropped AnyCancellable is found at its line and fails the check, a clean run passes,
/// a file that is no recording is a different failure.
final class CheckCommandTests: XCTestCase {
    private var directory: String!

    override func setUp() { directory = makeTemporaryDirectory() }
    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    private static let exampleSource = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/PipescopeExample/main.swift").path

    /// The line of the example's unretained sink, found by its comment.
    private func unretainedLine() throws -> Int {
        let lines = try String(contentsOfFile: Self.exampleSource, encoding: .utf8).components(separatedBy: "\n")
        let index = try XCTUnwrap(lines.firstIndex { $0.contains("// the AnyCancellable is not kept") })
        return index + 1
    }

    /// The example recorded from start to exit (ten values sent), with `shape`.
    private func record(_ name: String, shape: String? = nil) throws -> String {
        let file = directory + "/\(name).pipescope"
        var environment = ["PIPESCOPE_RECORD": file, "EXAMPLE_SEND_LIMIT": "10", "EXAMPLE_EXIT": "1",
                           "PIPESCOPE_SOCKET": directory + "/\(name).sock"]
        environment["EXAMPLE_SHAPE"] = shape
        XCTAssertEqual(try Programs.runExampleToExit(environment: environment), 0, "the example exits by itself")
        return file
    }

    func testAnUnretainedCancellableFailsTheCheckAtItsLine() throws {
        let file = try record("unretained", shape: "unretained")
        let line = try unretainedLine()
        let message = "cancelled as soon as it was made: its AnyCancellable was not kept. "
            + "Store it (`.store(in: &cancellables)`) for as long as you need the values."

        let text = try Programs.run(Programs.pipescope, ["check", file])
        XCTAssertEqual(text.status, 1, text.stderr)
        XCTAssertEqual(text.stderr, "")
        XCTAssertEqual(text.stdout, "\(Self.exampleSource):\(line): unretained-cancellable: \(message) (stage #5)\n"
                       + "\(file): 1 finding.\n")

        let json = try Programs.run(Programs.pipescope, ["check", file, "--json"])
        XCTAssertEqual(json.status, 1, json.stderr)
        let document = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let findings = try XCTUnwrap(document["findings"] as? [[String: Any]])
        XCTAssertEqual(findings.count, 1)
        XCTAssertEqual(findings.first?["lint"] as? String, "unretained-cancellable")
        XCTAssertEqual(findings.first?["message"] as? String, message)
        XCTAssertEqual(findings.first?["node"] as? Int, 5)
        XCTAssertEqual(findings.first?["count"] as? Int, 1)
        let at = try XCTUnwrap(findings.first?["at"] as? [String: Any])
        XCTAssertEqual(at["file"] as? String, Self.exampleSource)
        XCTAssertEqual(at["line"] as? Int, line)
        XCTAssertEqual(at["function"] as? String, "buildPipelines()")

        let report = directory + "/report.xml"
        let junit = try Programs.run(Programs.pipescope, ["check", file, "--junit", report])
        XCTAssertEqual(junit.status, 1, junit.stderr)
        XCTAssertEqual(junit.stdout, text.stdout, "--junit writes the report besides, not instead")
        try checkJUnit(report, failures: [("pipescope.unretained-cancellable",
                                           "unretained-cancellable at main.swift:\(line) (stage #5)",
                                           message, "\(Self.exampleSource):\(line): \(message)\nstage #5")],
                       passed: 11)  // a passed case for each other lint of LintRules.all (12)

        let allowed = try Programs.run(Programs.pipescope, ["check", file, "-A", "unretained-cancellable"])
        XCTAssertEqual(allowed.status, 0, allowed.stderr)
        XCTAssertEqual(allowed.stdout, "\(file): no findings.\n")
    }

    func testACleanRunPasses() throws {
        let file = try record("clean")
        let text = try Programs.run(Programs.pipescope, ["check", file])
        XCTAssertEqual(text.status, 0, text.stdout + text.stderr)
        XCTAssertEqual(text.stdout, "\(file): no findings.\n")
        XCTAssertEqual(text.stderr, "")
        let json = try Programs.run(Programs.pipescope, ["check", file, "--json", "--junit", directory + "/clean.xml"])
        XCTAssertEqual(json.status, 0, json.stderr)
        XCTAssertEqual(json.stdout, "{\n  \"findings\" : [\n\n  ]\n}\n")
        try checkJUnit(directory + "/clean.xml", failures: [], passed: 12)  // every lint of LintRules.all

        // Cut short (a program killed while writing): what it holds is checked, and the
        // note says how far it reaches.
        let bytes = try XCTUnwrap(FileManager.default.contents(atPath: file))
        let cut = directory + "/cut.pipescope"
        try bytes.dropLast().write(to: URL(fileURLWithPath: cut))
        let checked = try Programs.run(Programs.pipescope, ["check", cut])
        XCTAssertEqual(checked.status, 0, checked.stderr)
        XCTAssertEqual(checked.stdout, "\(cut): no findings.\n")
        XCTAssertTrue(checked.stderr.hasPrefix("pipescope: \(cut): the recording ends after "), checked.stderr)
        XCTAssertTrue(checked.stderr.contains(". Checked those events; if it is a copy, copy the whole file again.\n"),
                      checked.stderr)
    }

    func testAFileThatIsNoRecordingIsExitStatusTwo() throws {
        let out = try Programs.run(Programs.pipescope, ["check", "/etc/passwd"])
        XCTAssertEqual(out.status, 2)
        XCTAssertEqual(out.stdout, "")
        XCTAssertEqual(out.stderr, "pipescope: /etc/passwd: this file is not a Pipescope recording (it does not start with "
                       + "the line PIPESCOPE RECORDING 1). Make one with `pipescope record <pid> -o FILE` or PIPESCOPE_RECORD=FILE.\n")
    }

    /// The report at `path`: one suite in a `<testsuites>`, one failed case per finding
    /// (class name, name, failure message and text) then `passed` cases without a failure;
    /// counts that agree; and no element or attribute that Jenkins' junit-4.xsd (the
    /// stricter of its schemas: JUnit 5 checks its reports against it) does not declare.
    private func checkJUnit(_ path: String, failures: [(classname: String, name: String, message: String, text: String)],
                            passed: Int, file: StaticString = #filePath, line: UInt = #line) throws {
        #if canImport(FoundationXML)
        let document = try XMLDocument(contentsOf: URL(fileURLWithPath: path), options: [])
        let suites = try XCTUnwrap(document.rootElement(), file: file, line: line)
        XCTAssertEqual(suites.name, "testsuites", file: file, line: line)
        let allowed: [String: Set<String>] = [
            "testsuites": ["name", "time", "tests", "failures", "disabled", "errors"],
            "testsuite": ["name", "tests", "failures", "errors", "time", "disabled", "skipped", "timestamp", "hostname",
                          "id", "package"],
            "testcase": ["name", "assertions", "time", "classname", "status"],
            "failure": ["type", "message"],
        ]
        func walk(_ element: XMLElement) {
            let names = Set((element.attributes ?? []).compactMap(\.name))
            XCTAssertTrue(names.isSubset(of: allowed[element.name ?? ""] ?? []),
                          "\(element.name ?? "?") has \(names.sorted())", file: file, line: line)
            for child in element.children ?? [] { if let e = child as? XMLElement { walk(e) } }
        }
        walk(suites)
        let suite = try XCTUnwrap(suites.elements(forName: "testsuite").first, file: file, line: line)
        XCTAssertEqual(suites.elements(forName: "testsuite").count, 1, file: file, line: line)
        let total = String(failures.count + passed)
        for element in [suites, suite] {
            XCTAssertEqual(element.attribute(forName: "tests")?.stringValue, total, file: file, line: line)
            XCTAssertEqual(element.attribute(forName: "failures")?.stringValue, String(failures.count), file: file, line: line)
            XCTAssertEqual(element.attribute(forName: "errors")?.stringValue, "0", file: file, line: line)
        }
        let cases = suite.elements(forName: "testcase")
        XCTAssertEqual(cases.count, failures.count + passed, file: file, line: line)
        for (testcase, expected) in zip(cases, failures) {
            XCTAssertEqual(testcase.attribute(forName: "classname")?.stringValue, expected.classname, file: file, line: line)
            XCTAssertEqual(testcase.attribute(forName: "name")?.stringValue, expected.name, file: file, line: line)
            let failure = testcase.elements(forName: "failure").first
            XCTAssertEqual(failure?.attribute(forName: "message")?.stringValue, expected.message, file: file, line: line)
            XCTAssertEqual(failure?.stringValue, expected.text, file: file, line: line)
        }
        for testcase in cases.dropFirst(failures.count) {
            XCTAssertEqual(testcase.childCount, 0, "a passed case", file: file, line: line)
        }
        #endif
    }
}
