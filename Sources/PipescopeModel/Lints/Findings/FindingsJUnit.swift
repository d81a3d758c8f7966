import Foundation
import PipescopeGraph

/// The JUnit XML report `pipescope check --junit FILE` writes, in the shape Jenkins,
/// GitLab, GitHub's test reporters and Azure read: one `<testsuite>` in a `<testsuites>`,
/// one failed `<testcase>` per finding (its `<failure>` carries the message, and the text
/// `file:line: message`), and one passed `<testcase>` per lint that ran and found nothing,
/// so a clean run shows what was checked rather than an empty suite. It is valid against
/// the schemas Jenkins validates with (its xunit plugin's junit-10.xsd, and junit-4.xsd,
/// which JUnit 5 checks its own reports against): no attribute beyond theirs.
///
/// ```xml
/// <testsuites name="pipescope check" tests="11" failures="1" errors="0" time="0">
///   <testsuite name="app.pipescope" tests="11" failures="1" errors="0" skipped="0" time="0" timestamp="2026-11-29T11:02:03">
///     <testcase classname="pipescope.unretained-cancellable" name="unretained-cancellable at main.swift:14 (stage #4)" time="0">
///       <failure type="unretained-cancellable" message="cancelled as soon as …">/src/main.swift:14: cancelled as soon as …</failure>
///     </testcase>
///     <testcase classname="pipescope.stalled" name="stalled" time="0"/>
///   </testsuite>
/// </testsuites>
/// ```
public enum FindingsJUnit {
    /// The report on `findings` of a run named `suite` (the recording's file name) that
    /// ran the lints `ran`; `timestamp` (wall-clock nanoseconds, the run's end) is given
    /// in UTC without a zone, as the JUnit schema has it.
    public static func render(_ findings: [Finding], suite: String, ran: [LintKind], timestamp: Int64?) -> String {
        let found = Set(findings.map(\.kind))
        let clean = ran.filter { !found.contains($0) }
        let tests = findings.count + clean.count
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        xml += "<testsuites name=\"pipescope check\" tests=\"\(tests)\" failures=\"\(findings.count)\" errors=\"0\" time=\"0\">\n"
        var suiteAttributes = "name=\"\(escape(suite))\" tests=\"\(tests)\" failures=\"\(findings.count)\" errors=\"0\" skipped=\"0\" time=\"0\""
        if let timestamp { suiteAttributes += " timestamp=\"\(isoTime(timestamp))\"" }
        xml += "  <testsuite \(suiteAttributes)>\n"
        for finding in findings {
            let place = finding.at.map(fileLine) ?? "(place unknown)"
            // No `file` and `line` attributes: Jenkins' schemas (junit-4.xsd, junit-10.xsd) allow
            // none beside name, classname, time (a strict reader refuses the report); the
            // place is in the name and starts the failure's text instead.
            let attributes = "classname=\"pipescope.\(escape(finding.kind.rawValue))\""
                + " name=\"\(escape("\(finding.kind.rawValue) at \(finding.at?.short ?? "an unknown place") (stage #\(finding.node))"))\""
            xml += "    <testcase \(attributes) time=\"0\">\n"
            let times = finding.count > 1 ? " (\(finding.count) stages)" : ""
            xml += "      <failure type=\"\(escape(finding.kind.rawValue))\" message=\"\(escape(finding.message + times))\">"
                + escape("\(place): \(finding.message)\(times)\nstage #\(finding.node)") + "</failure>\n"
            xml += "    </testcase>\n"
        }
        for kind in clean {
            xml += "    <testcase classname=\"pipescope.\(escape(kind.rawValue))\" name=\"\(escape(kind.rawValue))\" time=\"0\"/>\n"
        }
        xml += "  </testsuite>\n</testsuites>\n"
        return xml
    }

    /// `/src/main.swift:14`, or what is known of the place.
    static func fileLine(_ l: SourceLocation) -> String {
        guard let file = l.file else { return l.short }
        return l.line.map { "\(file):\($0)" } ?? file
    }

    /// Text as XML character data or an attribute value: the five markup characters as
    /// entities, and the control characters XML 1.0 forbids (a value's text can hold
    /// any) as U+FFFD, since no entity may name them.
    static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\n": out += "&#10;"
            case "\t": out += "&#9;"
            case "\r": out += "&#13;"
            case _ where scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF
                || (0xD800...0xDFFF).contains(scalar.value):
                out += "\u{FFFD}"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// `2026-11-29T11:02:03`: the schema's `xs:dateTime` without a zone, in UTC.
    static func isoTime(_ nanos: Int64) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss"
        return formatter.string(from: Date(timeIntervalSince1970: Double(nanos) / 1e9))
    }
}
