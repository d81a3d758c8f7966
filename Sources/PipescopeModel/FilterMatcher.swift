import Foundation
import PipescopeGraph

/// Matches stages against the `/` filter: a case-insensitive substring, or a regular
/// expression when the text is one (it compiles and uses a regex character), against
/// the operator, the publisher's type, and the last value. (Not the subscriber: a
/// stage would match its downstream's name.)
struct FilterMatcher {
    private let text: String
    private let regex: NSRegularExpression?

    init(_ text: String) {
        self.text = text.lowercased()
        let looksLikeRegex = text.rangeOfCharacter(from: CharacterSet(charactersIn: "^$.*+?()[]{}|\\")) != nil
        regex = looksLikeRegex ? try? NSRegularExpression(pattern: text, options: [.caseInsensitive]) : nil
    }

    func matches(_ node: NodeSummary) -> Bool {
        for field in [node.operatorName, node.publisherType, node.lastValue ?? ""] {
            if let regex {
                if regex.firstMatch(in: field, range: NSRange(field.startIndex..., in: field)) != nil { return true }
            } else if field.lowercased().contains(text) {
                return true
            }
        }
        return false
    }
}
