import CPipescopeLocations

/// The closure a compiler-made "partial apply" forwarder calls.
///
/// A closure that captures values is stored as a forwarder (`partial apply for closure
/// #1 in Feed.start()`) that loads the captures from its context and calls the closure;
/// the forwarder has no line of its own. Its first direct calls and jumps are read from
/// the program's code (mapped, read-only, and never changing; never past the end of the
/// executable segment it is in, so a forwarder at the very end of one reads no further),
/// and the one whose symbol is the closure the forwarder's name says is the closure. x86-64 only (`call`/`jmp`
/// with a 32-bit displacement); elsewhere there are no callees, and the stage's code is
/// unknown rather than the forwarder's.
///
/// ```swift
/// PartialApply.calledName("partial apply for closure #1 in Feed.start()")   // "closure #1 in Feed.start()"
/// ```
enum PartialApply {
    /// Bytes of a forwarder read at most: forwarders are short, and the scan stops there.
    static let window = 96

    /// The function a forwarder named `name` calls; nil for any other function.
    static func calledName(_ name: String) -> String? {
        for prefix in ["partial apply for ", "partial apply forwarder for "] where name.hasPrefix(prefix) {
            return String(name.dropFirst(prefix.count))
        }
        return nil
    }

    /// The targets of the direct calls and jumps in the first ``window`` bytes at
    /// `address`, in order (each candidate; the caller checks them by name).
    static func callees(at address: UInt) -> [UInt] {
        #if arch(x86_64)
        guard let code = UnsafeRawPointer(bitPattern: address) else { return [] }
        let readable = min(window, Int(pipescope_code_bytes_after(address)))
        var found: [UInt] = []
        var i = 0
        while i + 5 <= readable, found.count < 8 {
            let opcode = code.load(fromByteOffset: i, as: UInt8.self)
            if opcode == 0xE8 || opcode == 0xE9 {
                let displacement = code.loadUnaligned(fromByteOffset: i + 1, as: Int32.self)
                let target = Int(bitPattern: address) &+ i &+ 5 &+ Int(displacement)
                found.append(UInt(bitPattern: target))
            }
            i += 1
        }
        return found
        #else
        return []
        #endif
    }
}
