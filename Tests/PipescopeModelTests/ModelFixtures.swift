import PipescopeGraph
import PipescopeModel
import PipescopeTestSupport
import PipescopeWire

/// States shared by the model tests.
enum ModelFixtures {
    static let t0 = BatchBuilder.baseNanos
    static let second: Int64 = 1_000_000_000

    /// Connected, with the realistic pipelines folded in. Rows, in order:
    /// 1 Filter, 2 Map, 3 PassthroughSubject, 4 Map, 5 TimerPublisher, 6 TryMap, 7 Sequence.
    static func realistic() -> AppState {
        var state = AppState(targetName: "demo", pid: 4242)
        _ = reduce(&state, .action(.toggleTable))  // these tests are about the tree
        _ = reduce(&state, .attached(process: "demo", pid: 4242))
        _ = reduce(&state, .batch(BatchFixtures.realisticBatch()))
        return state
    }

    static func visibleIDs(_ state: AppState) -> [NodeID] { state.tree.rows.map(\.id) }
}

extension KeyLayer {
    /// The cancel waiting for confirmation, if that is the mode.
    var cancelPreview: CancelPreview? {
        if case .confirmingCancel(let preview) = self { return preview }
        return nil
    }
}
