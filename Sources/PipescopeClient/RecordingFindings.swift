import PipescopeGraph
import PipescopeModel

/// A recording's findings (``FindingCollector``), folded as it is read: every lint its run
/// raised, judged at the moments of the run, not only on its last graph. What
/// `pipescope check` prints.
///
/// ```swift
/// let check = try RecordingFindings.read(path: "app.pipescope", linter: Linter())
/// check.findings.map(\.line)      // ["/src/main.swift:14: unretained-cancellable: …"]
/// check.recording.end             // .complete, or how it was cut short
/// ```
public struct RecordingFindings {
    /// The fold, judged up to the recording's last event.
    public private(set) var collector: FindingCollector
    /// What was read, counted as ``Recording/read(path:)`` counts it (its `messages` empty).
    public private(set) var recording = Recording()

    public var findings: [Finding] { collector.findings }

    /// Reads the recording at `path` to its end, judging it with `linter` as it goes.
    /// Throws a ``Recording/ReadError`` as ``Recording/read(path:)`` does (a file that is
    /// no recording, or cannot be opened); one cut off or damaged after some messages is
    /// judged up to there (``Recording/end`` says so).
    public static func read(path: String, linter: Linter, retention: Retention? = .standard) throws -> RecordingFindings {
        var check = RecordingFindings(collector: FindingCollector(linter: linter, retention: retention))
        var recording = Recording()
        try recording.read(path: path, follow: false, pollSeconds: 0.05, waiting: {}) { message in
            switch message {
            case .snapshot(let s): check.collector.load(s)
            case .batch(let b): check.collector.fold(b)
            default: break
            }
        }
        check.collector.finish(now: recording.lastEventNanos)
        check.recording = recording
        return check
    }
}
