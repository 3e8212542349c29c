/* PTX text of the "sched" suite's kernels (paper 003), generated at run
 * time and JIT-compiled by the driver (waves_jit.h), so that an instruction
 * sequence, a register count or a shared-memory size is a parameter, not a
 * kernel typed in once per value (design.md).  Pure C.
 *
 * Every kernel takes the same five parameters:
 *   .u64 out   per-block results (u64 each) and, 8 MiB in, a sink
 *   .u64 sync  global semaphore (u32 count, u32 flag) or 0
 *   .u64 data  kernel data (the LDG chase's self-pointers)
 *   .u32 n     iterations (fu) / quiet time in ns (count)
 *   .u32 G     blocks to wait for in the semaphore
 */
#ifndef GPUQ_WAVES_PTX_H
#define GPUQ_WAVES_PTX_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GB_WAVES_SINK_OFFSET (8u << 20) /* bytes into `out` where never-taken stores go */
/* fu kernels: per block (smid, start ns, end ns) as u64, 24 bytes a block,
 * this far into `out` (room for 170,000 blocks) */
#define GB_WAVES_BLOCKLOG_OFFSET (4u << 20)

/* One instruction sequence of the functional-units test (Sec. 3.2.2). */
typedef struct gb_waves_fu_op {
    const char *name;     /* "ffma": kernel gd_fu_ffma, machine-data name */
    const char *sass;     /* opcode the SASS must repeat ("FFMA") */
    double guide;         /* programming guide results per clock per SM, cc 9.0; 0: not listed */
    int per_iter;         /* timed instructions per loop iteration */
} gb_waves_fu_op;

extern const gb_waves_fu_op gb_waves_fu_ops[];
size_t gb_waves_fu_op_count(void);
const gb_waves_fu_op *gb_waves_fu_op_find(const char *name);

/* The fu kernel of op for sm_<cc>; returns the length written, or -1 when
 * buf is too small.  Entry name: "gd_fu_<name>". */
int gb_waves_ptx_fu(char *buf, size_t len, const gb_waves_fu_op *op, int cc);

/* The co-residency kernel "gd_count" (Fig. 3.4 with a watcher): every block
 * adds itself to sync[0]; mode 0: the first block waits until no block has
 * arrived for n ns (or G arrived, or 50 ms), writes the count to out[0] and
 * releases the rest through sync[1]; mode 1 (the paper's semaphore): every
 * block waits until G arrived or n ns passed, and a block that timed out
 * sets sync[1] = 2.  Never-executed code holds smem_bytes of static shared
 * memory (-1: a dynamic array, sized at launch) and about regs live
 * registers (0: neither); maxnreg caps the register count (0: none). */
int gb_waves_ptx_count(char *buf, size_t len, int cc, long smem_bytes, int regs, int maxnreg,
                       int mode);

/* The warp-scheduling log "gd_wsched" (Sec. 3.2.2): every warp reads the
 * clock `steps` times with a dependent FFMA between reads and writes
 * (hardware warp id, clocks) from lane 0: out[w * (steps + 1) + ...]. */
int gb_waves_ptx_wsched(char *buf, size_t len, int cc, int steps);

/* An empty kernel "gd_empty" (limits test). */
int gb_waves_ptx_empty(char *buf, size_t len, int cc);

#ifdef __cplusplus
}
#endif
#endif
