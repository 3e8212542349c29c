/* The shared-atomic microbenchmark kernels (paper 000, Sec. 3.2).
 *
 * One templated kernel measures one cell (n, e, c) per SM: n warps, e active
 * lanes each, c of them CAS and the rest the class's operation, start at one
 * agreed clock64 value; every lane reads clock64 just before its atomic
 * (arrival) and again once the atomic's result is there (completion); the SM's
 * T is last completion - first arrival.  The cell is found by %smid, so the
 * two co-resident blocks that carry n > 32 warps measure the same cell.
 * Each kernel makes inner_reps such measurements, one per period, and each
 * is followed by a quiet window in which the warps that are done only wait:
 * their read-out (shuffles, stores) would delay warps still in flight
 * (docs/calibration.md, "The n > 44 single-shot defect").
 *
 * A job class is a functor with apply(addr, prev, one) and kHasResult, and one
 * row in gb_atomics_kernel_rows[]; the kernel itself does not change.
 */
#include <cstdint>

#include "atomics_kernels.h"

namespace {

__device__ __forceinline__ unsigned gb_smid()
{
    unsigned r;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(r));
    return r;
}

__device__ __forceinline__ unsigned gb_nsmid()
{
    unsigned r;
    asm volatile("mov.u32 %0, %%nsmid;" : "=r"(r));
    return r;
}

__device__ __forceinline__ unsigned gb_warpid()
{
    unsigned r;
    asm volatile("mov.u32 %0, %%warpid;" : "=r"(r));
    return r;
}

__device__ __forceinline__ unsigned long long gb_clock()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory");
    return t;
}

__device__ __forceinline__ unsigned long long gb_globaltimer()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)::"memory");
    return t;
}

/* A clock read that cannot issue before v exists.  The read is predicated on
 * (v & zero_mask) == 0: always true at run time, but the compiler cannot know
 * it, so the predicate needs v (a scoreboard wait on the atomic's result) and
 * the clock read, which needs the predicate, issues after it.  A plain clock
 * read after the atomic would issue as soon as the atomic is sent, long before
 * it completes (hopper-probe.md). */
__device__ __forceinline__ unsigned long long gb_clock_after(unsigned v, unsigned zero_mask)
{
    unsigned long long t;
    asm volatile(
        "{\n\t"
        ".reg .pred p;\n\t"
        ".reg .b32 m;\n\t"
        "and.b32 m, %1, %2;\n\t"
        "setp.eq.b32 p, m, 0;\n\t"
        "mov.u64 %0, 0;\n\t"
        "@p mov.u64 %0, %%clock64;\n\t"
        "}"
        : "=l"(t)
        : "r"(v), "r"(zero_mask)
        : "memory");
    return t;
}

/* A shared load the compiler must emit and cannot satisfy from a register. */
__device__ __forceinline__ unsigned gb_load_shared_volatile(const unsigned *addr)
{
    return *(const volatile unsigned *)addr;
}

/* ---- job classes: one functor each ---- */

/* ATOMS.ADD with its result used (the paper's FAO).  The operand is a
 * run-time 1 so the compiler cannot turn it into an increment. */
struct gb_op_add {
    static constexpr bool kHasResult = true;
    __device__ static unsigned apply(unsigned *addr, unsigned prev, unsigned one)
    {
        (void)prev;
        return atomicAdd(addr, one);
    }
};

/* ATOMS.CAS: compare with the previous result (0 in the first round, the
 * value the word starts with), swap in prev + 1: the first lane of a
 * same-address warp succeeds and the others fail, as in a lock-free update. */
struct gb_op_cas {
    static constexpr bool kHasResult = true;
    __device__ static unsigned apply(unsigned *addr, unsigned prev, unsigned one)
    {
        return atomicCAS(addr, prev, prev + one);
    }
};

/* atomicAdd(p, 1) with the result unused: sm_80+ emits ATOMS.POPC.INC, which
 * has no destination register.  Completion is timed by the volatile shared
 * load of the same word that the kernel issues after it (see gb_measure). */
struct gb_op_popc_inc {
    static constexpr bool kHasResult = false;
    __device__ static unsigned apply(unsigned *addr, unsigned prev, unsigned one)
    {
        (void)prev;
        (void)one;
        atomicAdd(addr, 1u);
        return 0;
    }
};

