import PipescopeGraph
import PipescopeRecording
import PipescopeWire

/// Feeds arbitrary bytes to everything that reads bytes from a peer or a file. Any
/// crash, hang, or sanitizer report is a bug: malformed input must only ever produce a
/// FrameError or RecordingFormat.ReadError.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWire(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))

    // As a stream of frames, fed in two pieces (a split wherever the first byte says).
    var decoder = FrameDecoder()
    let split = bytes.isEmpty ? 0 : Int(bytes[0]) % (bytes.count + 1)
    decoder.append(bytes[..<split])
    decoder.append(bytes[split...])
    var stream = WireStreamReader()
    var parts = SnapshotJoiner()
    var graph = Graph()
    while let payload = try? decoder.next() {
        _ = try? ClientMessage.decode(payload: payload)
        // Through the stream reader and into the domain's types, as the inspector reads
        // them: a snapshot's parts joined, packed batches unpacked against the string
        // table the earlier frames built, then folded.
        if let decoded = try? ServerMessage.decode(payload: payload), let message = try? parts.join(decoded) {
            switch message.body {
            case .packed(let packed)?:
                if let batch = try? stream.batch(packed) { graph.fold(batch) }
            case .snapshot(let snapshot)?:
                if let snapshot = try? stream.snapshot(snapshot) { graph.load(snapshot) }
            case .batch(let legacy)?:
                graph.fold(EventBatch(legacy: legacy))
            default:
                break
            }
        }
    }

    // As a single message payload, either way.
    _ = try? ClientMessage.decode(payload: bytes)
    _ = try? ServerMessage.decode(payload: bytes)

    // As a recording.
    _ = try? RecordingFormat.read(RecordingFormat.magic + bytes)
    return 0
}

// MARK: - Entry point

// SwiftPM links an executable's entry point as `<Target>_main` and aliases `main` to it,
// so libFuzzer's own main is never pulled in; start its driver from here instead.
@_silgen_name("LLVMFuzzerRunDriver")
private func runDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> Int32
) -> Int32

@_cdecl("FuzzWire_main")
public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    var count = argc
    var arguments: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = argv
    return runDriver(&count, &arguments) { data, size in fuzzWire(data, size) }
}
