import Foundation
import PipescopeGraph
import PipescopeTestSupport
import XCTest

/// Every event kind, declared once (``EventKind/payload``), changes the graph as it should;
/// and every `switch` that decides what a kind means is exhaustive and listed where the
/// kind is declared. (That every kind survives every codec: `EventKindCodingTests` in the
/// wire's tests and `EventKindRecordingTests` in the recording's.)
final class EventKindTests: XCTestCase {
    // MARK: - The fold

    /// Each kind, folded on its own into the same small graph, does exactly what it means.
    func testEveryKindChangesTheGraphAsItMeans() {
        for kind in EventKind.allCases {
            var graph = KindSamples.graph()
            let before = graph
            let event = KindSamples.event(kind)
            if kind == .subscribe {
                var batch = EventBatch()
                batch.append(KindSamples.info(5, parent: 3, name: "Just"))
                graph.fold(batch)
            } else {
                graph.apply(event)
            }
            let t = KindSamples.time
            switch kind {
            case .unknown:
                XCTAssertEqual(graph.snapshot().nodes, before.snapshot().nodes, "an unknown kind changes nothing")
            case .subscribe:
                XCTAssertEqual(graph[5]?.parent, 3)
                XCTAssertEqual(graph[3]?.children, [5])
            case .subscription:
                XCTAssertEqual(graph[2]?.status, .active)
                XCTAssertEqual(graph[2]?.subscriptionOwner, 3)
                XCTAssertEqual(graph[3]?.sharers, [2])
            case .request:
                XCTAssertEqual(graph[3]?.requested, .count(5))
                XCTAssertEqual(graph[3]?.recentRequests, [DemandRequest(time: t, demand: .count(5), returned: false)])
            case .value:
                XCTAssertEqual(graph[3]?.values, 1)
                XCTAssertEqual(graph[3]?.lastValue, event.text)
                XCTAssertEqual(graph[3]?.lastValueNanos, t)
            case .demand:
                XCTAssertEqual(graph[3]?.requested, .count(5))
                XCTAssertEqual(graph[3]?.recentRequests, [DemandRequest(time: t, demand: .count(5), returned: true)])
            case .finished:
                XCTAssertEqual(graph[3]?.status, .finished)
                XCTAssertEqual(graph[3]?.endedNanos, t)
            case .failed:
                XCTAssertEqual(graph[3]?.status, .failed)
                XCTAssertEqual(graph[3]?.error, event.text)
            case .cancelled:
                XCTAssertEqual(graph[3]?.status, .cancelled)
                XCTAssertEqual(graph[3]?.cause, .inspector)
            case .forward:
                XCTAssertEqual(graph[2]?.forwardsTo, 3)
            case .adopt:
                XCTAssertEqual(graph[4]?.parent, 3)
            case .feeds:
                XCTAssertEqual(graph[4]?.feeds, [3])
            case .owned:
                XCTAssertEqual(graph.owner(of: 1), Owner(id: 7, name: event.text))
                XCTAssertEqual(graph.owners[7]?.name, event.text)
            case .ownerReleased:
                XCTAssertEqual(graph.owners[7]?.releasedNanos, t)
            case .contractBroken:
                XCTAssertEqual(graph[3]?.contractBroken, [event.text])
            case .delivered:
                XCTAssertEqual(graph[3]?.values, 0, "a late timing is not a value")
            }
            if kind.payload.timed {
                // Stage 3's value ran the code of its downstream, stage 2.
                XCTAssertEqual(graph[2]?.times?.own.count, 1)
                XCTAssertEqual(graph[2]?.times?.own.max, 1_500)
                XCTAssertEqual(graph[2]?.times?.withDownstream.max, 4_000)
                XCTAssertNil(graph[3]?.times)
            }
            if kind != .unknown {
                let changed = graph.snapshot().nodes != before.snapshot().nodes || graph.owners != before.owners
                XCTAssertTrue(changed, "\(kind) was folded and changed nothing")
            }
        }
    }

