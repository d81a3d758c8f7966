import Foundation
import PipescopeGraph

/// The JSON document `pipescope check --json` prints: a run's findings, first raised first.
///
/// ```json
/// {"findings": [{"lint": "unretained-cancellable", "message": "cancelled as soon as …",
///   "node": 4, "count": 500, "at": {"file": "/src/App/main.swift", "line": 14, "function": "run()"}}]}
/// ```
/// `lint`, `node`, `message` and `at` are as each lint's in `snapshot --json` (`at` the
/// line to change, null when unknown, in the same form); `node` is the first stage it was
/// raised on, and `count` how many stages raised the same mistake in the same place.
public enum FindingsJSON {
    public static func render(_ findings: [Finding]) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(Document(findings: findings.map(Entry.init)))) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    struct Document: Encodable {
        var findings: [Entry]
    }

    struct Entry: Encodable {
        var finding: Finding

        init(_ finding: Finding) { self.finding = finding }

        enum CodingKeys: String, CodingKey { case lint, message, node, count, at }

        func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(finding.kind.rawValue, forKey: .lint)
            try c.encode(finding.message, forKey: .message)
            try c.encode(finding.node, forKey: .node)
            try c.encode(finding.count, forKey: .count)
            try c.encode(finding.at.map(SnapshotJSON.LocationJSON.init), forKey: .at)  // null, not omitted
        }
    }
}
