/// The facts (``TypeNames/Subscribe``) of the last pairs of publisher and subscriber
/// types one thread subscribed, so that a subscribe of a pair seen before takes no lock.
///
/// Rules:
/// - Confined to its thread: it lives in that thread's ``ThreadFrames``, and only that
///   thread reads or writes it, so it needs no lock.
/// - The facts of a pair depend on the two types alone, never on a tap or an instance, so
///   whichever ``TypeNames`` worked them out, they hold for every later tap.
/// - Direct-mapped, ``size`` slots: a miss asks ``TypeNames`` (one lock), and the pair
///   takes its slot over. It holds only our own immutable facts objects (names and a
///   describer), never a user object.
struct TypeFactsCache {
    static let size = 16

    struct Pair: Equatable {
        let publisher: ObjectIdentifier
        let subscriber: ObjectIdentifier

        @inline(__always)
        var slot: Int {
            let word = UInt64(UInt(bitPattern: publisher)) ^ UInt64(UInt(bitPattern: subscriber)) &* 0xFF51_AFD7_ED55_8CCD
            return Int(truncatingIfNeeded: word >> 60) & (TypeFactsCache.size - 1)
        }
    }

    private let pairs: UnsafeMutablePointer<Pair?>
    private let facts: UnsafeMutablePointer<TypeNames.Subscribe?>
    /// The last `AnyPublisher` box class this thread subscribed, and whether it erases a
    /// subject: one slot, as a program erases few publisher types and subscribes them
    /// again and again (an effect per action type, all on one subject).
    private let box: UnsafeMutablePointer<(metadata: UInt, erasesSubject: Bool)>

    init() {
        pairs = .allocate(capacity: Self.size)
        pairs.initialize(repeating: nil, count: Self.size)
        facts = .allocate(capacity: Self.size)
        facts.initialize(repeating: nil, count: Self.size)
        box = .allocate(capacity: 1)
        box.initialize(to: (0, false))
    }

    /// Releases the facts held; call once, when the thread's frames go.
    func deallocate() {
        pairs.deinitialize(count: Self.size)
        pairs.deallocate()
        facts.deinitialize(count: Self.size)
        facts.deallocate()
        box.deallocate()
    }

    /// The facts kept for `pair`, if its slot holds it.
    @inline(__always)
    func facts(of pair: Pair) -> TypeNames.Subscribe? {
        let slot = pair.slot
        return pairs[slot] == pair ? facts[slot] : nil
    }

    /// Whether the box class at `metadata` erases a subject, if it is the one kept.
    @inline(__always)
    func erasesSubject(boxClass metadata: UInt) -> Bool? {
        box.pointee.metadata == metadata ? box.pointee.erasesSubject : nil
    }

    func keep(erasesSubject: Bool, boxClass metadata: UInt) {
        box.pointee = (metadata, erasesSubject)
    }

    /// Keeps `found` for `pair`, in place of whatever had its slot.
    func keep(_ found: TypeNames.Subscribe, for pair: Pair) {
        let slot = pair.slot
        pairs[slot] = pair
        facts[slot] = found
    }
}
