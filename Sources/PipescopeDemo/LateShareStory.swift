import Dispatch
@preconcurrency import OpenCombine
import Pipescope

/// Story: **a subscriber late to a share()** (the `late-share` lint). A profile is loaded
/// once every 12 s and shared, so that the header and the settings panel read one
/// request. The header subscribes at once; the settings panel opens 1.8 s later, after
/// the answer came (0.5 s), and gets no profile, only `finished`: `share()` replays
/// nothing. The fix is to subscribe both before the request answers, or to keep the
/// profile for latecomers (a `CurrentValueSubject`).
final class LateShareStory: @unchecked Sendable {
    private var kept: [AnyCancellable] = []
    private var profile: AnyPublisher<String, Never>?
    private let answers = DispatchQueue(label: "pipescope.demo.profile-loads")

    /// Called every 300 ms with the demo's step number.
    func tick(_ step: Int) {
        switch step % 40 {
        case 7: load()
        case 13: openSettings()
        default: break
        }
    }

    private func load() {
        kept.removeAll()
        let answers = self.answers
        let shared = Deferred {
            Future<String, Never> { promise in
                let answer = Promise(fulfil: promise)
                answers.asyncAfter(deadline: .now() + .milliseconds(500)) { answer.fulfil(.success("Ada Lovelace")) }
            }
        }.share()
        profile = shared.eraseToAnyPublisher()
        shared.pipescopeName("story: shared profile (header)").sink { _ in }.store(in: &kept)
    }

    private func openSettings() {
        profile?.pipescopeName("story: shared profile (settings, late)").sink { _ in }.store(in: &kept)
    }
}
