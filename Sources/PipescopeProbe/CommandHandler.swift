import Foundation
@preconcurrency import OpenCombine
import PipescopeGraph
import PipescopeTap
import PipescopeWire

/// Carries out the inspector's commands on a probe and says what happened.
///
/// Every command gets exactly one ``WireAck``. Commands that would change the program
/// (cancel; pause and step; watching a stage, which describes every value) are refused in read-only mode, set by the program
/// (`PIPESCOPE_READONLY=1`) or by the inspector's Hello.
struct CommandHandler {
    package let probe: Probe
    /// Set by the program: no inspector may change it.
    let programReadOnly: Bool

    func handle(_ command: Pipescope_V1_Command, from inspector: ObjectIdentifier,
                inspectorReadOnly: Bool) -> (ack: Pipescope_V1_Ack, sendSnapshot: Bool) {
        var ack = Pipescope_V1_Ack()
        ack.commandID = command.id
        func answer(_ ok: Bool, _ message: String) -> (Pipescope_V1_Ack, Bool) {
            ack.ok = ok
            ack.message = message
            return (ack, false)
        }
        // Watching (every value described) runs `description` on the program's threads for each value: it changes
        // what the program pays, so read-only refuses it too.
        let watches = command.kind == .commandSetCapture && command.capture == .captureEveryValue && !command.nodes.isEmpty
        let changesProgram = [.commandPause, .commandStep, .commandResume, .commandCancelNode].contains(command.kind)
            || watches
        if changesProgram, programReadOnly {
            return answer(false, "refused: the program runs Pipescope read-only (PIPESCOPE_READONLY=1), so it cannot be "
                + (watches ? "made to describe every value" : "paused or cancelled"))
        }
        if changesProgram, inspectorReadOnly {
            return answer(false, "refused: this inspector attached with --readonly")
        }
        switch command.kind {
        case .commandSnapshot:
            ack.ok = true
            ack.message = "snapshot sent"
            return (ack, true)
        case .commandCancelNode:
            let (ok, message) = cancel(command.node)
            return answer(ok, message)
        case .commandSetCapture:
            return setCapture(command)
        case .commandPause:
            probe.gate.pause(by: inspector)
            // Short: it shares the bottom line with what waits next. (Each thread stops before its next event.)
            return answer(true, "paused: n steps, space resumes (by itself after \(Int(probe.gate.deadline)) s idle, "
                + "or when you leave)")
        case .commandStep:
            guard probe.gate.isPaused else { return answer(false, "not paused: press space to pause first") }
            if command.ticket != 0 {
                return probe.gate.release(ticket: command.ticket)
                    ? answer(true, "released the chosen event")
                    : answer(false, "that event is no longer waiting")
            }
            return answer(true, Self.stepped(asked: max(1, Int(command.count)), probe.gate.step(Int(command.count))))
        case .commandResume:
            probe.gate.resume()
            return answer(true, "resumed")
        case .commandUnknown, .UNRECOGNIZED:
            return answer(false, "unknown command \(command.kind.rawValue): this probe speaks protocol \(ProtocolVersion.current)")
        }
    }

    /// What a step did, in the words the inspector shows: "released 2 of 5 waiting
    /// events"; asked for more than wait, "released all 3 waiting (asked 10)".
    static func stepped(asked: Int, _ step: Gate.Step) -> String {
        func events(_ n: Int) -> String { "\(n) event\(n == 1 ? "" : "s")" }
        if step.waiting == 0 { return "released the next \(events(step.released)) (none waiting yet)" }
        if step.released < asked { return "released all \(step.released) waiting (asked \(asked))" }
        return "released \(step.released) of \(step.waiting) waiting event\(step.waiting == 1 ? "" : "s")"
    }

    private func cancel(_ node: NodeID) -> (ok: Bool, message: String) {
        switch probe.registry.cancelFromInspector(node: node) {
        case .subscription(let subscription, let owner, let stages, let event):
            // The cancels it sets off upstream are caused by this one.
            ThreadFrames.current.cancelling(as: event) { subscription.cancel() }
            let others = stages.filter { $0 != node }
            let shared = others.isEmpty ? "" : " and the \(others.count) stage\(others.count == 1 ? "" : "s") sharing its subscription"
            return (true, "cancelled #\(node)\(owner != node ? " (subscription of #\(owner))" : "")\(shared); upstream stages follow")
        case .ended:
            return (false, "#\(node) has already ended: cancelling it has no effect")
        case .unknown:
            return (false, "there is no stage #\(node) in this program")
        case .notCancellable:
            return (false, "#\(node)'s subscription is a value type Pipescope cannot hold on to, so it cannot cancel it")
        }
    }

    private func setCapture(_ command: Pipescope_V1_Command) -> (Pipescope_V1_Ack, Bool) {
        var ack = Pipescope_V1_Ack()
        ack.commandID = command.id
        ack.ok = true
        switch command.capture {
        case .captureLatest:
            probe.registry.setCapture(enabled: true, watched: [])
            ack.message = "capturing scalar values, and one described value per stage per \(FlushInterval.text)"
        case .captureNone:
            probe.registry.setCapture(enabled: false, watched: [])
            ack.message = "capturing no values"
        case .captureEveryValue:
            probe.registry.setCapture(enabled: true, watched: Set(command.nodes))
            ack.message = "describing every value of \(command.nodes.count) stage\(command.nodes.count == 1 ? "" : "s")"
        case .UNRECOGNIZED(let n):
            ack.ok = false
            ack.message = "unknown capture policy \(n)"
        }
        return (ack, false)
    }
}
