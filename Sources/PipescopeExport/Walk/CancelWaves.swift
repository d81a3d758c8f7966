import PipescopeGraph

/// Follows cancels as they travel upstream, to draw an arrow from the stage that
/// cancelled to each stage the cancel reached.
///
/// A cancel starts a wave at its origin:
/// - the stage the inspector cancelled (cause `.inspector`);
/// - a root whose owner was released (cause `.owner`), or whose subscriber cancelled it;
/// - a stage that cancelled its upstream itself (`prefix`, `first`, a failing `tryMap`, a
///   `switchToLatest` dropping an inner): the cancelled stage's downstream, not cancelled
///   by this wave.
///
/// Every stage the same cancel ends joins the wave: the stages sharing the cancelled
/// subscription object (the event's share group), and the upstream stages cancelled
/// next by their own events, whose downstream is already in the wave.
///
/// Waves are drawn at the end of a batch (``TraceWalk/writeWaves()``), each as one run:
/// the origin's instant with an arrow to each reached stage's instant. `Track` is where
/// the format draws a stage (``TraceWriter/Track``).
struct CancelWaves<Track> {
    /// A stage at one moment, with the track it is drawn on (nil when not drawn).
    struct Point {
        var id: NodeID
        var time: Int64
        var track: Track?
    }

    struct Wave {
        var origin: Point
        /// The origin was cancelled by this cancel (its instant is its own "cancelled");
        /// false for a live stage that cancelled its upstream.
        var originCancelled: Bool
        var cause: CancelCause
        /// Whether the origin's instant is already written (a stage joined in a later batch).
        var originWritten = false
        /// Reached stages not yet written.
        var pending: [Point] = []
        /// Every stage in the wave, to forget them with it.
        var members: [NodeID] = []
    }

    private(set) var waves: [Int: Wave] = [:]
    private var waveOf: [NodeID: Int] = [:]
    private var nextWave = 1
    /// Waves with something to write, in the order they changed.
    private var changed: [Int] = []

    /// Records a cancel event on `node` that ended `reached` (downstream first).
    /// `downstream` is the stage below the first reached one, if the graph knows it.
    mutating func cancelled(_ reached: [Point], node: NodeID, cause: CancelCause, time: Int64, downstream: Point?) {
        guard let top = reached.first else { return }
        if cause == .downstream, let below = downstream, let w = waveOf[below.id] {
            join(w, reached)
            return
        }
        let origin: Point
        let originCancelled: Bool
        var rest = reached
        switch cause {
        case .inspector:
            let index = reached.firstIndex { $0.id == node } ?? 0
            origin = reached[index]
            rest.remove(at: index)
            originCancelled = true
        case .owner:
            origin = top
            rest.removeFirst()
            originCancelled = true
        case .downstream:
            if let below = downstream {
                // A stage cancelling its upstream itself (prefix, first, a failing tryMap).
                origin = Point(id: below.id, time: time, track: below.track)
                originCancelled = false
            } else {
                // The root's subscriber (a sink) cancelled.
                origin = top
                rest.removeFirst()
                originCancelled = true
            }
        }
        let w = nextWave
        nextWave += 1
        waves[w] = Wave(origin: origin, originCancelled: originCancelled, cause: cause, members: [origin.id])
        waveOf[origin.id] = w
        changed.append(w)
        join(w, rest)
    }

    private mutating func join(_ w: Int, _ points: [Point]) {
        guard var wave = waves[w] else { return }
        if wave.pending.isEmpty, wave.originWritten { changed.append(w) }
        for point in points {
            wave.pending.append(point)
            wave.members.append(point.id)
            waveOf[point.id] = w
        }
        waves[w] = wave
    }

    /// The waves with something to write, in order; each is marked written.
    mutating func takeChanged() -> [(wave: Wave, continued: Bool)] {
        var out: [(Wave, Bool)] = []
        for w in changed {
            guard var wave = waves[w] else { continue }
            if wave.originWritten && wave.pending.isEmpty { continue }
            out.append((wave, wave.originWritten))
            wave.originWritten = true
            wave.pending = []
            waves[w] = wave
        }
        changed.removeAll()
        return out
    }

    /// Forgets waves that started before `time` (a cancel travels upstream within one
    /// call, nanoseconds long; anything this old is over).
    mutating func forget(before time: Int64) {
        for (w, wave) in waves where wave.origin.time < time && wave.pending.isEmpty {
            for id in wave.members where waveOf[id] == w { waveOf[id] = nil }
            waves[w] = nil
        }
    }
}
