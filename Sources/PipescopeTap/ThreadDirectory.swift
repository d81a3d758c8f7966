/// Numbers for the threads the tap has seen, and their names: an event records its
/// thread as a number (4 bytes, no reference), and the flush turns it into a name.
///
/// Numbers start at 1 (0 is "unknown") and are never reused; a thread is numbered once,
/// when its ``ThreadFrames`` are made. Names only grow: a program has few threads, and a
/// thread pool reuses its own.
package enum ThreadDirectory {
    private static let storage = LockedBox<[String]>([""])

    /// Numbers a new thread named `label`.
    static func register(_ label: String) -> UInt32 {
        storage.withLockedValue { names in
            names.append(label)
            return UInt32(names.count - 1)
        }
    }

    /// Every name so far, indexed by number (a shared copy: no names are copied).
    package static var names: [String] {
        storage.withLockedValue { $0 }
    }
}
