import PipescopeGraph
import PipescopeWire

extension WireStreamWriter {
    /// A snapshot small enough for one frame, as the message that frame carries: what
    /// codec tests compare. A snapshot in parts is read back with ``messages(_:)``.
    public mutating func message(_ snapshot: GraphSnapshot) -> ServerMessage {
        let all = messages(snapshot)
        precondition(all.count == 1, "a snapshot of \(all.count) parts: use messages(_:)")
        return all[0]
    }

    /// The snapshot's frames (``frames(_:)``), each decoded back into its message.
    public mutating func messages(_ snapshot: GraphSnapshot) -> [ServerMessage] {
        frames(snapshot).map { frame in
            // The writer's own frames always decode.
            try! ServerMessage.decode(payload: frame.dropFirst(Framing.headerSize))
        }
    }
}
