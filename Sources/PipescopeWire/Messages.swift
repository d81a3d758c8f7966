import SwiftProtobuf

// Short names for the generated types. The generated names keep the proto package
// (`pipescope.v1`) so that a future version can live beside this one.
public typealias ServerMessage = Pipescope_V1_ServerMessage
public typealias ClientMessage = Pipescope_V1_ClientMessage
public typealias WireWelcome = Pipescope_V1_Welcome
public typealias WireSnapshot = Pipescope_V1_Snapshot
/// Version 1's batch: only read, from old recordings (see ``EventBatch/init(legacy:)``).
public typealias WireEventBatch = Pipescope_V1_EventBatch
public typealias WireEvent = Pipescope_V1_Event
public typealias WireEventKind = Pipescope_V1_EventKind
public typealias WireNodeInfo = Pipescope_V1_NodeInfo
public typealias WireNodeState = Pipescope_V1_NodeState
public typealias WireTimeHistogram = Pipescope_V1_TimeHistogram
public typealias WireInnerAnswers = Pipescope_V1_InnerAnswersState
public typealias WireSourceLocation = Pipescope_V1_SourceLocation
public typealias WireStatus = Pipescope_V1_Status
public typealias WireCancelCause = Pipescope_V1_CancelCause
public typealias WireCommand = Pipescope_V1_Command
public typealias WireAck = Pipescope_V1_Ack
public typealias WireBatchTrailer = Pipescope_V1_BatchTrailer
public typealias WirePendingEvent = Pipescope_V1_PendingEvent
public typealias WirePipelineDrops = Pipescope_V1_PipelineDrops
public typealias WirePackedBatch = Pipescope_V1_PackedBatch
public typealias WireLocationColumns = Pipescope_V1_LocationColumns
public typealias WireStageCodeColumns = Pipescope_V1_StageCodeColumns
public typealias WireRecentEvents = Pipescope_V1_RecentEvents

/// Encoding a message into a frame and decoding one back, with errors a person can read.
public protocol FramedMessage: SwiftProtobuf.Message {}

extension ServerMessage: FramedMessage {}
extension ClientMessage: FramedMessage {}

extension FramedMessage {
    /// The message as one frame: length header, then the protobuf bytes.
    public func framed() -> [UInt8] {
        // Serializing a message built in memory fails only for missing required fields,
        // which proto3 does not have.
        let payload: [UInt8] = (try? serializedBytes()) ?? []
        return Framing.frame(payload)
    }

    /// Decodes one frame's payload. Unknown fields are kept and ignored (forward
    /// compatible); bytes that are not this message throw ``FrameError/malformed(_:)``.
    public static func decode<Bytes: Collection>(payload: Bytes) throws -> Self
    where Bytes.Element == UInt8 {
        do {
            return try Self(serializedBytes: Array(payload))
        } catch {
            throw FrameError.malformed("\(Self.protoMessageName) could not be decoded: \(Self.words(for: error))")
        }
    }

    /// What a decoding error means, in words (never the library's case name).
    static func words(for error: Error) -> String {
        switch error as? BinaryDecodingError {
        case .truncated?: return "a field runs past the end of the frame"
        case .invalidUTF8?: return "a text field is not UTF-8"
        case .malformedProtobuf?: return "its bytes are not a protobuf message (a field's tag or length is impossible)"
        case .messageDepthLimit?: return "its messages are nested deeper than any Pipescope writes"
        case .trailingGarbage?: return "bytes follow the end of the message"
        case .missingRequiredFields?, .internalExtensionError?: return "it is not a message Pipescope writes"
        case nil: return "\(error)"
        }
    }
}

extension ServerMessage {
    public static func error(_ text: String) -> ServerMessage {
        var m = ServerMessage()
        m.error.message = text
        return m
    }
}

extension ClientMessage {
    /// The inspector's opening message.
    public static func hello(client: String, readOnly: Bool = false) -> ClientMessage {
        var m = ClientMessage()
        m.hello.protocolVersion = ProtocolVersion.current
        m.hello.client = client
        m.hello.readonly = readOnly
        return m
    }

    public static func command(_ command: WireCommand) -> ClientMessage {
        var m = ClientMessage()
        m.command = command
        return m
    }
}
