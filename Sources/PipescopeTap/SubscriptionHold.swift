#if canImport(ObjectiveC)
#else
import CPipescopeRuntime
#endif

/// The tap's hold on a subscription object (a class): enough to tell whether it is alive
/// and to cancel it from the inspector, never enough to keep it alive.
///
/// It holds the object's *unowned* count, through the runtime's own entry points
/// (`CPipescopeRuntime`):
/// - The object deinitialises exactly when it would without the tap: its strong count
///   is not touched, and no user value outlives that deinit (its fields go with it).
/// - Its memory stays allocated until the hold is released, so no new object can take
///   its address, and with it its `CombineIdentifier`, while ``StageIndex`` still maps
///   that identifier to the old object's stages.
/// - ``strong()`` retains the object only if it has not begun to deinit
///   (`swift_tryRetain`): a dead subscription is never touched.
///
/// Why not `weak`: forming a weak reference gives the object a side table, and from then
/// on every retain and release the program makes of it takes the runtime's slow path,
/// with the side table's allocation, free and atomics on top. That would be the largest single
/// cost of a subscribe under the tap: a `flatMap` value (an inner subscription each) costs
/// 1.41–1.47× the floor with `weak`, 1.32–1.35× with this hold (Benchmarks/README.md).
///
/// Rules:
/// - A plain value: copying it does not count. ``StageIndex`` makes one hold per entry of
///   its subscriptions and releases it exactly once, when the entry goes (cancelled,
///   retired, replaced, or the registry torn down).
/// - ``release()`` never runs user code: the deinit ran already, or has yet to run on
///   the program's thread when the last strong reference goes. At most it frees memory.
/// - Native Swift objects only, which every class is on Linux. Where Objective-C objects
///   exist (the runtime calls would be wrong for them) it falls back to a weak box.
struct SubscriptionHold {
    #if canImport(ObjectiveC)
    private final class WeakBox {
        weak var object: AnyObject?
        init(_ object: AnyObject) { self.object = object }
    }
    private let box: WeakBox

    init(_ object: AnyObject) { box = WeakBox(object) }
    /// No hold where objects may be Objective-C's: a publisher's address is then only compared.
    init?(address: UInt) { return nil }
    var isAlive: Bool { box.object != nil }
    func strong() -> AnyObject? { box.object }
    func release() {}
    #else
    private let object: UnsafeMutableRawPointer

    /// Takes an unowned count of `object`.
    @inline(__always)
    init(_ object: AnyObject) {
        self.object = swift_unownedRetain(Unmanaged.passUnretained(object).toOpaque())
    }

    /// Takes an unowned count of the native Swift object at `address` (a publisher, an
    /// `AnyPublisher`'s box, a closure's context), so that no other object takes its
    /// address while a stage known by it lives; nil for 0.
    @inline(__always)
    init?(address: UInt) {
        guard let pointer = UnsafeMutableRawPointer(bitPattern: address) else { return nil }
        object = swift_unownedRetain(pointer)
    }

    /// Whether the object has not begun to deinit.
    @inline(__always)
    var isAlive: Bool { !swift_isDeallocating(object) }

    /// The object, retained, unless it has begun to deinit.
    func strong() -> AnyObject? {
        guard let retained = swift_tryRetain(object) else { return nil }
        return Unmanaged<AnyObject>.fromOpaque(retained).takeRetainedValue()
    }

    /// Gives the unowned count back. Call once per hold.
    @inline(__always)
    func release() {
        swift_unownedRelease(object)
    }
    #endif
}
