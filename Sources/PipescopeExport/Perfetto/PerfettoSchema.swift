/// The field numbers and enum values of Perfetto's trace protos that the exporter writes,
/// from perfetto's `protos/perfetto/trace/` (checked against `perfetto_trace_pb2` of the
/// `perfetto` package on PyPI, 0.59: the tests decode every export with it).
///
/// Only what Pipescope writes; the names are the proto's.
enum PerfettoSchema {
    /// trace.proto: `message Trace { repeated TracePacket packet = 1; }`
    enum Trace {
        static let packet = 1
    }

    /// trace_packet.proto
    enum TracePacket {
        static let timestamp = 8                    // uint64, nanoseconds
        static let trustedPacketSequenceID = 10     // uint32
        static let trackEvent = 11                  // TrackEvent
        static let internedData = 12                // InternedData
        static let sequenceFlags = 13               // uint32, SequenceFlags
        static let trackDescriptor = 60             // TrackDescriptor
        static let clockSnapshot = 6                // ClockSnapshot
        static let tracePacketDefaults = 59         // TracePacketDefaults
        static let timestampClockID = 58            // uint32
        /// bytes: a zlib (deflate) stream of a serialized `Trace` (more `packet`s); the
        /// whole TracePacket under 512 KB, says trace_packet.proto.
        static let compressedPackets = 50

        /// `enum SequenceFlags`
        static let seqIncrementalStateCleared: UInt64 = 1
        static let seqNeedsIncrementalState: UInt64 = 2
    }

    /// trace_packet_defaults.proto
    enum TracePacketDefaults {
        static let timestampClockID = 58            // uint32
    }

    /// clock_snapshot.proto
    enum ClockSnapshot {
        static let clocks = 1                       // repeated Clock
        enum Clock {
            static let clockID = 1                  // uint32
            static let timestamp = 2                // uint64
            static let isIncremental = 3            // bool
        }
        /// `BUILTIN_CLOCK_BOOTTIME`: the trace clock (the recording's times are on it).
        static let boottime: UInt64 = 6
        /// The sequence's own clock (64 to 127 are sequence-scoped), delta-encoded.
        static let incremental: UInt64 = 64
    }

    /// track_event/track_event.proto
    enum TrackEvent {
        static let debugAnnotations = 4             // repeated DebugAnnotation
        static let type = 9                         // Type
        static let nameIID = 10                     // uint64, interned EventName
        static let trackUUID = 11                   // uint64
        static let counterValue = 30                // int64
        static let sourceLocationIID = 34           // uint64, interned SourceLocation
        static let flowIDs = 47                     // repeated fixed64
        static let terminatingFlowIDs = 48          // repeated fixed64

        /// `enum Type`
        enum Kind: UInt64 {
            case sliceBegin = 1, sliceEnd = 2, instant = 3, counter = 4
        }
    }

    /// track_event/track_descriptor.proto
    enum TrackDescriptor {
        static let uuid = 1                         // uint64
        static let name = 2                         // string
        static let process = 3                      // ProcessDescriptor
        static let parentUUID = 5                   // uint64
        static let counter = 8                      // CounterDescriptor
        static let childOrdering = 11               // ChildTracksOrdering
        static let siblingOrderRank = 12            // int32
        static let description = 14                 // string

        /// `ChildTracksOrdering.EXPLICIT`: children by their `sibling_order_rank`.
        static let explicitOrdering: UInt64 = 3
    }

    /// track_event/process_descriptor.proto
    enum ProcessDescriptor {
        static let pid = 1                          // int32
        static let processName = 6                  // string
        static let processLabels = 8                // repeated string
    }

    /// track_event/counter_descriptor.proto
    enum CounterDescriptor {
        static let unitName = 6                     // string
    }

    /// interned_data/interned_data.proto
    enum InternedData {
        static let eventNames = 2                   // repeated EventName
        static let debugAnnotationNames = 3         // repeated DebugAnnotationName
        static let sourceLocations = 4              // repeated SourceLocation
        static let debugAnnotationStringValues = 29 // repeated InternedString
    }

    /// EventName, DebugAnnotationName (track_event.proto, debug_annotation.proto) and
    /// InternedString (interned_data): `iid = 1`, then the text (`name` or `str`) = 2.
    enum Interned {
        static let iid = 1
        static let text = 2
    }

    /// track_event/source_location.proto: `SourceLocation`
    enum SourceLocation {
        static let iid = 1
        static let fileName = 2
        static let functionName = 3
        static let lineNumber = 4                   // uint32
    }

    /// track_event/debug_annotation.proto
    enum DebugAnnotation {
        static let nameIID = 1                      // uint64
        static let boolValue = 2
        static let intValue = 4                     // int64
        static let stringValue = 6                  // string
        static let stringValueIID = 17              // uint64, interned InternedString
    }
}
