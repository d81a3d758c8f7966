import PipescopeGraph
import PipescopeRecording
import PipescopeWire

/// Feeds arbitrary bytes to the recording reader as `pipescope replay` and `export` read
/// a file: one chunk at a time (the chunk size from the first byte, so frames, end marks
/// and zero tails are cut anywhere), each message unpacked against the stream's string
/// table and folded. Any crash, hang, or sanitizer report is a bug: a file that is not a
/// recording, is damaged, or is cut must only ever give a RecordingFormat.ReadError or a
/// cut. Where reading ends must add up: the bytes read and the bytes cut off are the file.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRecording(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let chunkSize = 1 + Int(bytes.first ?? 0) % 64
    // As it is (most inputs are not recordings), and after the magic line.
    for file in [bytes, RecordingFormat.magic + bytes] {
        read(file, chunkSize: chunkSize)
    }
    return 0
}

private func read(_ file: [UInt8], chunkSize: Int) {
    var reader: RecordingReader
    do {
        reader = try RecordingReader(bytes: file, chunkSize: chunkSize)
    } catch RecordingFormat.ReadError.notARecording {
        return
    } catch RecordingFormat.ReadError.empty {
        precondition(file.isEmpty, "only an empty file is empty")
        return
    } catch {
        fatalError("opening gave \(error), not notARecording")
    }
    var stream = WireStreamReader()
    var graph = Graph()
    do {
        while let message = try reader.next() {
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
    } catch is RecordingFormat.ReadError {
        precondition(reader.bytesRead <= file.count, "read past the end")
        return
    } catch {
        fatalError("reading gave \(error), not a RecordingFormat.ReadError")
    }
    precondition(reader.bytesRead + reader.truncatedBytes == file.count,
                 "read \(reader.bytesRead) and cut \(reader.truncatedBytes) of \(file.count) bytes")
    do {
        let again = try reader.next()
        precondition(again == nil, "a reader at its end stays there")
    } catch {
        fatalError("a reader at its end threw \(error)")
    }
    // Read whole, the same file gives the same end.
    guard let whole = try? RecordingFormat.read(file) else { fatalError("whole read failed where chunks did not") }
    precondition(whole.messages.count == reader.messagesRead && whole.truncatedBytes == reader.truncatedBytes
                 && whole.endReason == reader.endReason, "whole and chunked reads disagree")
}

// MARK: - Entry point

// As in FuzzWire: start libFuzzer's driver from the executable's own entry point.
@_silgen_name("LLVMFuzzerRunDriver")
private func runDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> Int32
) -> Int32

@_cdecl("FuzzRecording_main")
public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32 {
    var count = argc
    var arguments: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = argv
    return runDriver(&count, &arguments) { data, size in fuzzRecording(data, size) }
}
