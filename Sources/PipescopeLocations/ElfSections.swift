import Glibc

/// The sections of an ELF binary on disk, mapped read-only: what ``DwarfLineTable``
/// reads the program's line tables from.
///
/// Only 64-bit little-endian ELF (Linux on x86_64 and arm64). The file is mapped, not
/// read: the kernel pages in what is touched and may drop it again, so a large debug
/// build costs address space, not memory.
final class ElfSections: @unchecked Sendable {
    private let base: UnsafeRawPointer
    private let size: Int
    private var sections: [String: (offset: Int, size: Int, compressed: Bool)] = [:]

    /// Nil when the file cannot be read or is not a 64-bit little-endian ELF binary.
    package init?(path: String) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_size > 64 else { return nil }
        size = Int(info.st_size)
        guard let mapped = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), mapped != MAP_FAILED else { return nil }
        base = UnsafeRawPointer(mapped)
        guard readSectionHeaders() else {
            munmap(UnsafeMutableRawPointer(mutating: base), size)
            return nil
        }
    }

    deinit { munmap(UnsafeMutableRawPointer(mutating: base), size) }

    /// A section's bytes; nil when the binary has no such section, or it is compressed
    /// (`--compress-debug-sections`: not read here).
    func section(_ name: String) -> UnsafeRawBufferPointer? {
        guard let s = sections[name], !s.compressed else { return nil }
        return UnsafeRawBufferPointer(start: base + s.offset, count: s.size)
    }

    private func read<T: FixedWidthInteger>(_: T.Type, at offset: Int) -> T? {
        guard offset >= 0, offset + MemoryLayout<T>.size <= size else { return nil }
        return T(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: T.self))
    }

    private func readSectionHeaders() -> Bool {
        // e_ident: magic, class 2 (64-bit), data 1 (little-endian).
        guard read(UInt32.self, at: 0) == 0x464c_457f, read(UInt8.self, at: 4) == 2, read(UInt8.self, at: 5) == 1,
              let headers = read(UInt64.self, at: 0x28), let entrySize = read(UInt16.self, at: 0x3a),
              let count = read(UInt16.self, at: 0x3c), let namesIndex = read(UInt16.self, at: 0x3e),
              entrySize >= 64, namesIndex < count else { return false }
        func header(_ i: Int) -> (name: UInt32, flags: UInt64, offset: Int, size: Int)? {
            let at = Int(headers) + i * Int(entrySize)
            guard let name = read(UInt32.self, at: at), let flags = read(UInt64.self, at: at + 8),
                  let offset = read(UInt64.self, at: at + 24), let size = read(UInt64.self, at: at + 32),
                  Int(offset) + Int(size) <= self.size else { return nil }
            return (name, flags, Int(offset), Int(size))
        }
        guard let names = header(Int(namesIndex)) else { return false }
        for i in 0..<Int(count) {
            guard let h = header(i), Int(h.name) < names.size else { continue }
            let start = base + names.offset + Int(h.name)
            let limit = names.size - Int(h.name)
            let length = strnlen(start.assumingMemoryBound(to: CChar.self), limit)
            let name = String(decoding: UnsafeRawBufferPointer(start: start, count: length), as: UTF8.self)
            let shfCompressed: UInt64 = 0x800
            sections[name] = (h.offset, h.size, h.flags & shfCompressed != 0)
        }
        return true
    }
}