/* One warp's timed atomics.  Single-shot: one atomic.  Steady state: rounds
 * atomics, each aimed at addr + (previous result & zero_mask), so each waits
 * for the one before (one atomic in flight per warp); a class without a
 * result issues its rounds back to back.  A class without a result is
 * completed by a volatile load of its word: shared-memory instructions of one
 * warp to one address are served in order, so the load returns after the
 * atomic has been applied, and the clock read waits for the load. */
template <class Op, bool kSteady>
__device__ __forceinline__ void gb_measure(unsigned *addr, int rounds, unsigned one,
                                           unsigned zero_mask, unsigned long long *t_start,
                                           unsigned long long *t_end)
{
    unsigned r = 0;
    const unsigned long long t = gb_clock();
    if (kSteady) {
        for (int i = 0; i < rounds; i++)
            r = Op::apply(addr + (r & zero_mask), r, one);
    } else {
        r = Op::apply(addr, r, one);
    }
    if (!Op::kHasResult)
        r = gb_load_shared_volatile(addr);
    *t_end = gb_clock_after(r, zero_mask);
    *t_start = t;
}

/* Blocks of up to 1024 threads, two per SM for n > 32: at most 32 registers. */
template <class Op, bool kMixesCas, bool kSteady>
__global__ void __launch_bounds__(1024, 2) gb_atomic_kernel(gb_atomics_kernel_params p)
{
    extern __shared__ unsigned gb_words[];
    /* What the block needs only outside the timed region lives in shared
     * memory, not in registers: with 32 registers per thread (two blocks of
     * 1024 threads) anything more spills to local memory, and a spill reload
     * between the start barrier and the atomic would be timed. */
    __shared__ unsigned long long s_t0;
    __shared__ unsigned s_role;
    __shared__ unsigned s_ok;
    __shared__ unsigned s_n, s_window, s_period;
    /* Each warp's clock readings, per measurement: staged here and written
     * to global memory once, after the last measurement. */
    __shared__ gb_atomics_warp_times s_times[GB_ATOMICS_MAX_INNER_REPS][32];

    {
        const unsigned smid = gb_smid();
        if (smid >= p.nsmid || !p.cells[smid].active)
            return;
    }

    /* Rendezvous: the first blocks_per_cell blocks on this SM measure; each
     * proposes a start time, announces itself, and waits (bounded) for the
     * other.  Both then start at the later proposal, on this SM's clock. */
    if (threadIdx.x == 0) {
        const unsigned smid = gb_smid();
        gb_atomics_sm_result *res = &p.results[smid];
        const unsigned role = atomicAdd(&res->arrive, 1u);
        unsigned ok = 0;
        unsigned long long t0 = 0;
        if (role < p.blocks_per_cell) {
            atomicMax(&res->t0, gb_clock() + p.start_margin);
            __threadfence();
            atomicAdd(&res->ready, 1u);
            const unsigned long long deadline = gb_clock() + p.rendezvous_timeout;
            for (;;) {
                if (atomicAdd(&res->ready, 0u) >= p.blocks_per_cell) {
                    ok = 1;
                    break;
                }
                if (gb_clock() > deadline)
                    break;
            }
            t0 = atomicAdd(&res->t0, 0ull);
            /* Too late to start together: the sample would be skewed. */
            if (gb_clock() + 256 >= t0)
                ok = 0;
        }
        s_role = role;
        s_ok = ok;
        s_t0 = t0;
        s_n = (unsigned)p.cells[smid].n;
        s_window = p.cells[smid].window;
        s_period = p.cells[smid].period;
    }
    for (unsigned i = threadIdx.x; i < GB_ATOMICS_TARGET_WORDS; i += blockDim.x)
        gb_words[i] = 0;
    __syncthreads();
    if (!s_ok)
        return;

    bool active, is_cas;
    unsigned *addr;
    unsigned rounds, one, zero_mask;
    {
        const gb_atomics_cell_desc d = p.cells[gb_smid()];
        const unsigned warp = threadIdx.x / 32;
        const unsigned lane = threadIdx.x % 32;
        const unsigned cell_warp = s_role * (blockDim.x / 32) + warp;
        active = cell_warp < (unsigned)d.n && lane < (unsigned)d.e;
        const unsigned cas_bits = cell_warp < 32 ? d.cas_mask_lo >> cell_warp
                                                 : d.cas_mask_hi >> (cell_warp - 32);
        is_cas = kMixesCas && (cas_bits & 1u);
        /* Run-time strides: the compiler cannot prove a warp-uniform
         * address, so it cannot aggregate the warp's atomics into one
         * (hopper-probe.md). */
        addr = gb_words + warp * d.warp_stride + lane * d.lane_stride;
        rounds = (unsigned)d.rounds;
        one = d.one;
        zero_mask = d.zero_mask;
    }

    for (unsigned k = 0; k < p.inner_reps; k++) {
        /* Start of measurement k: warp 0 alone waits for tk on the SM's
         * clock, then the block's barrier releases every warp at once (a
         * block of spinning warps delays its own and the other block's
         * warps).  A block whose warp 0 arrives after tk is late and the
         * measurement is discarded. */
        bool late = false;
        if ((p.variant & GB_ATOMICS_VARIANT_ALL_SPIN) || threadIdx.x < 32) {
            const unsigned long long tk = s_t0 + (unsigned long long)k * s_period;
            unsigned long long now = gb_clock();
            late = now >= tk;
            while (now < tk)
                now = gb_clock();
        }
        if (!(p.variant & GB_ATOMICS_VARIANT_ALL_SPIN))
            __syncthreads();
        unsigned long long t_start = ~0ull, t_end = 0;
        if (active) {
            if (is_cas)
                gb_measure<gb_op_cas, kSteady>(addr, rounds, one, zero_mask, &t_start, &t_end);
            else
                gb_measure<Op, kSteady>(addr, rounds, one, zero_mask, &t_start, &t_end);
        }
        /* Quiet window: a warp whose atomic is done parks at the barrier and
         * the block waits, warp 0 on the clock, until the window closes, so
         * that no shuffle, shared store or global write of a finished warp
         * competes with the atomics of warps still in flight, in this block
         * or in the other one (docs/calibration.md: such traffic held the
         * last warps of the second block back by ~1500 cycles). */
        if (!(p.variant & GB_ATOMICS_VARIANT_IMMEDIATE)) {
            __syncthreads();
            if (threadIdx.x < 32) {
                const unsigned long long close =
                    s_t0 + (unsigned long long)k * s_period + s_window;
                /* Sleeping, not spinning: fewer issue slots taken from the
                 * warps still measuring.  Waking up late only shortens the
                 * pause before the next start. */
                for (unsigned long long now = gb_clock(); now < close; now = gb_clock())
                    __nanosleep(64);
            }
            __syncthreads();
        }
        /* Read-out.  Offsets from tk fit 32 bits: the period is a few
         * million cycles at most. */
        const unsigned long long tk = s_t0 + (unsigned long long)k * s_period;
        unsigned first = t_start != ~0ull ? (unsigned)(t_start - tk) : ~0u;
        unsigned last_arrival = t_start != ~0ull ? (unsigned)(t_start - tk) : 0u;
        unsigned completion = t_start != ~0ull ? (unsigned)(t_end - tk) : 0u;
        __syncwarp();
        for (int off = 16; off > 0; off >>= 1) {
            const unsigned f = __shfl_xor_sync(0xffffffffu, first, off);
            const unsigned a = __shfl_xor_sync(0xffffffffu, last_arrival, off);
            const unsigned c = __shfl_xor_sync(0xffffffffu, completion, off);
            first = f < first ? f : first;
            last_arrival = a > last_arrival ? a : last_arrival;
            completion = c > completion ? c : completion;
        }
        const unsigned warp = threadIdx.x / 32;
        if (threadIdx.x % 32 == 0) {
            s_times[k][warp] = (gb_atomics_warp_times){first, last_arrival, completion,
                                                       gb_warpid() | s_role << 8 | (late ? 1u << 31 : 0u)};
            /* The first version's write-out, for the diagnostics. */
            if ((p.variant & GB_ATOMICS_VARIANT_GLOBAL_NOW) && first != ~0u) {
                gb_atomics_sm_result *res = &p.results[gb_smid()];
                atomicMax(&res->scratch[0], ~(tk + first));
                atomicMax(&res->scratch[1], tk + completion);
                atomicMax(&res->scratch[2], tk + last_arrival);
                atomicMax(&res->scratch[3 + (s_role & 1)], ~(tk + first));
                atomicMax(&res->scratch[5], tk + completion);
            }
        }
        if (k + 1 < p.inner_reps) {
            /* Fresh zeros for the next measurement (CAS expects 0), once
             * every warp of the block is done with this one. */
            __syncthreads();
            for (unsigned i = threadIdx.x; i < GB_ATOMICS_TARGET_WORDS; i += blockDim.x)
                gb_words[i] = 0;
        }
    }
    __syncthreads();

    /* Write-out, after the last measurement: thread k reduces measurement k
     * over the block's warps. */
    const unsigned smid = gb_smid();
    const unsigned block_warps = blockDim.x / 32;
    gb_atomics_sm_result *res = &p.results[smid];
    if (threadIdx.x < p.inner_reps) {
        const unsigned k = threadIdx.x;
        unsigned first = ~0u, last_arrival = 0, completion = 0, late = 0;
        for (unsigned w = 0; w < block_warps; w++) {
            const gb_atomics_warp_times t = s_times[k][w];
            first = t.first_arrival < first ? t.first_arrival : first;
            last_arrival = t.last_arrival > last_arrival ? t.last_arrival : last_arrival;
            completion = t.completion > completion ? t.completion : completion;
            late |= t.hw >> 31;
        }
        atomicMax(&res->inner[k].first_inv, ~first);
        atomicMax(&res->inner[k].last_arrival, last_arrival);
        atomicMax(&res->inner[k].last, completion);
        if (late)
            atomicAdd(&res->inner[k].late, 1u);
    }
    if (p.diag) {
        for (unsigned i = threadIdx.x; i < p.inner_reps * block_warps; i += blockDim.x) {
            const unsigned k = i / block_warps, w = i % block_warps;
            const unsigned cw = s_role * block_warps + w;
            if (cw < s_n)
                p.diag[((size_t)smid * p.inner_reps + k) * GB_ATOMICS_MAX_CELL_WARPS + cw] = s_times[k][w];
        }
    }
    if (threadIdx.x == 0)
        atomicAdd(&res->ok, 1u);
}

