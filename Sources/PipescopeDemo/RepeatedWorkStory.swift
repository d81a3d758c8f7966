import Dispatch
@preconcurrency import OpenCombine
import Pipescope

/// Story: **one request, subscribed twice** (the `repeated-work` lint). A profile screen
/// refreshes every 6 s. Its request is a `Deferred { Future { … } }`, a cold publisher:
/// each subscription runs the closure again. The screen subscribes it twice, once for the
/// name and once for the avatar, so every refresh makes two requests, answered 1.5 s
/// later: sooner than `--stall-after` (2 s), so the only warning is the one this story
/// tells. The lint names both subscribe sites; `.share()` on the request would make one.
final class RepeatedWorkStory: @unchecked Sendable {
    private var kept: [AnyCancellable] = []
    private let answers = DispatchQueue(label: "pipescope.demo.profile-requests")

    /// Called every 300 ms with the demo's step number.
    func tick(_ step: Int) {
        guard step % 20 == 3 else { return }
        kept.removeAll()
        refresh()
    }

    private func refresh() {
        let answers = self.answers
        let request = Deferred {
            Future<String, Never> { promise in
                let answer = Promise(fulfil: promise)
                answers.asyncAfter(deadline: .now() + .milliseconds(1500)) { answer.fulfil(.success("ada")) }
            }
        }
        request.map { "name: \($0)" }
            .pipescopeName("story: one request, subscribed twice (name)")
            .sink { _ in }
            .store(in: &kept)
        request.map { "avatar of \($0)" }
            .pipescopeName("story: one request, subscribed twice (avatar)")
            .sink { _ in }
            .store(in: &kept)
    }
}
