import Foundation
import PipescopeGraph

/// Matches stages against the `/` filter: a case-insensitive substring, or a regular
/// expression when the text is one (it compiles and uses a regex character), against
/// the operator, the publisher's type, the last value, and where the stage was made
/// (its own location or its pipeline's, as the tree shows it): `Feed.swift`,
/// `Feed.swift:88`, the full path, or the function. (Not the subscriber: a stage would
/// match its downstream's name.)
struct FilterMatcher {
    private let text: String
    private let regex: NSRegularExpression?

    init(_ text: String) {
        self.text = text.lowercased()
        let looksLikeRegex = text.rangeOfCharacter(from: CharacterSet(charactersIn: "^$.*+?()[]{}|\\")) != nil
        regex = looksLikeRegex ? try? NSRegularExpression(pattern: text, options: [.caseInsensitive]) : nil
    }

    func matches(_ node: NodeSummary, location: SourceLocation? = nil) -> Bool {
        var fields = [node.operatorName, node.publisherType, node.lastValue ?? ""]
        if let location {
            fields.append(location.short)
            if let file = location.file { fields.append(location.line.map { "\(file):\($0)" } ?? file) }
            if let function = location.function { fields.append(function) }
        }
        for field in fields {
            if let regex {
                if regex.firstMatch(in: field, range: NSRange(field.startIndex..., in: field)) != nil { return true }
            } else if field.lowercased().contains(text) {
                return true
            }
        }
        return false
    }
}
