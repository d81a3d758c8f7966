/// One TrackDescriptor.
struct PerfettoTrack {
    var uuid: UInt64
    var parent: UInt64?
    var name: String?
    var description: String?
    /// Its place among its siblings (their parent orders children explicitly).
    var rank: Int?
    /// Orders its children by their rank.
    var explicitChildren = false
    var process: (pid: Int, name: String)?
    /// A counter track, with its unit's name.
    var counterUnit: String?

    init(uuid: UInt64, parent: UInt64? = nil, name: String? = nil) {
        self.uuid = uuid
        self.parent = parent
        self.name = name
    }
}
