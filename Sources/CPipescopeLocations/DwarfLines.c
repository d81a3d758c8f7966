// DWARF line programs (the .debug_line section), run in C: the index is built once per
// binary at start, and the Swift side of Pipescope may be a debug build, where the same
// loop in Swift is ten times slower. Only what an address-to-line lookup needs is read;
// the file tables are parsed on the Swift side (DwarfLineTable.swift).
#include <string.h>
#include "PipescopeLocations.h"

typedef struct {
    const uint8_t *p;
    const uint8_t *end;
    int bad;
} reader;

static uint64_t read_fixed(reader *r, int n) {
    if (r->bad || r->end - r->p < n) { r->bad = 1; return 0; }
    uint64_t v = 0;
    for (int i = 0; i < n; i++) v |= (uint64_t)r->p[i] << (8 * i);
    r->p += n;
    return v;
}

static uint64_t read_uleb(reader *r) {
    uint64_t v = 0;
    unsigned shift = 0;
    while (!r->bad) {
        if (r->p >= r->end) { r->bad = 1; break; }
        uint8_t b = *r->p++;
        if (shift < 64) v |= (uint64_t)(b & 0x7f) << shift;
        shift += 7;
        if (!(b & 0x80)) break;
    }
    return v;
}

static int64_t read_sleb(reader *r) {
    int64_t v = 0;
    unsigned shift = 0;
    uint8_t b = 0;
    do {
        if (r->p >= r->end) { r->bad = 1; return 0; }
        b = *r->p++;
        if (shift < 64) v |= (int64_t)(b & 0x7f) << shift;
        shift += 7;
    } while (b & 0x80);
    if (shift < 64 && (b & 0x40)) v |= -((int64_t)1 << shift);
    return v;
}

typedef struct {
    const uint8_t *program;
    const uint8_t *end;
    int address_size;
    uint64_t min_inst;
    int line_base;
    uint64_t line_range;
    uint8_t opcode_base;
    const uint8_t *standard_lengths;
} unit_header;

// Reads the header of the unit at `at`; returns the unit's end, or 0 when malformed.
static const uint8_t *read_unit(const uint8_t *at, const uint8_t *limit, unit_header *u) {
    reader r = { at, limit, 0 };
    uint64_t length = read_fixed(&r, 4);
    int offset_size = 4;
    if (length == 0xffffffffu) { length = read_fixed(&r, 8); offset_size = 8; }
    if (r.bad || length > (uint64_t)(limit - r.p)) return 0;
    const uint8_t *end = r.p + length;
    r.end = end;
    uint64_t version = read_fixed(&r, 2);
    if (version < 2 || version > 5) return 0;
    u->address_size = 8;
    if (version >= 5) { u->address_size = (int)read_fixed(&r, 1); read_fixed(&r, 1); }
    uint64_t header_length = read_fixed(&r, offset_size);
    if (r.bad || header_length > (uint64_t)(end - r.p)) return 0;
    u->program = r.p + header_length;
    u->end = end;
    u->min_inst = read_fixed(&r, 1);
    if (version >= 4) read_fixed(&r, 1);  // maximum operations per instruction
    read_fixed(&r, 1);                    // default is_stmt
    u->line_base = (int8_t)read_fixed(&r, 1);
    u->line_range = read_fixed(&r, 1);
    u->opcode_base = (uint8_t)read_fixed(&r, 1);
    u->standard_lengths = r.p;
    if (r.bad || u->line_range == 0 || u->opcode_base == 0 || (size_t)(end - r.p) < (size_t)(u->opcode_base - 1)) return 0;
    return end;
}

typedef struct {
    uint64_t address, file;
    int64_t line;
    int end_sequence;
} row;

// Runs a unit's program; `emit` returns 0 to stop. Returns 0 when the program is malformed.
typedef int (*row_fn)(const row *, void *);

