import Foundation
@preconcurrency import OpenCombine
import Pipescope

/// Story: a stage whose code is slower than a frame. A thumbnail pipeline maps each
/// photo with a closure that is quick for most and takes about 30 ms for every third
/// (a large photo, decoded on the thread that delivers it), so the thread sending the
/// photos stalls for two frames each time: the `slow-stage` lint, on the `map`, with its
/// p50 and max. The fix is in the lint's advice: `receive(on:)` a background queue
/// before the `map`.
///
/// Driven by ``tick(_:)`` on the demo's serial queue, one photo a tick.
final class SlowStageStory: @unchecked Sendable {
    private let photos = PassthroughSubject<Int, Never>()
    private var kept: [AnyCancellable] = []

    func start() {
        photos
            .map { photo in Thumbnail(decoding: photo) }
            .pipescopeName("story: slow map (30 ms now and then)")
            .sink { _ in }
            .store(in: &kept)
    }

    /// Called every 300 ms with the demo's step number.
    func tick(_ step: Int) {
        photos.send(step)
    }
}

/// A decoded photo: every third one is large and takes about 30 ms to decode.
private struct Thumbnail {
    var photo: Int

    init(decoding photo: Int) {
        self.photo = photo
        if photo % 3 == 0 { Thread.sleep(forTimeInterval: 0.030) }
    }
}