    // MARK: - Where kinds are handled

    /// Every `switch` that names a kind in its cases names them all and has no
    /// `default:`, and the files holding one are the files `EventKind.payload`'s
    /// documentation lists, so a reader adding a kind knows where the compiler will stop.
    func testEverySwitchOverKindsIsExhaustiveAndListed() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources")
        let names = EventKind.allCases.map { "." + String(describing: $0) }
        var found: Set<String> = []
        let files = FileManager.default.enumerator(atPath: sources.path)!.compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") && !$0.contains("Generated/") }
        for file in files {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            for body in SwitchScanner.switchBodies(in: text) {
                let labels = SwitchScanner.topLevelLabels(of: body)
                let caseText = labels.filter { $0.hasPrefix("case ") }.joined(separator: " ")
                guard caseText.contains(".ownerReleased") else { continue }  // not over kinds
                found.insert(file)
                XCTAssertFalse(labels.contains { $0.hasPrefix("default") }, "\(file): a switch over kinds has a default:")
                for name in names where !SwitchScanner.mentions(caseText, name) {
                    XCTFail("\(file): a switch over kinds does not name \(name)")
                }
            }
        }
        let declaration = try String(contentsOf: sources.appendingPathComponent("PipescopeGraph/EventKind.swift"),
                                     encoding: .utf8)
        let listed = Set(declaration.split(separator: "\n").compactMap { line -> String? in
            guard let range = line.range(of: "/// - `") else { return nil }
            let rest = line[range.upperBound...]
            return rest.firstIndex(of: "`").map { String(rest[..<$0]) }
        })
        XCTAssertEqual(found, listed, "EventKind.payload's list of the files that switch over kinds is out of date")
        XCTAssertGreaterThanOrEqual(found.count, 8)
    }
}

/// Finds `switch` statements in Swift source text, well enough for this repository's
/// code: braces in string literals are not expected inside a switch's case labels.
enum SwitchScanner {
    /// The text between each `switch`'s braces.
    static func switchBodies(in text: String) -> [Substring] {
        var bodies: [Substring] = []
        var search = text.startIndex
        while let found = text.range(of: "switch ", range: search..<text.endIndex) {
            search = found.upperBound
            guard let open = text[found.upperBound...].firstIndex(of: "{") else { break }
            var depth = 0
            var index = open
            while index < text.endIndex {
                if text[index] == "{" { depth += 1 }
                if text[index] == "}" {
                    depth -= 1
                    if depth == 0 { break }
                }
                index = text.index(after: index)
            }
            guard index < text.endIndex else { break }
            bodies.append(text[text.index(after: open)..<index])
        }
        return bodies
    }

    /// The `case …:` and `default:` labels at the switch's own level, each with the lines
    /// it spans until its colon.
    static func topLevelLabels(of body: Substring) -> [String] {
        var labels: [String] = []
        var depth = 0
        var current: String?
        for line in body.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if depth == 0, current == nil, trimmed.hasPrefix("case ") || trimmed.hasPrefix("default") {
                current = ""
            }
            if var label = current {
                label += " " + trimmed
                if trimmed.contains(":") {
                    labels.append(String(label.trimmingCharacters(in: .whitespaces).prefix { $0 != ":" }))
                    current = nil
                } else {
                    current = label
                }
            }
            for character in line {
                if character == "{" { depth += 1 }
                if character == "}" { depth -= 1 }
            }
        }
        return labels
    }

    /// Whether `labels` names `name` (`.value`, not `.valueX`).
    static func mentions(_ labels: String, _ name: String) -> Bool {
        var search = labels.startIndex
        while let found = labels.range(of: name, range: search..<labels.endIndex) {
            let next = found.upperBound < labels.endIndex ? labels[found.upperBound] : " "
            if !(next.isLetter || next.isNumber) { return true }
            search = found.upperBound
        }
        return false
    }
}