static int run(const unit_header *u, row_fn emit, void *context) {
    reader r = { u->program, u->end, 0 };
    row s = { 0, 1, 1, 0 };
    uint64_t const_add_pc = u->min_inst * ((255 - (uint64_t)u->opcode_base) / u->line_range);
    while (r.p < r.end && !r.bad) {
        uint8_t op = *r.p++;
        if (op >= u->opcode_base) {
            uint64_t adjusted = op - u->opcode_base;
            s.address += u->min_inst * (adjusted / u->line_range);
            s.line += u->line_base + (int64_t)(adjusted % u->line_range);
            if (!emit(&s, context)) return 1;
            continue;
        }
        switch (op) {
        case 0: {
            uint64_t length = read_uleb(&r);
            if (r.bad || length > (uint64_t)(r.end - r.p)) return 0;
            if (length == 0) break;
            const uint8_t *next = r.p + length;
            uint8_t sub = *r.p++;
            if (sub == 1) {
                s.end_sequence = 1;
                if (!emit(&s, context)) return 1;
                row fresh = { 0, 1, 1, 0 };
                s = fresh;
            } else if (sub == 2) {
                s.address = read_fixed(&r, u->address_size == 4 ? 4 : 8);
            }
            r.p = next;
            break;
        }
        case 1: if (!emit(&s, context)) return 1; break;
        case 2: s.address += read_uleb(&r) * u->min_inst; break;
        case 3: s.line += read_sleb(&r); break;
        case 4: s.file = read_uleb(&r); break;
        case 8: s.address += const_add_pc; break;
        case 9: s.address += read_fixed(&r, 2); break;
        default: {
            // Other standard opcodes (column, is_stmt, prologue…): skip their operands.
            uint8_t operands = op - 1 < u->opcode_base - 1 ? u->standard_lengths[op - 1] : 0;
            for (uint8_t i = 0; i < operands; i++) read_uleb(&r);
        }
        }
    }
    return !r.bad;
}

// MARK: - The index: every sequence's range

typedef struct {
    pipescope_line_sequence *out;
    size_t capacity, count;
    uint64_t unit, low;
    int open;
} sequences;

static int note_sequence(const row *s, void *context) {
    sequences *q = context;
    if (s->end_sequence) {
        if (q->open && s->address > q->low) {
            if (q->count < q->capacity) {
                pipescope_line_sequence one = { q->low, s->address, q->unit };
                q->out[q->count] = one;
            }
            q->count++;
        }
        q->open = 0;
    } else if (!q->open) {
        q->open = 1;
        q->low = s->address;
    }
    return 1;
}

size_t pipescope_line_sequences(const uint8_t *lines, size_t size, pipescope_line_sequence *out, size_t capacity) {
    sequences q = { out, capacity, 0, 0, 0, 0 };
    const uint8_t *at = lines, *limit = lines + size;
    while (at < limit) {
        unit_header u;
        const uint8_t *end = read_unit(at, limit, &u);
        if (!end) break;
        q.unit = (uint64_t)(at - lines);
        q.open = 0;
        run(&u, note_sequence, &q);
        at = end;
    }
    return q.count;
}

// MARK: - One lookup

typedef struct {
    uint64_t address;
    row previous;
    int has_previous, found;
    uint64_t file;
    int64_t line;
} lookup;

static int find_row(const row *s, void *context) {
    lookup *l = context;
    if (l->has_previous && l->previous.address <= l->address && l->address < s->address) {
        l->found = 1;
        l->file = l->previous.file;
        l->line = l->previous.line;
        return 0;
    }
    l->has_previous = !s->end_sequence;
    l->previous = *s;
    return 1;
}

int pipescope_line_at(const uint8_t *lines, size_t size, uint64_t unit, uint64_t address,
                      uint64_t *file, int64_t *line) {
    if (unit >= size) return 0;
    unit_header u;
    if (!read_unit(lines + unit, lines + size, &u)) return 0;
    lookup l;
    memset(&l, 0, sizeof l);
    l.address = address;
    run(&u, find_row, &l);
    if (!l.found) return 0;
    *file = l.file;
    *line = l.line;
    return 1;
}
