@preconcurrency import OpenCombine
import Pipescope

/// Story: **a zip where combineLatest was meant** (the `zip-unpaired` lint). A checkout
/// screen quotes shipping for the address typed and the basket's weight. It zips the two,
/// so each address waits for a new weight: the first quote shows, and after that every new
/// address piles up in the zip until the weight changes, 24 s later, which pairs it with
/// the oldest address, not the newest. Each address should meet the latest weight
/// (OpenCombine 0.14 has no `combineLatest`: `address.map { … weight.value … }`).
final class ZipStory: @unchecked Sendable {
    private let address = PassthroughSubject<String, Never>()
    private let weight = CurrentValueSubject<Int, Never>(2)
    private var kept: [AnyCancellable] = []

    func start() {
        address.zip(weight)
            .map { street, kilos in "\(street): \(kilos * 3) €" }
            .pipescopeName("story: shipping quote (zip)")
            .sink { _ in }
            .store(in: &kept)
    }

    /// Called every 300 ms with the demo's step number: a new address every 3 s, a new
    /// weight every 24 s.
    func tick(_ step: Int) {
        if step % 10 == 0 { address.send(["1 Main St", "2 Elm St", "3 Oak Ave"][step / 10 % 3]) }
        if step % 80 == 40 { weight.send(2 + step / 80) }
    }
}
