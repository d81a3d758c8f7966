import PipescopeGraph

/// Whether the inspector is attached to a live program.
public enum ConnectionState: Equatable, Sendable {
    case connecting
    case connected
    case disconnected(String)
    /// Showing a recording, offline.
    case replay(String)
}

/// A one-line message for the user: a command's answer, or why it was not sent.
public struct Notice: Equatable, Sendable {
    public var text: String
    public var isError: Bool

    public init(text: String, isError: Bool) {
        self.text = text
        self.isError = isError
    }
}

extension AppState {
    /// The program being inspected (or the recording shown), the connection to it, its
    /// gate, and what was asked of it.
    public struct Session: Sendable {
        /// What is being inspected: "demo", or the program's name.
        public internal(set) var targetName: String
        public internal(set) var pid: Int32?
        public internal(set) var connection: ConnectionState = .connecting
        /// The program (or this inspector) is read-only.
        public internal(set) var readOnly = false
        /// The program's pipelines are paused at the gate.
        public internal(set) var paused = false
        /// Events waiting at the gate, oldest (next to be released) first.
        public internal(set) var pending: [PendingEvent] = []
        /// Which waiting event `n` releases: an index into `pending`, 0 the oldest (`>` moves it).
        public internal(set) var chosenPending = 0
        /// Digits typed before `n`.
        public internal(set) var countPrefix = 0
        /// Stages whose every value the program describes, at the user's request (`v`).
        public internal(set) var watched: Set<NodeID> = []
        /// The last answer from the program, or a refusal, for the status line.
        public internal(set) var notice: Notice?
        /// Events this inspector missed because it fell behind (the probe resynchronised it
        /// with a snapshot instead of waiting): shown beside the probe's own drops.
        public internal(set) var skippedEvents: UInt64 = 0
        /// Events per second arriving from the program.
        public internal(set) var rate = EventRate()
        /// When the program went away (the inspector's clock at its last tick before the
        /// connection ended), and why; nil while attached. Time stands still from then:
        /// the timeline, the lints and pruning go by this moment, not the wall clock.
        public internal(set) var endedAt: Int64?
        public internal(set) var endReason: String?
        /// The program's name, while the inspector waits for it to start again
        /// (`attach --wait`, or `r` after it ended) and attach to the new run.
        public internal(set) var waitingFor: String?
        /// Where history begins: at attach, or earlier from the program's flight recorder.
        public internal(set) var historyOrigin = HistoryOrigin.attach
        /// How much of the recording a replay has read, while it is still reading it.
        public internal(set) var reading: (bytes: Int, of: Int)?
        /// A replay following a recording its writer still writes (`replay --follow`): the
        /// status line says "following: being written" until the writer lets go of it.
        public internal(set) var following = false
        /// The connection came back to the same process (the probe dropped it, or a
        /// socket hiccup): the next snapshot continues this run's history.
        var reattachedSameRun = false

        init(targetName: String, pid: Int32?) {
            self.targetName = targetName
            self.pid = pid
        }

        /// Showing a recording rather than a live program.
        public var isReplay: Bool {
            if case .replay = connection { return true }
            return false
        }

        /// The program ended (or the connection to it did): what it showed stays.
        public var hasEnded: Bool {
            if case .disconnected = connection { return true }
            return false
        }

        /// The waiting event `n` will release.
        public var nextPending: PendingEvent? {
            pending.isEmpty ? nil : pending[min(chosenPending, pending.count - 1)]
        }

        mutating func setGate(_ gate: GateState) {
            paused = gate.paused
            pending = gate.paused ? gate.pending : []
        }
    }
}
