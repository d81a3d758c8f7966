import PipescopeGraph

/// Watches the probe's graph around each fold, under the probe's lock: what judges the
/// live program's lints on the graph the probe already keeps (PipescopeMetrics'
/// `pipescope_lints_total`), where a second graph would fold every event twice.
///
/// Called on the flushing thread (the server's, or a test's), never the program's: before
/// a batch is folded (the graph as it stood), and after (before anything is pruned). While
/// a watcher is set the graph records its changes (``Graph/recordChanges()``), for the
/// watcher to take. Both calls hold the probe's lock: keep them to the graph, and take no
/// lock that is held while calling into the probe.
///
/// ```swift
/// final class Counting: FoldWatcher {
///     let folded = Atomic<Int>(0)
///     func willFold(_ batch: EventBatch, graph: inout Graph) {}
///     func didFold(_ batch: EventBatch, graph: inout Graph) {
///         _ = graph.takeChanges()
///         folded.add(batch.events.count, ordering: .relaxed)
///     }
/// }
/// probe.watchFolds(Counting())
/// ```
package protocol FoldWatcher: AnyObject, Sendable {
    func willFold(_ batch: EventBatch, graph: inout Graph)
    func didFold(_ batch: EventBatch, graph: inout Graph)
}

extension Probe {
    /// Calls `watcher` around every fold from now on (nil: none), and has the graph record
    /// its changes while one is set.
    package func watchFolds(_ watcher: (any FoldWatcher)?) {
        state.withLockedValue { state in
            state.foldWatcher = watcher
            if watcher != nil { state.graph.recordChanges() } else { state.graph.stopRecordingChanges() }
        }
    }

    /// Runs `body` on the graph under the probe's lock, for `watcher`'s judgement between
    /// folds (it takes the changes recorded since its last); nil, without running it,
    /// unless `watcher` is the one watching (no changes were recorded for it). `body` must
    /// not fold, flush or snapshot.
    package func withWatchedGraph<T>(by watcher: any FoldWatcher, _ body: (inout Graph) -> T) -> T? {
        state.withLockedValue { state in
            guard state.foldWatcher === watcher else { return nil }
            return body(&state.graph)
        }
    }
}

extension Probe.State {
    /// Folds `batch` into the graph, with the fold watcher's calls around it.
    mutating func fold(_ batch: EventBatch) {
        guard let foldWatcher else { return graph.fold(batch) }
        foldWatcher.willFold(batch, graph: &graph)
        graph.fold(batch)
        foldWatcher.didFold(batch, graph: &graph)
    }
}
