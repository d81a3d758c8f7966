import CPipescopeLocations
import Foundation

/// Where a type of the program's has its own method: the code a custom publisher's or
/// subscriber's stage runs (`Ticker.receive(subscriber:)`, `Collector.receive(_:)`).
///
/// The tap names the type by its nominal type descriptor (`ProgramType` in PipescopeTap).
/// The descriptor's symbol (`$s3App6TickerVMn`) without its `Mn` is the prefix of the
/// type's methods' symbols: `$s3App6TickerV` + `7receive10subscriber` + `y…F` is
/// `Ticker.receive(subscriber:)`, `$s3App9CollectorC` + `7receive` + `y…F` is
/// `Collector.receive(_:)`. The method itself is wanted, not the protocol witness the
/// runtime calls (`$s3App6TickerVAA…TW`, code the compiler made, with no line); its
/// specializations and closures (`…Tg5`, `…U_`) do not end in `F`, and a local function
/// in it (`…F5innerL_yyF`) is longer: the shortest match is the method.
///
/// Read from the binary's symbol table (`.symtab`, else `.dynsym`), indexed once per
/// binary on the ``SymbolThread`` (never on the program's threads or the flush). A
/// stripped binary, a type whose method comes from a protocol extension, or one declared
/// in an extension in another module has no such symbol: no place, never a guess.
final class TypeMethods: @unchecked Sendable {
    static let shared = TypeMethods()

    /// Which method a type's stage runs.
    enum Role: UInt8, Sendable {
        /// A publisher's `receive(subscriber:)`.
        case publisher
        /// A subscriber's `receive(_:)`.
        case subscriber

        /// What follows the type's prefix in the method's symbol (its name and labels,
        /// then `y`, where its type begins).
        var suffix: String {
            switch self {
            case .publisher: "7receive10subscribery"
            case .subscriber: "7receivey"
            }
        }
    }

    /// One binary's symbols that matter here.
    private struct Index {
        /// Descriptors' names by symbol value.
        var descriptors: [UInt64: String] = [:]
        /// Functions whose names hold one of the roles' suffixes, with their values.
        var methods: [(name: String, value: UInt64)] = []
    }

    private let lock = NSLock()
    private var indexes: [String: Index?] = [:]

    /// The address of the method `role` of the type whose descriptor is at `descriptor`,
    /// in this process; nil when the binary's symbols do not name it.
    ///
    /// ```swift
    /// TypeMethods.shared.method(of: tickerDescriptor, role: .publisher)   // Ticker.receive(subscriber:)
    /// ```
    func method(of descriptor: UInt, role: Role) -> UInt? {
        guard let image = Self.image(at: descriptor) else { return nil }
        return lock.withLock {
            // A symbol's value plus its binary's load bias is its address.
            guard let index = index(image.path), let name = index.descriptors[UInt64(descriptor &- image.bias)] else {
                return nil
            }
            let wanted = name.dropLast(2) + role.suffix
            let best = index.methods.filter { $0.name.hasPrefix(wanted) }.min { $0.name.utf8.count < $1.name.utf8.count }
            return best.map { image.bias &+ UInt(truncatingIfNeeded: $0.value) }
        }
    }

    /// The path of the binary holding `address` and its load bias.
    private static func image(at address: UInt) -> (path: String, bias: UInt)? {
        var bias: UInt = 0
        var name: UnsafePointer<CChar>?
        guard pipescope_image_of(address, &bias, &name) != 0 else { return nil }
        let path = name.map { String(cString: $0) } ?? ""
        // The program itself has no name in the loader's list.
        return (path.isEmpty ? "/proc/self/exe" : path, bias)
    }

    /// The index of the binary at `path`, built the first time. Under the lock.
    private func index(_ path: String) -> Index? {
        if let known = indexes[path] { return known }
        let built = ElfSections(path: path).flatMap(Self.index)
        indexes[path] = built
        return built
    }

    private static let descriptorEnd = Array("Mn".utf8)
    private static let suffixes = [Role.publisher.suffix, Role.subscriber.suffix]

    /// One pass over the symbol table: the names are looked at as bytes, and only the
    /// few that matter become strings.
    private static func index(_ elf: ElfSections) -> Index? {
        guard let (symbols, names) = [(".symtab", ".strtab"), (".dynsym", ".dynstr")].lazy
            .compactMap({ table, strings in elf.section(table).flatMap { s in elf.section(strings).map { (s, $0) } } })
            .first else { return nil }
        var index = Index()
        let entrySize = 24
        var at = 0
        while at + entrySize <= symbols.count {
            defer { at += entrySize }
            let nameOffset = Int(UInt32(littleEndian: symbols.loadUnaligned(fromByteOffset: at, as: UInt32.self)))
            let value = UInt64(littleEndian: symbols.loadUnaligned(fromByteOffset: at + 8, as: UInt64.self))
            guard value != 0, nameOffset + 3 < names.count, names[nameOffset] == 0x24 /* $ */,
                  names[nameOffset + 1] == 0x73 /* s */ else { continue }
            var end = nameOffset
            while end < names.count, names[end] != 0 { end += 1 }
            let last = names[end - 1]
            guard last == 0x46 /* F */ || (last == descriptorEnd[1] && names[end - 2] == descriptorEnd[0]) else { continue }
            let name = String(decoding: UnsafeRawBufferPointer(rebasing: names[nameOffset..<end]), as: UTF8.self)
            if last == 0x46 {
                if suffixes.contains(where: name.contains) { index.methods.append((name, value)) }
            } else {
                index.descriptors[value] = name
            }
        }
        return index
    }
}
