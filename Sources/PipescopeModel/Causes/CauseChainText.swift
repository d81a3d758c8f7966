import PipescopeGraph

/// A ``CauseChain`` as text: one line (the status line, a bug report) or one hop a line
/// (the explain overlay).
///
/// ```
/// Sink got 46 ← Filter 46 ← Map 23→46 (2.1 ms, thread worker 1) ← ReceiveOn 23 ← PassthroughSubject sent 23 on main
/// ```
/// A hop says its thread and the time since its cause where they change or matter: the
/// thread when it differs from its cause's, the gap when the thread changes or the gap is
/// 1 ms or more. The origin says its thread. A chain that stops early says why
/// (``CauseChainEnd``).
public enum CauseChainText {
    /// The chain on one line, newest first.
    ///
    /// Hops whose values were not described (sampled) read as one gap, named once:
    /// `Sink ← ReceiveOn ← Map: not described (sampled, …) ← PassthroughSubject sent "s" on main`.
    public static func line(_ chain: CauseChain) -> String {
        guard let first = chain.hops.first else { return "" }
        // Each part, and whether it is a value without words (part of a gap).
        var parts: [(text: String, gap: Bool)] = []
        if let head = head(first) {
            parts.append(isUndescribed(first) ? (first.receiver, true) : (head, false))
        }
        for (i, hop) in chain.hops.enumerated() {
            let cause = i + 1 < chain.hops.count ? chain.hops[i + 1] : nil
            let isOrigin = cause == nil && chain.end == .origin
            let gap = isUndescribed(hop) && !isOrigin
            var part = hop.operatorName + (gap ? "" : " " + what(hop, cause: cause, isOrigin: isOrigin))
            if let cause, hop.madeFor != nil { part += ", " + madeFor(cause) }
            if let cause, let note = note(hop, cause: cause) { part += " (\(note))" }
            parts.append((part, gap))
        }
        var pieces: [String] = []
        for (i, part) in parts.enumerated() {
            let gapEnds = part.gap && (i + 1 == parts.count || !parts[i + 1].gap)
            pieces.append(part.text + (gapEnds ? ": " + gapWords : ""))
        }
        var text = pieces.joined(separator: " ← ")
        switch chain.end {
        case .origin: break
        case .earlierThanHistory(let id): text += " ← #\(id): earlier than the history kept"
        case .tooFarBack: text += " ← earlier than the history kept"
        case .notRecorded: text += " (no causes recorded: the recording predates them)"
        case .kindHasNoCause: text += " (a \(first.kind) event records no cause)"
        }
        return text
    }

    /// The chain one hop a line, for the overlay: the receiver's line, then each hop
    /// (`← Map #2  23→46  thread main  +2.1 ms  Feed.swift:12`), the inputs a gathering
    /// stage gathered under it, and how the chain ends.
    public static func lines(_ chain: CauseChain) -> [String] {
        guard let first = chain.hops.first else { return [] }
        var lines: [String] = []
        if let head = head(first) { lines.append(isUndescribed(first) ? "\(first.receiver) got —" : head) }
        for (i, hop) in chain.hops.enumerated() {
            let cause = i + 1 < chain.hops.count ? chain.hops[i + 1] : nil
            let isOrigin = cause == nil && chain.end == .origin
            var fields = ["← \(hop.operatorName) #\(hop.stage)",
                          isUndescribed(hop) && !isOrigin ? "—" : what(hop, cause: cause, isOrigin: isOrigin)]
            fields.append("thread " + (hop.thread.isEmpty ? "?" : hop.thread))
            if let cause { fields.append("+" + CellText.duration(hop.time - cause.time)) }
            if let location = hop.location { fields.append(location) }
            lines.append(fields.joined(separator: "  "))
            if let cause, let made = hop.madeFor {
                let inner = made.stage == hop.stage ? "" : " (by #\(made.stage), downstream of it)"
                lines.append("    \(hop.operatorName) #\(hop.stage), \(madeFor(cause))\(inner)")
            }
            if let gathered = hop.gathered {
                for input in gathered {
                    lines.append("    gathered \(valueText(input.value)) from #\(input.stage), thread "
                        + (input.thread.isEmpty ? "?" : input.thread) + ", " + CellText.duration(hop.time - input.time) + " before")
                }
                if !hop.gatheredAll { lines.append("    and earlier inputs: earlier than the history kept") }
            }
        }
        if let gap = gapLine(chain) { lines.append(gap) }
        lines.append(endLine(chain))
        return lines
    }

    /// Where sampling left the chain without values, once: `Not described (—) at #3
    /// ReceiveOn, #2 Map: sampled, 1 value per stage per 25 ms; v describes every value`.
    /// Nil when every value hop has its words.
    public static func gapLine(_ chain: CauseChain) -> String? {
        let undescribed = chain.hops.filter(isUndescribed)
        guard !undescribed.isEmpty else { return nil }
        let names = undescribed.map { "#\($0.stage) \($0.operatorName)" }.joined(separator: ", ")
        return "Not described (—) at \(names): \(sampling)"
    }

