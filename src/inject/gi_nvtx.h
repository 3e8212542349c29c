/* The NVTX range filter of gpuq profile --nvtx-include NAME (pure C, unit
 * tested in tests/profile/test_gi_nvtx.c): a launch is profiled only while
 * a range of that name is open, either a push/pop range on the launching
 * thread's stack (at any depth) or a start/end range of the process.
 * Names are compared exactly (no domain, no regex). */
#ifndef GPUQ_GI_NVTX_H
#define GPUQ_GI_NVTX_H

#include <stddef.h>
#include <stdint.h>

/* One thread's push/pop stack: which of its first 64 levels match (deeper
 * levels are counted and never match: no allocation on the launch path). */
typedef struct gi_nvtx_thread {
    uint64_t match_bits;
    unsigned depth;
} gi_nvtx_thread;

#define GI_NVTX_TRACKED_DEPTH 64

int gi_nvtx_name_matches(const char *name, const char *want);
void gi_nvtx_push(gi_nvtx_thread *t, const char *name, const char *want);
/* A pop without a push (unbalanced) changes nothing. */
void gi_nvtx_pop(gi_nvtx_thread *t);
int gi_nvtx_thread_inside(const gi_nvtx_thread *t);

/* The process's open start/end ranges of the wanted name, by id (the caller
 * locks). */
typedef struct gi_nvtx_open {
    uint64_t *ids;
    size_t n, cap;
} gi_nvtx_open;

/* 0 when out of memory (the range is then not seen). */
int gi_nvtx_start(gi_nvtx_open *o, uint64_t id, const char *name, const char *want);
void gi_nvtx_end(gi_nvtx_open *o, uint64_t id);
int gi_nvtx_open_inside(const gi_nvtx_open *o);
void gi_nvtx_open_free(gi_nvtx_open *o);

#endif
