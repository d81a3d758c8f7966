import CursesBackend
import Foundation
import PipescopeClient
import PipescopeModel
import PipescopeViews
import PipescopeWire
import TerminalKit

/// The interactive inspector: reads keys and probe messages, reduces them into the
/// state, and draws the state. The terminal is restored on every way out.
struct InspectorLoop {
    enum Outcome {
        case quit
        case failed(String)
    }

    let targetName: String
    /// Which lints run.
    var linter = Linter()
    /// What to apply before the first frame (attach, snapshot; or a whole recording).
    let initial: [Message]
    /// Asked every turn for what arrived since.
    let poll: () -> [Message]
    /// Asked every turn; a non-nil answer ends the loop with that message.
    var fatalCondition: () -> String? = { nil }
    /// Sends a command to the program (nil for a recording).
    let send: ((WireCommand) -> Void)?

    /// The inspector on a live program.
    init(session: InspectorSession, link: LiveLink, targetName: String, fatalCondition: @escaping () -> String? = { nil }) {
        self.targetName = targetName
        initial = session.openingMessages
        poll = { link.poll() }
        send = { link.send($0) }
        self.fatalCondition = fatalCondition
    }

    /// The inspector on a recording.
    init(replaying messages: [Message], targetName: String) {
        self.targetName = targetName
        initial = messages
        poll = { [] }
        send = nil
    }

    static let frameMillis = 40
    static let tickNanos: Int64 = 250_000_000

    func run() -> Outcome {
        let terminal: CursesTerminal
        do {
            terminal = try CursesTerminal()
        } catch {
            return .failed("\(error)")
        }
        defer { terminal.restore() }

        var state = AppState(targetName: targetName)
        state.linter = linter
        for message in initial { _ = reduce(&state, message) }
        let theme = Theme(glyphs: terminal.isUnicode ? .unicode : .ascii, colors: terminal.hasColors)
        var lastTick: Int64 = 0

        while !terminal.interrupted {
            for message in poll() {
                _ = reduce(&state, message)
            }
            if let fatal = fatalCondition() { return .failed(fatal) }
            let now = Self.nowNanos()
            if now - lastTick >= Self.tickNanos {
                lastTick = now
                _ = reduce(&state, .tick(nanos: now))
            }
            let size = terminal.size
            if size.width != state.width || size.height != state.height {
                _ = reduce(&state, MainScreen.resized(width: size.width, height: size.height))
            }
            var buffer = ScreenBuffer(width: size.width, height: size.height)
            MainScreen.render(state, theme: theme, into: &buffer)
            terminal.draw(buffer)

            guard let key = terminal.readKey(timeoutMs: Self.frameMillis) else { continue }
            if key == .resize {
                terminal.invalidate()
                continue
            }
            guard let action = KeyMap.action(for: key, in: state.mode) else { continue }
            for effect in reduce(&state, .action(action)) {
                switch effect {
                case .quit:
                    return .quit
                case .cancelNode(let id): send?(Self.command(.commandCancelNode) { $0.node = id })
                case .pause: send?(Self.command(.commandPause))
                case .resume: send?(Self.command(.commandResume))
                case .step(let count): send?(Self.command(.commandStep) { $0.count = UInt32(count) })
                case .release(let ticket): send?(Self.command(.commandStep) { $0.ticket = ticket })
                case .watch(let nodes):
                    send?(Self.command(.commandSetCapture) {
                        $0.capture = nodes.isEmpty ? .captureLatest : .captureEveryValue
                        $0.nodes = nodes
                    })
                }
            }
        }
        return .quit
    }

    static func command(_ kind: Pipescope_V1_CommandKind, _ edit: (inout WireCommand) -> Void = { _ in }) -> WireCommand {
        var command = WireCommand()
        command.kind = kind
        edit(&command)
        return command
    }

    static func nowNanos() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }
}
