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

struct image_query {
    uintptr_t address;
    uintptr_t bias;
    const char *name;
    int found;
};

static int find_image(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    struct image_query *query = data;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *header = &info->dlpi_phdr[i];
        if (header->p_type != PT_LOAD) continue;
        uintptr_t start = info->dlpi_addr + header->p_vaddr;
        if (query->address >= start && query->address < start + header->p_memsz) {
            query->bias = info->dlpi_addr;
            query->name = info->dlpi_name;
            query->found = 1;
            return 1;
        }
    }
    return 0;
}

int pipescope_image_of(uintptr_t address, uintptr_t *bias, const char **name) {
    struct image_query query = { address, 0, 0, 0 };
    dl_iterate_phdr(find_image, &query);
    *bias = query.bias;
    *name = query.name;
    return query.found;
}
