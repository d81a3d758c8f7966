import PipescopeGraph
import PipescopeModel
import PipescopeWire

extension Message {
    /// What a message from the probe means to the inspector: the one place where the
    /// wire's messages become the model's. Packed batches are unpacked with the stream's
    /// string table (`reader`), so messages must be converted in the order they came.
    ///
    /// ```swift
    /// var reader = WireStreamReader()
    /// for frame in frames { state.reduce(try Message(ServerMessage.decode(payload: frame), reader: &reader)) }
    /// ```
    ///
    /// Throws ``FrameError`` for a message with no body, or whose columns or string ids do
    /// not add up. A Welcome of a protocol version this build cannot read (a newer one)
    /// becomes a disconnection that says so.
    public init(_ serverMessage: ServerMessage, reader: inout WireStreamReader) throws {
        switch serverMessage.body {
        case .welcome(let w)?:
            // A live probe of another version refuses the Hello before it gets here; a
            // recording made by an older version is read (its batches' old shapes are
            // understood), one made by a newer version is not.
            guard ProtocolVersion.readable.contains(w.protocolVersion) else {
                self = .disconnected(ProtocolVersion.mismatchMessage(local: ProtocolVersion.current,
                                                                     remote: w.protocolVersion))
                return
            }
            self = ProbeWelcome(w).attached
        case .snapshot(let snapshot)?:
            self = .snapshot(try reader.snapshot(snapshot))
        case .packed(let packed)?:
            self = .batch(try reader.batch(packed))
        case .batch(let legacy)?:
            self = .batch(EventBatch(legacy: legacy))
        case .ack(let ack)?:
            self = .acknowledged(command: ack.commandID, ok: ack.ok, text: ack.message)
        case .error(let error)?:
            self = .disconnected(error.message)
        case nil:
            throw FrameError.malformed("a message of a kind this inspector does not know")
        }
    }
}
