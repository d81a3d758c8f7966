import NIOCore
import PipescopeWire

/// The most a probe gives the peers that connect to it, so that nothing a client does
/// can use up the program's file descriptors or memory.
///
/// Whatever connects, the probe holds at most ``inspectors`` + ``handshakes``
/// connections (one descriptor each; 16 by default), and one more for an instant while
/// it is accepted and another is turned away; plus its listening sockets and its event
/// loop's own three. Connections beyond that are accepted and closed at once, with an
/// Error that says why.
///
/// ```swift
/// var limits = ServerLimits.standard
/// limits.helloTimeout = .milliseconds(500)
/// let server = try ProbeServer(probe: probe, path: path, limits: limits)
/// ```
package struct ServerLimits: Sendable {
    /// Inspectors attached at once (they said Hello). The next one is refused with a
    /// message naming the limit.
    var inspectors = 8
    /// Connections that have not said Hello yet. When one more arrives, the oldest of
    /// them is closed to make room: a flood of silent connections can delay an
    /// inspector, which says Hello at once, but not lock it out.
    var handshakes = 8
    /// How long a new connection may take to say Hello before it is closed.
    var helloTimeout = TimeAmount.seconds(2)
    /// Connections the kernel queues before the probe accepts them (the listen
    /// backlog). They hold no descriptor of the program's; the kernel refuses more.
    var backlog: Int32 = 16
    /// The kernel's send buffer for each connection (SO_SNDBUF, which Linux doubles).
    /// Set, not left to the system default (from 208 KiB to several MiB), so that how
    /// far an inspector may fall behind before it is skipped is the same on every machine.
    var sendBuffer = 256 * 1024
    /// Bytes the probe queues for one inspector beyond the kernel's buffer. Above `high`
    /// the inspector counts as slow: it is skipped, and resynchronised with a snapshot
    /// once its queue is back under `low`.
    var queued = ChannelOptions.Types.WriteBufferWaterMark(low: 256 * 1024, high: 1024 * 1024)
    /// The most one part of a snapshot carries (``SnapshotParts/partBytes``): a snapshot
    /// bigger than that travels in parts, each a frame within the frame limit.
    var snapshotPart = SnapshotParts.partBytes
    /// Bytes of batches the probe queues for an inspector behind a snapshot bigger than
    /// `queued.high` (which alone makes it slow), while it reads that snapshot. Past
    /// this it is slow, as any other. Without it, an inspector of a program with a big
    /// graph and a busy stream would be skipped behind every snapshot and get nothing
    /// but snapshots.
    var catchUp = 8 * 1024 * 1024
    /// Snapshots of more stages than this are encoded on a thread of their own, so that
    /// the event loop goes on draining the tap's buffer meanwhile (30,000 stages take
    /// most of a second to encode, longer than the buffer lasts at 100,000 events a
    /// second).
    var encodeApart = 2_000

    /// What ``Pipescope/start(retention:flightRecorder:)`` uses; Attaching.md in the DocC catalog documents these numbers.
    static package let standard = ServerLimits()

    /// Every connection the probe holds at once, at most.
    var connections: Int { inspectors + handshakes }
}
