import Foundation
import PipescopeWire

extension WirePackedBatch {
    /// The event columns sent as zigzag varints (``ZigzagColumn``), as numbers: for tests
    /// that build a batch by hand or damage one a number at a time.
    public var nodeDeltaNumbers: [Int64] {
        get { Self.numbers(nodeDeltas) }
        set { nodeDeltas = ZigzagColumn.encode(newValue) }
    }

    public var timeDeltaNumbers: [Int64] {
        get { Self.numbers(timeDeltas) }
        set { timeDeltas = ZigzagColumn.encode(newValue) }
    }

    public var intDeltaNumbers: [Int64] {
        get { Self.numbers(intDeltas) }
        set { intDeltas = ZigzagColumn.encode(newValue) }
    }

    private static func numbers(_ bytes: Data) -> [Int64] {
        // A test's own batch: its columns always decode.
        try! ZigzagColumn.decode(bytes, "test")
    }
}
