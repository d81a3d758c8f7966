import PipescopeGraph

/// Events by their number (the probe's sequence: one number everywhere), and the texts
/// kept beside the entries.
extension History {
    /// The number of the event at `position` by its run (0 when unnumbered); a position
    /// after the newest gets the number the newest run would give it.
    func id(at position: Int) -> EventID {
        var low = 0, high = idRuns.count
        while low < high {
            let mid = (low + high) / 2
            if idRuns[mid].position <= position { low = mid + 1 } else { high = mid }
        }
        guard low > 0 else { return 0 }
        let run = idRuns[low - 1]
        return run.id == 0 ? 0 : run.id + EventID(position - run.position)
    }

    /// The number of the oldest kept event; nil when none is kept or they have none (a
    /// recording made before events were numbered).
    public var firstID: EventID? {
        guard end > start else { return nil }
        let id = id(at: start + 1)
        return id == 0 ? nil : id
    }

    /// The number of the newest kept event; nil as for ``firstID``.
    public var lastID: EventID? {
        guard end > start else { return nil }
        let id = id(at: end)
        return id == 0 ? nil : id
    }

    /// The position of the event numbered `id`, by binary search over the runs of
    /// numbers (they increase with position); nil when it is not kept (evicted, skipped,
    /// or never numbered).
    public func position(ofEvent id: EventID) -> Int? {
        guard id != 0 else { return nil }
        var low = 0, high = idRuns.count
        while low < high {
            let mid = (low + high) / 2
            if idRuns[mid].id <= id { low = mid + 1 } else { high = mid }
        }
        guard low > 0, idRuns[low - 1].id != 0 else { return nil }
        let run = idRuns[low - 1]
        let position = run.position + Int(id - run.id)
        let runEnd = low < idRuns.count ? idRuns[low].position : end + 1
        return position < runEnd && position > start && position <= end ? position : nil
    }

    /// The event numbered `id`: from the history, else from the probe's recent causes
    /// (``earlier``); its position when the history has it.
    public func event(numbered id: EventID) -> (position: Int?, event: StageEvent)? {
        if let position = position(ofEvent: id), let event = event(at: position) { return (position, event) }
        var low = 0, high = earlier.count
        while low < high {
            let mid = (low + high) / 2
            if earlier[mid].id < id { low = mid + 1 } else { high = mid }
        }
        return low < earlier.count && earlier[low].id == id ? (nil, earlier[low]) : nil
    }

    /// Whether the event at `position` had a cause the entry could not number (more than
    /// 4 billion events back).
    public func causeIsTooFar(at position: Int) -> Bool {
        entry(at: position - 1)?.causeIsTooFar ?? false
    }

    /// The text of the event at absolute `index` (binary search: texts are in order).
    func text(at index: Int) -> String {
        var low = 0, high = texts.count
        while low < high {
            let mid = (low + high) / 2
            if texts[mid].index < index { low = mid + 1 } else { high = mid }
        }
        return low < texts.count && texts[low].index == index ? texts[low].text : ""
    }
}
