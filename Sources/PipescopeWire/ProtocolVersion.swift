/// The version of the wire protocol spoken by this build.
///
/// Both sides send it first. A peer with another version gets an ``Pipescope_V1_Error``
/// that names both versions, instead of undecodable frames.
public enum ProtocolVersion {
    public static let current: UInt32 = 5

    /// The versions whose messages this build understands: a recording keeps the
    /// version of the probe that made it, and versions 1 to 4 replay.
    public static let readable: ClosedRange<UInt32> = 1...current

    /// The message a person reads when the two sides disagree.
    public static func mismatchMessage(local: UInt32, remote: UInt32) -> String {
        "protocol version mismatch: this side speaks version \(local), the other side \(remote). "
            + "Use a pipescope inspector built from the same release as the program's Pipescope library."
    }
}
