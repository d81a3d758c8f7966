import PipescopeGraph
import PipescopeRecording
import PipescopeWire

extension RecordingWriter {
    /// A writer at `path` that has written what a recording of a program named "busy"
    /// starts with (its welcome and an empty snapshot) and one batch making a stage that
    /// received a value, and waited for it to reach the file: for tests of a recording
    /// still being written.
    public static func busy(at path: String) throws -> RecordingWriter {
        let writer = try RecordingWriter(path: path)
        var welcome = ServerMessage()
        welcome.welcome.processName = "busy"
        writer.append(welcome)
        writer.append(GraphSnapshot())
        writer.append(KindSamples.batch([.subscribe, .subscription, .request, .value]))
        writer.waitUntilWritten()
        return writer
    }
}
