import PipescopeGraph

/// The location columns of a packed batch: each new stage's ``NodeInfo/location`` and
/// ``NodeInfo/frames`` in the flat `location_*` columns, and the locations found for
/// earlier stages (``EventBatch/locations``) in `located_nodes` and the `located`
/// columns, laid out the same way. See `PackedBatch.node_location_counts` in
/// Resources/pipescope.proto for the layout and why it is so.
extension BatchPacking {
    /// One stage's locations: its own and its callers', or none.
    typealias Entry = (location: SourceLocation, frames: [SourceLocation])?

    /// How many strings the locations of `batch` can add to the table at most.
    static func locationStrings(_ batch: EventBatch) -> Int {
        batch.nodes.reduce(0) { $0 + ($1.location == nil ? 0 : 3 * (1 + $1.frames.count)) }
            + batch.locations.reduce(0) { $0 + 3 * (1 + $1.frames.count) }
    }

    /// Sets `p`'s location columns from `batch`; leaves them empty when there are no
    /// locations (the common case for a batch without new roots).
    static func packLocations(_ batch: EventBatch, into p: inout WirePackedBatch, table: inout StringTable,
                              added: inout [String]) {
        if batch.nodes.contains(where: { $0.location != nil }) {
            let c = pack(batch.nodes.map { info in info.location.map { ($0, info.frames) } },
                         table: &table, added: &added)
            p.nodeLocationCounts = c.counts
            p.locationFiles = c.files
            p.locationLines = c.lines
            p.locationFunctions = c.functions
            p.locationImages = c.images
            p.locationOffsets = c.offsets
        }
        if !batch.locations.isEmpty {
            p.locatedNodes = batch.locations.map(\.node)
            p.located = pack(batch.locations.map { ($0.location, $0.frames) }, table: &table, added: &added)
        }
    }

    /// Gives `batch` the locations in `p`'s columns. Columns that disagree, or names
    /// never defined, throw ``FrameError/malformed(_:)``.
    static func unpackLocations(_ p: WirePackedBatch, into batch: inout EventBatch, table: StringTable) throws {
        if !p.nodeLocationCounts.isEmpty {
            var flat = WireLocationColumns()
            flat.counts = p.nodeLocationCounts
            flat.files = p.locationFiles
            flat.lines = p.locationLines
            flat.functions = p.locationFunctions
            flat.images = p.locationImages
            flat.offsets = p.locationOffsets
            let entries = try unpack(flat, stages: batch.nodes.count, table: table, what: "its stages")
            for (i, entry) in entries.enumerated() {
                batch.nodes[i].location = entry?.location
                batch.nodes[i].frames = entry?.frames ?? []
            }
        }
        if !p.locatedNodes.isEmpty || p.hasLocated {
            let entries = try unpack(p.located, stages: p.locatedNodes.count, table: table,
                                     what: "the stages it locates")
            for (node, entry) in zip(p.locatedNodes, entries) {
                guard let entry else {
                    throw FrameError.malformed("a packed batch that locates stage \(node) without a location")
                }
                batch.locations.append(LocatedStage(node: node, location: entry.location, frames: entry.frames))
            }
        }
    }

    /// Sets `p`'s `stage_code` columns from ``EventBatch/codes``; none when it has none.
    static func packCodes(_ batch: EventBatch, into p: inout WirePackedBatch, table: inout StringTable,
                          added: inout [String]) {
        guard !batch.codes.isEmpty else { return }
        var c = WireStageCodeColumns()
        c.nodes = batch.codes.map(\.node)
        c.code = pack(batch.codes.map { $0.code.map { ($0, []) } }, table: &table, added: &added)
        c.builtBy = pack(batch.codes.map { $0.builtBy.map { ($0, []) } }, table: &table, added: &added)
        p.stageCode = c
    }

    /// Gives `batch` the code places in `p`'s `stage_code` columns.
    static func unpackCodes(_ p: WirePackedBatch, into batch: inout EventBatch, table: StringTable) throws {
        guard p.hasStageCode else { return }
        let c = p.stageCode
        let code = try unpack(c.code, stages: c.nodes.count, table: table, what: "the stages whose code it places")
        let builtBy = try unpack(c.builtBy, stages: c.nodes.count, table: table, what: "the stages whose code it places")
        for (i, node) in c.nodes.enumerated() {
            batch.codes.append(StageCode(node: node, code: code[i]?.location, builtBy: builtBy[i]?.location))
        }
    }

    private static func pack(_ entries: [Entry], table: inout StringTable, added: inout [String]) -> WireLocationColumns {
        var c = WireLocationColumns()
        var counts: [UInt32] = [], files: [UInt32] = [], lines: [UInt32] = []
        var functions: [UInt32] = [], images: [UInt32] = [], offsets: [UInt64] = []
        counts.reserveCapacity(entries.count)
        for entry in entries {
            guard let entry else {
                counts.append(0)
                continue
            }
            counts.append(UInt32(1 + entry.frames.count))
            for l in [entry.location] + entry.frames {
                files.append(table.id(for: l.file ?? "", added: &added))
                lines.append(UInt32(clamping: l.line ?? 0))
                functions.append(table.id(for: l.function ?? "", added: &added))
                images.append(table.id(for: l.image ?? "", added: &added))
                offsets.append(l.offset ?? 0)
            }
        }
        c.counts = counts
        c.files = files
        c.lines = lines
        c.functions = functions
        c.images = images
        c.offsets = offsets
        return c
    }

    private static func unpack(_ c: WireLocationColumns, stages: Int, table: StringTable,
                               what: String) throws -> [Entry] {
        let counts = c.counts, files = c.files, lines = c.lines, functions = c.functions
        let images = c.images, offsets = c.offsets
        guard counts.count == stages,
              [lines.count, functions.count, images.count, offsets.count].allSatisfy({ $0 == files.count }),
              counts.reduce(0, { $0 + Int($1) }) == files.count else {
            throw FrameError.malformed("a packed batch whose location columns do not match \(what)")
        }
        var entries: [Entry] = []
        entries.reserveCapacity(stages)
        var next = 0
        for count in counts {
            guard count > 0 else {
                entries.append(nil)
                continue
            }
            var found: [SourceLocation] = []
            for j in next..<next + Int(count) {
                found.append(SourceLocation(
                    file: try table.string(files[j]), line: Int(lines[j]), function: try table.string(functions[j]),
                    image: try table.string(images[j]), offset: offsets[j] == 0 ? nil : offsets[j]))
            }
            next += Int(count)
            entries.append((found[0], Array(found.dropFirst())))
        }
        return entries
    }
}
