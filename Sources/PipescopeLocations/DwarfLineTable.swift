import CPipescopeLocations

/// The DWARF line tables (`.debug_line`, versions 2 to 5) of one binary, indexed by
/// address: a lookup runs the one unit's line program that covers the address.
///
/// Why not the Swift runtime's `sourceLocation(for:)`: it runs every unit's line program
/// until one covers the address, about 50 ms an address in a 60 MB debug build. Here one
/// pass at start records each sequence's address range (24 bytes each: about 750 KB for
/// such a binary), and a lookup then runs one unit's program: well under a millisecond.
/// The programs run in C (`pipescope_line_sequences`, `pipescope_line_at`); the file
/// tables are read here.
///
/// Addresses are the binary's own (the runtime address minus the image's base).
final class DwarfLineTable: @unchecked Sendable {
    private let elf: ElfSections
    private let lines: UnsafeRawBufferPointer
    private let lineStrings: UnsafeRawBufferPointer?
    private let strings: UnsafeRawBufferPointer?
    private let sequences: [pipescope_line_sequence]

    /// Nil when the binary has no (uncompressed) line tables.
    package init?(path: String) {
        guard let elf = ElfSections(path: path), let lines = elf.section(".debug_line"),
              let base = lines.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
        self.elf = elf
        self.lines = lines
        lineStrings = elf.section(".debug_line_str")
        strings = elf.section(".debug_str")
        let count = pipescope_line_sequences(base, lines.count, nil, 0)
        guard count > 0 else { return nil }
        var found = [pipescope_line_sequence](repeating: .init(), count: count)
        _ = found.withUnsafeMutableBufferPointer { pipescope_line_sequences(base, lines.count, $0.baseAddress, count) }
        sequences = found.sorted { $0.low < $1.low }
    }

    /// The file and line of the code at `address`; nil when no sequence covers it. Line
    /// 0 is code the compiler made itself, with no line of its own.
    func location(at address: UInt64) -> (file: String, line: Int)? {
        // The last sequence starting at or before the address.
        var lo = 0, hi = sequences.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if sequences[mid].low <= address { lo = mid + 1 } else { hi = mid }
        }
        guard lo > 0, let base = lines.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
        let sequence = sequences[lo - 1]
        var file: UInt64 = 0
        var line: Int64 = 0
        guard address < sequence.high,
              pipescope_line_at(base, lines.count, sequence.unit, address, &file, &line) == 1, line >= 0,
              let unit = try? Unit(lines, at: Int(sequence.unit)),
              let path = try? unit.fileName(file, lines: lines, lineStrings: lineStrings, strings: strings)
        else { return nil }
        return (path, Int(line))
    }

    // MARK: - File tables

    /// One unit's header, as far as its file table.
    fileprivate struct Unit {
        var version: UInt16
        var offsetSize: Int
        /// Where the directory and file tables start, and where the program starts.
        var tables: Int
        var program: Int

        package init(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws {
            var r = ByteReader(bytes, at: offset)
            var length = UInt64(try r.u32())
            offsetSize = 4
            if length == 0xffff_ffff {
                length = try r.u64()
                offsetSize = 8
            }
            let end = r.at + Int(clamping: length)
            guard end <= bytes.count else { throw ByteReader.Malformed() }
            version = try r.u16()
            guard (2...5).contains(version) else { throw ByteReader.Malformed() }
            if version >= 5 { r.at += 2 }  // address size, segment selector size
            let headerLength = offsetSize == 8 ? Int(clamping: try r.u64()) : Int(try r.u32())
            program = r.at + headerLength
            r.at += version >= 4 ? 5 : 4  // instruction length, max ops (4+), is_stmt, line base, line range
            let opcodeBase = Int(try r.u8())
            tables = r.at + max(0, opcodeBase - 1)
            guard program <= end, tables <= program else { throw ByteReader.Malformed() }
        }

        /// The path of file number `index` in this unit's file table.
        func fileName(_ index: UInt64, lines: UnsafeRawBufferPointer, lineStrings: UnsafeRawBufferPointer?,
                      strings: UnsafeRawBufferPointer?) throws -> String {
            var r = ByteReader(lines, at: tables, end: program)
            let path: (name: String, directory: String?)
            if version >= 5 {
                let directories = try entries(&r, lineStrings: lineStrings, strings: strings)
                let files = try entries(&r, lineStrings: lineStrings, strings: strings)
                guard Int(index) < files.count else { throw ByteReader.Malformed() }
                let file = files[Int(index)]
                var directory = directories.indices.contains(file.directory) ? directories[file.directory].path : nil
                // Relative directories are relative to directory 0, the compilation directory.
                if let d = directory, !d.hasPrefix("/"), file.directory != 0, let base = directories.first?.path,
                   base.hasPrefix("/") {
                    directory = base.hasSuffix("/") ? base + d : base + "/" + d
                }
                path = (file.path, directory)
            } else {
                var directories: [String] = []
                while true {
                    let d = try r.cString()
                    if d.isEmpty { break }
                    directories.append(d)
                }
                var number: UInt64 = 0
                var found: (String, Int)?
                while true {
                    let name = try r.cString()
                    if name.isEmpty { break }
                    let directory = Int(try r.uleb())
                    _ = try r.uleb()
                    _ = try r.uleb()
                    number += 1
                    if number == index { found = (name, directory) }
                }
                guard let (name, directory) = found else { throw ByteReader.Malformed() }
                // Directory 0 is the unit's compilation directory, which only .debug_info names.
                path = (name, directory > 0 && directory <= directories.count ? directories[directory - 1] : nil)
            }
            if path.name.hasPrefix("/") { return path.name }
            guard let directory = path.directory, !directory.isEmpty else { return path.name }
            return directory.hasSuffix("/") ? directory + path.name : directory + "/" + path.name
        }

        /// A version 5 directory or file table.
        private func entries(_ r: inout ByteReader, lineStrings: UnsafeRawBufferPointer?,
                             strings: UnsafeRawBufferPointer?) throws -> [(path: String, directory: Int)] {
            let formatCount = Int(try r.u8())
            let formats = try (0..<formatCount).map { _ in (content: try r.uleb(), form: try r.uleb()) }
            let count = Int(try r.uleb())
            var out: [(path: String, directory: Int)] = []
            for _ in 0..<count {
                var entry = (path: "", directory: 0)
                for format in formats {
                    let value = try r.formValue(format.form, offsetSize: offsetSize, lineStrings: lineStrings,
                                                strings: strings)
                    switch format.content {
                    case 1: entry.path = value.string ?? ""         // DW_LNCT_path
                    case 2: entry.directory = Int(value.number ?? 0)  // DW_LNCT_directory_index
                    default: break
                    }
                }
                out.append(entry)
            }
            return out
        }
    }
}