    /// A value hop the probe kept no words of.
    static func isUndescribed(_ hop: CauseHop) -> Bool { hop.kind == .value && (hop.value ?? "").isEmpty }

    /// Why a value has no words, and what gives it some.
    static var sampling: String { "sampled, 1 value per stage per \(FlushInterval.text); v describes every value" }

    /// The one-line chain's words after a gap.
    static var gapWords: String { "not described (\(sampling))" }

    /// How the chain ends, in a sentence.
    public static func endLine(_ chain: CauseChain) -> String {
        switch chain.end {
        case .origin:
            guard let last = chain.hops.last else { return "" }
            return chain.hops.count == 1
                ? "Origin: no recorded cause (\(last.operatorName) \(last.kind == .value ? "sent it" : "did it") by itself)"
                : "Origin: \(last.operatorName) #\(last.stage), no recorded cause before it"
        case .earlierThanHistory(let id):
            return "Earlier than the history kept: its cause #\(id) is no longer kept"
        case .tooFarBack:
            return "Earlier than the history kept: its cause is too far back"
        case .notRecorded:
            return "No causes recorded: this recording was made before Pipescope recorded them"
        case .kindHasNoCause:
            return "A \(chain.hops.first?.kind.word ?? "") event records no cause"
        }
    }

    /// "Sink got 46": the newest event as its receiver saw it; nil for a cancel (it goes
    /// upstream, not to the receiver).
    static func head(_ hop: CauseHop) -> String? {
        switch hop.kind {
        case .value: return "\(hop.receiver) got \(valueText(hop.value ?? ""))"
        case .finished: return "\(hop.receiver) got finished"
        case .failed: return "\(hop.receiver) got failed: \(hop.detail ?? "")"
        case .unknown, .subscribe, .subscription, .request, .demand, .cancelled, .forward, .adopt, .feeds, .owned,
             .ownerReleased, .contractBroken, .delivered:
            return nil
        }
    }

    /// What the hop did: `46`, `23→46` (its input, when the cause is a value delivered
    /// into this stage: not a flatMap's outer value that made an inner),
    /// `gathered 3 → [1, 2, 3]`, `sent 23 on main` (the origin), `cancelled`.
    static func what(_ hop: CauseHop, cause: CauseHop?, isOrigin: Bool) -> String {
        let on = hop.thread.isEmpty ? "" : " on \(hop.thread)"
        switch hop.kind {
        case .value:
            let out = valueText(hop.value ?? "")
            if isOrigin { return "sent \(out)\(on)" }
            if let gathered = hop.gathered {
                return "gathered \(gathered.count)\(hop.gatheredAll ? "" : "+") → \(out)"
            }
            if let cause, cause.kind == .value, cause.receiverStage == hop.stage, let input = cause.value, !input.isEmpty,
               let output = hop.value,
               !output.isEmpty, input != output {
                return "\(input)→\(output)"
            }
            return out
        case .finished: return "finished" + (isOrigin ? on : "")
        case .failed: return "failed: \(hop.detail ?? "")" + (isOrigin ? on : "")
        case .cancelled:
            let by = hop.detail.map { $0 == CancelCause.downstream.rawValue ? "" : " by \($0)" } ?? ""
            return "cancelled\(by)" + (isOrigin ? on : "")
        case .unknown, .subscribe, .subscription, .request, .demand, .forward, .adopt, .feeds, .owned, .ownerReleased,
             .contractBroken, .delivered:
            return hop.kind.word
        }
    }

    /// `made for PassthroughSubject's value "s"`: what an inner publisher was made for
    /// (the event being delivered when it subscribed), `cause` being that event's hop.
    static func madeFor(_ cause: CauseHop) -> String {
        let what: String
        switch cause.kind {
        case .value: what = "value " + (cause.value.map { $0.isEmpty ? "(not described)" : "\"\($0)\"" } ?? "")
        case .finished: what = "completion"
        case .failed: what = "failure" + (cause.detail.map { " \"\($0)\"" } ?? "")
        case .cancelled: what = "cancel"
        case .unknown, .subscribe, .subscription, .request, .demand, .forward, .adopt, .feeds, .owned, .ownerReleased,
             .contractBroken, .delivered:
            what = cause.kind.word
        }
        return "made for \(cause.operatorName)'s \(what)"
    }

    /// "2.1 ms, thread worker 1" when the thread changed from the cause's; "2.1 ms" when
    /// the gap is 1 ms or more; nil when neither matters.
    static func note(_ hop: CauseHop, cause: CauseHop) -> String? {
        let elapsed = hop.time - cause.time
        let moved = !hop.thread.isEmpty && hop.thread != cause.thread
        if moved { return "\(CellText.duration(elapsed)), thread \(hop.thread)" }
        return elapsed >= 1_000_000 ? CellText.duration(elapsed) : nil
    }

    /// A value's text, or "(not described)" for a value the probe kept no text of.
    static func valueText(_ text: String) -> String { text.isEmpty ? "(not described)" : text }
}