__global__ void gb_smid_probe(unsigned *out)
{
    if (threadIdx.x == 0) {
        out[2 * blockIdx.x] = gb_smid();
        out[2 * blockIdx.x + 1] = gb_nsmid();
    }
}

__global__ void gb_clock_probe(unsigned long long duration_ns, unsigned long long *out)
{
    if (threadIdx.x != 0)
        return;
    const unsigned long long g0 = gb_globaltimer();
    const unsigned long long c0 = gb_clock();
    unsigned long long g1 = g0, c1 = c0;
    while (g1 - g0 < duration_ns) {
        g1 = gb_globaltimer();
        c1 = gb_clock();
    }
    out[2 * blockIdx.x] = c1 - c0;
    out[2 * blockIdx.x + 1] = g1 - g0;
}

} // namespace

#define GB_KERNELS(op, mixes)                                                                     \
    {(const void *)gb_atomic_kernel<op, mixes, false>, (const void *)gb_atomic_kernel<op, mixes, true>}

/* One row per job class (atomics_bench.h: "Adding a job class"). */
extern "C" const gb_atomics_kernel_row gb_atomics_kernel_rows[] = {
    {GM_ATOMICS_CLASS_ADD, 1, GB_KERNELS(gb_op_add, true)},
    {GM_ATOMICS_CLASS_CAS, 0, GB_KERNELS(gb_op_cas, false)},
    {GM_ATOMICS_CLASS_POPC_INC, 0, GB_KERNELS(gb_op_popc_inc, false)},
};
extern "C" const int gb_atomics_kernel_row_count = sizeof gb_atomics_kernel_rows / sizeof gb_atomics_kernel_rows[0];

extern "C" const void *const gb_atomics_smid_kernel = (const void *)gb_smid_probe;
extern "C" const void *const gb_atomics_clock_kernel = (const void *)gb_clock_probe;
