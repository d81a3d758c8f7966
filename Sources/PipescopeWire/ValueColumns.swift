import Foundation
import PipescopeGraph

/// The scalar values of a batch's VALUE events as typed columns of numbers, and back
/// (`PackedBatch.value_runs` to `bools` in Resources/pipescope.proto, version 4).
///
/// Neither side makes words: the writer copies numbers out of ``EventValue``s, the
/// reader puts numbers back into them, and the words ("42") are made by whatever shows
/// the event.
///
/// ```swift
/// var writer = ValueColumns.Writer(capacity: events.count)
/// for event in events where event.kind == .value { _ = writer.append(event.value) }
/// writer.finish(into: &packed)
/// var reader = try ValueColumns.Reader(packed)
/// let first = try reader.next()          // .int(42), for the first VALUE event
/// try reader.finish()                    // every column read to its end
/// ```
enum ValueColumns {
    /// `ValueKind`'s numbers.
    enum Kind: UInt32 {
        case text, int, uint, double, float, bool, void
    }

    struct Writer: ~Copyable {
        private var runs: [UInt32] = []
        private var kind = Kind.text
        private var length: UInt32 = 0
        /// The integers' differences, written as they come.
        private var ints: ZigzagColumn.Writer
        private var uints: [UInt64] = [], doubles: [Double] = [], floats: [Float] = []
        private var bools: [UInt8] = []
        private var boolCount = 0
        private var lastInt: Int64 = 0
        private var anyScalar = false

        /// `capacity`: the VALUE events there can be.
        init(capacity: Int) {
            ints = ZigzagColumn.Writer(capacity: capacity)
        }

        /// Adds the next VALUE event's value; returns false when it is no scalar (its
        /// words, if any, travel in the batch's texts).
        @inline(__always)
        mutating func append(_ value: EventValue) -> Bool {
            let next: Kind
            switch value {
            case .none, .text: next = .text
            case .int(let v):
                next = .int
                ints.append(v &- lastInt)
                lastInt = v
            case .uint(let v): next = .uint; uints.append(v)
            case .double(let v): next = .double; doubles.append(v)
            case .float(let v): next = .float; floats.append(v)
            case .bool(let v):
                next = .bool
                if boolCount & 7 == 0 { bools.append(0) }
                if v { bools[bools.count - 1] |= 1 << UInt8(boolCount & 7) }
                boolCount += 1
            case .void: next = .void
            }
            if next == kind, length > 0, length < UInt32.max {
                length += 1
            } else {
                if length > 0 {
                    runs.append(kind.rawValue)
                    runs.append(length)
                }
                kind = next
                length = 1
            }
            if next == .text { return false }
            anyScalar = true
            return true
        }

        /// Sets the batch's value columns; leaves them all empty when no value was a scalar.
        consuming func finish(into p: inout WirePackedBatch) {
            guard anyScalar else { return }
            runs.append(kind.rawValue)
            runs.append(length)
            p.valueRuns = runs
            p.intDeltas = ints.finish()
            p.uints = uints
            p.doubles = doubles
            p.floats = floats
            p.bools = Data(bools)
        }
    }

    struct Reader {
        private let runs: [UInt32]
        private var run = 0
        private var left: UInt32 = 0
        private var kind = Kind.text
        private var ints: ZigzagColumn.Reader
        private let uints: [UInt64], doubles: [Double], floats: [Float]
        private let bools: [UInt8]
        private var nextUInt = 0, nextDouble = 0, nextFloat = 0, nextBool = 0
        private var lastInt: Int64 = 0

        init(_ p: WirePackedBatch) throws {
            runs = p.valueRuns
            ints = ZigzagColumn.Reader(p.intDeltas, "integer value")
            uints = p.uints
            doubles = p.doubles
            floats = p.floats
            bools = [UInt8](p.bools)
            guard runs.count % 2 == 0 else {
                throw FrameError.malformed("a packed batch whose value runs are not pairs (\(runs.count) entries)")
            }
            if runs.isEmpty, !(ints.atEnd && uints.isEmpty && doubles.isEmpty && floats.isEmpty && bools.isEmpty) {
                throw FrameError.malformed("a packed batch with scalar values but no value runs to say whose")
            }
        }

        /// The next VALUE event's value: a scalar, or ``EventValue/none`` for one whose
        /// words (if any) are in the batch's texts.
        @inline(__always)
        mutating func next() throws -> EventValue {
            if runs.isEmpty { return .none }
            if left == 0 { try startRun() }
            left -= 1
            switch kind {
            case .text: return .none
            case .int:
                guard let delta = try ints.next() else { throw short("integer") }
                lastInt = lastInt &+ delta
                return .int(lastInt)
            case .uint:
                guard nextUInt < uints.count else { throw short("unsigned integer") }
                nextUInt += 1
                return .uint(uints[nextUInt - 1])
            case .double:
                guard nextDouble < doubles.count else { throw short("double") }
                nextDouble += 1
                return .double(doubles[nextDouble - 1])
            case .float:
                guard nextFloat < floats.count else { throw short("float") }
                nextFloat += 1
                return .float(floats[nextFloat - 1])
            case .bool:
                guard nextBool < bools.count * 8 else { throw short("Bool") }
                let bit = bools[nextBool >> 3] >> UInt8(nextBool & 7) & 1
                nextBool += 1
                return .bool(bit != 0)
            case .void:
                return .void
            }
        }

        private mutating func startRun() throws {
            guard run < runs.count else {
                throw FrameError.malformed("a packed batch whose value runs cover fewer values than its VALUE events")
            }
            guard let kind = Kind(rawValue: runs[run]) else {
                throw FrameError.malformed("a packed batch with value kind \(runs[run]), which protocol version "
                                           + "\(ProtocolVersion.current) does not know")
            }
            guard runs[run + 1] > 0 else { throw FrameError.malformed("a packed batch with a value run of length 0") }
            self.kind = kind
            left = runs[run + 1]
            run += 2
        }

        /// Checks that the runs and every column were read to their ends.
        func finish() throws {
            guard run == runs.count, left == 0 else {
                throw FrameError.malformed("a packed batch whose value runs cover more values than its VALUE events")
            }
            guard ints.atEnd, nextUInt == uints.count, nextDouble == doubles.count,
                  nextFloat == floats.count, (nextBool + 7) / 8 == bools.count else {
                throw FrameError.malformed("a packed batch with more scalar values than its value runs say")
            }
        }

        private func short(_ what: String) -> FrameError {
            .malformed("a packed batch with fewer \(what) values than its value runs say")
        }
    }
}
