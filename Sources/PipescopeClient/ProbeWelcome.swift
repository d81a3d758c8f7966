import PipescopeModel
import PipescopeWire

/// Who the program on the other end is, as its probe's Welcome said: what the command
/// line shows, and what a recording's header keeps.
///
/// This is the one place a Welcome becomes the model's `.attached` message: the
/// connection's decoding (``Message/init(_:reader:)``), the first attach and every
/// reconnection go through ``attached``.
///
/// ```swift
/// let session = try ProbeSession.attach(target: "4242")
/// print("\(session.welcome.processName) (pid \(session.welcome.pid))")
/// state.reduce(session.welcome.attached)
/// ```
public struct ProbeWelcome: Sendable, Equatable {
    /// The program's process name.
    public var processName: String { wire.processName }
    /// The program's pid.
    public var pid: Int32 { wire.pid }
    /// Whether the probe took this inspector as read-only (no cancel, no pause).
    public var readOnly: Bool { wire.readonly }
    /// When the program started, in nanoseconds since 1970.
    public var startTimeNanos: Int64 { wire.startTimeNs }
    /// The protocol version the probe speaks.
    public var protocolVersion: UInt32 { wire.protocolVersion }

    /// The Welcome as it came, written as it is at the head of a recording.
    let wire: WireWelcome

    init(_ wire: WireWelcome) {
        self.wire = wire
    }

    /// The model's message for this Welcome: who the program is, and whether the
    /// inspector may change it.
    public var attached: Message {
        .attached(process: processName, pid: pid, readOnly: readOnly)
    }
}

extension ProbeWelcome {
    /// The wire protocol version this build speaks: what its probe's Welcome reports, and
    /// what an inspector needs a program's Welcome to report (`pipescope --version`).
    public static var currentProtocolVersion: UInt32 { ProtocolVersion.current }
    /// This build's release (``ReleaseVersion``).
    public static var release: String { ReleaseVersion.current }
}
