@preconcurrency import OpenCombine
import PipescopeGraph
import PipescopeTap

/// A promise a publisher makes about what it emits, checked at run time.
public enum PipescopeContract: String, Sendable {
    /// Emits a value, finishes or fails during subscribe (when asked for demand then).
    case immediate
    /// Exactly one value then finished, or a failure.
    case single
    /// At most one value then finished, or a failure.
    case maybe
}

extension Publisher {
    /// Names this point of the pipeline in Pipescope: the stage shows as `name`.
    ///
    /// ```swift
    /// api.image(for: user).pipescopeName("profile image").sink { … }
    /// ```
    public func pipescopeName(_ name: String) -> PipescopeStage<Self> {
        PipescopeStage(upstream: self, label: name, contract: nil)
    }

    /// Declares what this publisher promises; a broken promise is reported to Pipescope
    /// (the contract-violation lint on this stage), never a crash. Values pass unchanged.
    public func pipescopeExpect(_ contract: PipescopeContract, name: String? = nil) -> PipescopeStage<Self> {
        PipescopeStage(upstream: self, label: name ?? "expect \(contract.rawValue)", contract: contract)
    }
}

/// A pass-through stage that carries a name and, optionally, a contract to check.
public struct PipescopeStage<Upstream: Publisher>: Publisher, PipescopeLabelled {
    public typealias Output = Upstream.Output
    public typealias Failure = Upstream.Failure

    let upstream: Upstream
    let label: String
    let contract: PipescopeContract?
    package var pipescopeLabel: String { label }
    package var pipescopeUpstreamType: Any.Type { Upstream.self }

    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        // The tap is inside this stage's subscribe now: the top frame is this stage.
        var node: NodeID?
        if case .subscribing(let id, _)? = ThreadFrames.current.top { node = id }
        let checker = ContractChecker(downstream: subscriber, label: label, contract: contract, node: node)
        upstream.subscribe(checker)
        checker.subscribeReturned()
    }
}

/// Sits between the upstream and the downstream, counting what passes.
final class ContractChecker<Downstream: Subscriber>: Subscriber, Subscription, CustomStringConvertible,
    @unchecked Sendable {
    typealias Input = Downstream.Input
    typealias Failure = Downstream.Failure

    private let downstream: Downstream
    private let contract: PipescopeContract?
    let description: String
    private let lock = Lock()
    private var upstream: (any Subscription)?
    private var values = 0
    private var ended = false
    private var demanded = false
    private var reported = Set<String>()
    /// This stage in the inspector (nil when Pipescope is not tapping).
    private let node: NodeID?

    init(downstream: Downstream, label: String, contract: PipescopeContract?, node: NodeID?) {
        self.downstream = downstream
        self.contract = contract
        self.node = node
        description = label
    }

    func receive(subscription: any Subscription) {
        lock.withLock { upstream = subscription }
        downstream.receive(subscription: self)
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        let count = lock.withLock { () -> Int in
            values += 1
            return values
        }
        if count == 2, contract == .single || contract == .maybe {
            report("expected \(contract!.rawValue): a second value arrived")
        }
        return downstream.receive(input)
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        let count = lock.withLock { () -> Int in
            ended = true
            return values
        }
        if contract == .single, case .finished = completion, count == 0 {
            report("expected single: finished without a value")
        }
        downstream.receive(completion: completion)
    }

    func request(_ demand: Subscribers.Demand) {
        let up = lock.withLock { () -> (any Subscription)? in
            if demand > .none { demanded = true }
            return upstream
        }
        up?.request(demand)
    }

    func cancel() {
        let up = lock.withLock { () -> (any Subscription)? in
            defer { upstream = nil }
            return upstream
        }
        up?.cancel()
    }

    /// Immediate: by the end of subscribe, with demand asked for, something arrived.
    func subscribeReturned() {
        guard contract == .immediate else { return }
        let kept = lock.withLock { values > 0 || ended || !demanded }
        if !kept {
            report("expected immediate: subscribed with demand, but nothing arrived during subscribe")
        }
    }

    private func report(_ text: String) {
        guard lock.withLock({ reported.insert(text).inserted }),
              let registry = ActiveTap.registry, let node else { return }
        registry.record(RawEvent(kind: .contractBroken, node: node, time: eventTicks()), text: text)
    }
}
