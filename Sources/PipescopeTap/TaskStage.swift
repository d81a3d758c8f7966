@preconcurrency import OpenCombine
import PipescopeGraph

extension Task {
    /// An AnyCancellable that cancels this task: store it in an owner so the task ends
    /// with the owner (`task.eraseToAnyCancellable().store(in: bag)`). While Pipescope
    /// runs, the task appears as a root stage named `name`, active until it returns.
    public func eraseToAnyCancellable(name: String = "Task") -> AnyCancellable {
        guard let registry = ActiveTap.registry else { return AnyCancellable { self.cancel() } }
        let node = TaskStage.start(self, name: name, registry: registry)
        ThreadFrames.current.noteRoot(node)
        return AnyCancellable {
            // Cancelled by the bag being released, or by someone calling cancel().
            let cause: CancelCause = ThreadFrames.current.releasingOwner > 0 ? .owner : .downstream
            registry.endSynthetic(node, .cancelled, cause: cause)
            self.cancel()
        }
    }
}

/// A task shown as a stage: a root with no upstream, active while the task runs.
package enum TaskStage {
    /// A marker whose identity keys the stage (tasks have no CombineIdentifier).
    private final class Marker {}

    static package func start<Success, Failure>(_ task: Task<Success, Failure>, name: String,
                                        registry: StageRegistry) -> NodeID {
        let marker = Marker()
        let key = StageKey(id: CombineIdentifier(marker), type: ObjectIdentifier(Marker.self))
        let frames = ThreadFrames.current
        var stage = NewStage(named: .init(operatorName: name, publisherType: "Task<\(Success.self), \(Failure.self)>"),
                             subscriber: "Task", thread: frames.number)
        // A task is a root: the test block it was started in owns it, as a pipeline's
        // subscribe does (one task-local read).
        stage.scope = FindingScope.atSubscribe
        // Where the task was tied to an AnyCancellable is where its "pipeline" was made.
        let node = CallStack.withAddresses(enabled: registry.capturesLocations, frames: frames) { stack in
            registry.startSynthetic(key: key, stack: stack, stage: stage)
        }
        // Watch the task end without keeping it alive longer than it runs.
        Task<Void, Never>.detached {
            _ = await task.result
            withExtendedLifetime(marker) {}
            registry.endSynthetic(node, task.isCancelled ? .cancelled : .finished, cause: .downstream)
        }
        return node
    }
}
