#ifndef PIPESCOPE_LOCATIONS_H
#define PIPESCOPE_LOCATIONS_H

#include <stddef.h>
#include <stdint.h>

/// Writes the return addresses of the calling thread's stack into `out`, nearest first,
/// starting with the return into this function's caller; at most `max`. Returns how
/// many were written.
///
/// It follows the frame-pointer chain (each frame holds the caller's frame pointer and
/// the return address beside it), which Swift code keeps on Linux: a few nanoseconds a
/// frame, no allocation, no lock, no symbol lookup. It reads memory only inside
/// [low, high), the thread's stack as pipescope_thread_stack gave it, and stops at the
/// first frame pointer that is outside it, misaligned, or not above the previous one:
/// code built without frame pointers ends the walk early instead of misleading it.
int pipescope_return_addresses(uintptr_t *out, int max, uintptr_t low, uintptr_t high);

/// The calling thread's stack, [*low, *high). Returns 0 on success. Costs a system call
/// or two (the main thread's reads /proc/self/maps), so callers keep the answer per thread.
int pipescope_thread_stack(uintptr_t *low, uintptr_t *high);

/// How many bytes of a loaded binary's executable segment there are from `address` to the
/// segment's end; 0 when `address` is in no loaded binary's executable segment. Takes the
/// dynamic loader's lock (dl_iterate_phdr): for the symbol thread, never a program's.
size_t pipescope_code_bytes_after(uintptr_t address);

/// The loaded binary with a segment holding `address` (code or data, such as a type's
/// descriptor): its load bias (what its symbols' values are offset by) in `*bias`, and
/// its path in `*name` ("" for the program itself; valid while the binary stays
/// loaded). Returns 1 if one holds it. Takes the dynamic loader's lock: for the symbol
/// thread, never a program's.
int pipescope_image_of(uintptr_t address, uintptr_t *bias, const char **name);

// MARK: - DWARF line programs

/// One sequence of a line table: the code in [low, high) is described by the line
/// program of the unit at `unit` (an offset in .debug_line).
typedef struct {
    uint64_t low;
    uint64_t high;
    uint64_t unit;
} pipescope_line_sequence;

/// Runs every unit's line program in a .debug_line section (DWARF 2 to 5) and writes
/// each sequence's range into `out`, at most `capacity`. Returns how many sequences there
/// are (more than `capacity` when `out` was too small; call with capacity 0 to count).
/// Reads only inside [lines, lines + size); a malformed unit ends the walk.
size_t pipescope_line_sequences(const uint8_t *lines, size_t size, pipescope_line_sequence *out, size_t capacity);

/// Runs the line program of the unit at `unit` and finds the row covering `address`:
/// its file number (as the unit's file table numbers them) and line. Returns 1 if found.
int pipescope_line_at(const uint8_t *lines, size_t size, uint64_t unit, uint64_t address,
                      uint64_t *file, int64_t *line);

#endif
