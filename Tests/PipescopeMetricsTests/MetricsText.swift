import Prometheus

/// A registry's emitted text, read back: the samples of one metric by their label text,
/// and its `# TYPE` line. What the tests assert on, so they check what a scrape reads.
struct MetricsText {
    let text: String

    init(_ registry: PrometheusCollectorRegistry) {
        text = registry.emitToString()
    }

    /// The samples named exactly `name`: `{location="A.swift:3",status="active"}` → "1"
    /// (the braces included; "" for a sample without labels).
    func samples(_ name: String) -> [String: String] {
        var found: [String: String] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard line.hasPrefix(name) else { continue }
            let rest = line.dropFirst(name.count)
            guard let first = rest.first, first == "{" || first == " " else { continue }
            guard let space = rest.lastIndex(of: " ") else { continue }
            found[String(rest[..<space])] = String(rest[rest.index(after: space)...])
        }
        return found
    }

    /// The `# TYPE` line's type for `name`, nil when there is none.
    func type(of name: String) -> String? {
        for line in text.split(separator: "\n") where line.hasPrefix("# TYPE \(name) ") {
            return String(line.dropFirst("# TYPE \(name) ".count))
        }
        return nil
    }
}
