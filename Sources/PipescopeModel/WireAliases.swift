import PipescopeWire

public typealias PipescopeGraphSnapshot = WireSnapshot
public typealias PipescopeEventBatch = WireEventBatch
