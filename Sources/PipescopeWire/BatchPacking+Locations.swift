import PipescopeGraph

/// The location columns of a packed batch: each new stage's ``NodeInfo/location`` and
/// ``NodeInfo/frames``, flattened. See `PackedBatch.node_location_counts` in
/// Resources/pipescope.proto for the layout and why it is so.
extension BatchPacking {
    /// How many strings the locations of `infos` can add to the table at most.
    static func locationStrings(_ infos: [NodeInfo]) -> Int {
        infos.reduce(0) { $0 + ($1.location == nil ? 0 : 3 * (1 + $1.frames.count)) }
    }

    /// Sets `p`'s location columns from `infos`; leaves them empty when no stage has a
    /// location (the common case for a batch without new roots).
    static func packLocations(_ infos: [NodeInfo], into p: inout WirePackedBatch, table: inout StringTable,
                              added: inout [String]) {
        guard infos.contains(where: { $0.location != nil }) else { return }
        var counts: [UInt32] = [], files: [UInt32] = [], lines: [UInt32] = []
        var functions: [UInt32] = [], images: [UInt32] = [], offsets: [UInt64] = []
        counts.reserveCapacity(infos.count)
        for info in infos {
            guard let location = info.location else {
                counts.append(0)
                continue
            }
            counts.append(UInt32(1 + info.frames.count))
            for l in [location] + info.frames {
                files.append(table.id(for: l.file ?? "", added: &added))
                lines.append(UInt32(clamping: l.line ?? 0))
                functions.append(table.id(for: l.function ?? "", added: &added))
                images.append(table.id(for: l.image ?? "", added: &added))
                offsets.append(l.offset ?? 0)
            }
        }
        p.nodeLocationCounts = counts
        p.locationFiles = files
        p.locationLines = lines
        p.locationFunctions = functions
        p.locationImages = images
        p.locationOffsets = offsets
    }

    /// Gives `infos` the locations in `p`'s columns. Columns that disagree, or names
    /// never defined, throw ``FrameError/malformed(_:)``.
    static func unpackLocations(_ p: WirePackedBatch, into infos: inout [NodeInfo], table: StringTable) throws {
        let counts = p.nodeLocationCounts
        guard !counts.isEmpty else { return }
        let files = p.locationFiles, lines = p.locationLines, functions = p.locationFunctions
        let images = p.locationImages, offsets = p.locationOffsets
        guard counts.count == infos.count,
              [lines.count, functions.count, images.count, offsets.count].allSatisfy({ $0 == files.count }),
              counts.reduce(0, { $0 + Int($1) }) == files.count else {
            throw FrameError.malformed("a packed batch whose location columns do not match its stages")
        }
        var next = 0
        for i in infos.indices where counts[i] > 0 {
            var found: [SourceLocation] = []
            for j in next..<next + Int(counts[i]) {
                found.append(SourceLocation(
                    file: try table.string(files[j]), line: Int(lines[j]), function: try table.string(functions[j]),
                    image: try table.string(images[j]), offset: offsets[j] == 0 ? nil : offsets[j]))
            }
            next += Int(counts[i])
            infos[i].location = found.first
            infos[i].frames = Array(found.dropFirst())
        }
    }
}
