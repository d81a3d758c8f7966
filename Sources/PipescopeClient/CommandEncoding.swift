import PipescopeModel
import PipescopeWire

extension WireCommand {
    /// The command that carries out `effect` in the program; nil for effects that stay in
    /// the inspector (quit, save, waiting for a restart). The one place the model's
    /// effects become wire commands.
    public init?(_ effect: Effect) {
        self.init()
        switch effect {
        case .quit, .save, .waitForRestart:
            return nil
        case .cancelNode(let id):
            kind = .commandCancelNode
            node = id
        case .pause:
            kind = .commandPause
        case .resume:
            kind = .commandResume
        case .step(let count):
            kind = .commandStep
            self.count = UInt32(clamping: count)
        case .release(let ticket):
            kind = .commandStep
            self.ticket = ticket
        case .watch(let nodes):
            kind = .commandSetCapture
            capture = nodes.isEmpty ? .captureLatest : .captureEveryValue
            self.nodes = nodes
        }
    }
}

extension ProbeConnection {
    /// Carries out `effect` in the program: sends its command, and returns the command's
    /// id. Nil for effects that stay in the inspector (quit), when nothing is sent.
    @discardableResult
    public func perform(_ effect: Effect) -> UInt64? {
        guard let command = WireCommand(effect) else { return nil }
        return send(command)
    }
}
