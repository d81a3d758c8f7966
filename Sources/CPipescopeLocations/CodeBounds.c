#define _GNU_SOURCE
#include <link.h>
#include <stdint.h>

#include "PipescopeLocations.h"

struct code_query {
    uintptr_t address;
    uintptr_t end;
};

static int find_segment(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    struct code_query *query = data;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *header = &info->dlpi_phdr[i];
        if (header->p_type != PT_LOAD || !(header->p_flags & PF_X)) continue;
        uintptr_t start = info->dlpi_addr + header->p_vaddr;
        uintptr_t end = start + header->p_memsz;
        if (query->address >= start && query->address < end) {
            query->end = end;
            return 1;
        }
    }
    return 0;
}

size_t pipescope_code_bytes_after(uintptr_t address) {
    struct code_query query = { address, 0 };
    dl_iterate_phdr(find_segment, &query);
    return query.end ? query.end - address : 0;
}
