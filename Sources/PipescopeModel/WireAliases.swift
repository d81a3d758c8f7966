import PipescopeWire

public typealias PipescopeGraphSnapshot = WireSnapshot
public typealias PipescopeEventBatch = WireEventBatch
public typealias WirePending = Pipescope_V1_PendingEvent
