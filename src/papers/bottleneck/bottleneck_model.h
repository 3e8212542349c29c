/* The throughput model of Zhang & Owens, "A Quantitative Performance
 * Analysis Model for GPU Architectures" (HPCA 2011, paper 004), on Hopper.
 *
 * A kernel's time is the time of its slowest component, the others hidden
 * under it (Sec. 3, the full-overlap assumption):
 *   instruction pipeline  Sec. 4.1: per-type warp-instruction counts over the
 *                         type's throughput at the launch's warps per SM;
 *   shared memory         Sec. 4.2: transactions (Hopper: wavefronts, bank
 *                         conflicts included) over the bandwidth at those warps;
 *   global memory         Sec. 4.3: bytes over the bandwidth a synthetic
 *                         benchmark of the same blocks x threads x transactions
 *                         per thread reached.
 * A "type" on Hopper is an SM pipe as the counters smsp__inst_executed_pipe_*
 * name them.  Two forms of the instruction time:
 *   GM_BOTTLENECK_PAPER   the paper's linear combination, sum over types of N / X(w);
 *   GM_BOTTLENECK_HOPPER  Hopper's pipes run side by side: the slowest pipe, or the
 *                 issue rate (one warp-instruction per clock per SMSP) when
 *                 that binds first; pipes timed with four independent chains
 *                 per thread (the paper's are dependent chains); shared
 *                 memory at the bandwidth measured with the launch's own
 *                 degree of bank conflicts; plus the fixed cost of a launch.
 * Pure C: the throughput curves come from the suite "throughput"
 * (tables/<gpu>/throughput.csv, docs/bottleneck.md).
 */
#ifndef GPUQ_BOTTLENECK_MODEL_H
#define GPUQ_BOTTLENECK_MODEL_H

#include <stddef.h>
#include "gpuq/mdata.h"
#include "gpuq/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The SM pipes, the one table of them: X(ID, name) per pipe, in model
 * order.  The name is the suffix of the counter of its warp-instructions
 * (smsp__inst_executed_pipe_<name>.sum, a row of src/core/metrics.c), the
 * `name` of its rows in the throughput suite's data and the report field of
 * its time (<name>_us).  Adding a pipe: a row here, its metric row, and the
 * suite's kernel for it (bottleneck_suite.c, bottleneck_kernels.cu). */
#define GM_BOTTLENECK_PIPE_ROWS(X)                                                      \
    X(FMA, fma)           /* FFMA FADD FMUL: fmaheavy + fmalite */                      \
    X(FMAHEAVY, fmaheavy) /* IMAD and the other heavy-only ops */                       \
    X(ALU, alu)           /* LOP3 IADD3 ISETP SHF ... */                                \
    X(FP64, fp64)         /* DFMA DADD DMUL */                                          \
    X(FP16, fp16)         /* HFMA2 HADD2 (when the counters put them there) */          \
    X(XU, xu)             /* MUFU: rcp, rsqrt, sin, cos, ex2, lg2 (the paper's type III) */ \
    X(LSU, lsu)                                                                         \
    X(CBU, cbu)                                                                         \
    X(ADU, adu)                                                                         \
    X(UNIFORM, uniform)

typedef enum gm_bottleneck_pipe {
#define GM_BOTTLENECK_PIPE_ENUM(id, name) GM_BOTTLENECK_##id,
    GM_BOTTLENECK_PIPE_ROWS(GM_BOTTLENECK_PIPE_ENUM)
#undef GM_BOTTLENECK_PIPE_ENUM
    GM_BOTTLENECK_PIPES
} gm_bottleneck_pipe;

/* "fma", "fmaheavy", ... (the counter suffix); NULL out of range. */
const char *gm_bottleneck_pipe_name(int pipe);
int gm_bottleneck_pipe_find(const char *name); /* -1 when unknown */
/* The metric of the pipe's warp-instructions; NULL out of range. */
const char *gm_bottleneck_pipe_metric(int pipe);

typedef enum gm_bottleneck_form { GM_BOTTLENECK_PAPER = 0,
                                  GM_BOTTLENECK_HOPPER = 1 } gm_bottleneck_form;
typedef enum gm_bottleneck_part { GM_BOTTLENECK_INST = 0, GM_BOTTLENECK_SHARED,
                                  GM_BOTTLENECK_GLOBAL, GM_BOTTLENECK_PARTS } gm_bottleneck_part;
const char *gm_bottleneck_part_name(int part); /* "instruction", "shared", "global" */

#define GM_BOTTLENECK_MAX_POINTS 64

/* A throughput against warps per SM (Fig. 2): value[i] at warps[i],
 * warps increasing.  Between points: linear; outside: the end point. */
typedef struct gm_bottleneck_curve {
    int n;
    double warps[GM_BOTTLENECK_MAX_POINTS];
    double value[GM_BOTTLENECK_MAX_POINTS];
} gm_bottleneck_curve;

double gm_bottleneck_curve_at(const gm_bottleneck_curve *c, double warps); /* NaN when empty */
double gm_bottleneck_curve_max(const gm_bottleneck_curve *c);

/* One point of Fig. 3: the bandwidth a synthetic kernel of this shape reached. */
typedef struct gm_bottleneck_gpoint {
    int l2;        /* 0: DRAM-resident working set, 1: L2-resident */
    int store;     /* 0 loads, 1 stores */
    int bytes;     /* per thread per transaction: 4, 8, 16 */
    double blocks, threads, per_thread; /* grid, block size, transactions per thread */
    double gbps;   /* bytes moved / time, 1e9 B/s */
} gm_bottleneck_gpoint;

#define GM_BOTTLENECK_WAYS 6 /* shared curves for 1, 2, 4, 8, 16, 32-way conflicts */

typedef struct gm_bottleneck_machine {
    double clock_mhz;               /* SM clock during the suite */
    int sm_count;
    int max_warps_per_sm;
    gm_bottleneck_curve inst[GM_BOTTLENECK_PIPES]; /* warp-instructions / clock / SM, one dependent chain
                                                      per thread (ilp 1, the paper's); n == 0: not measured */
    /* the same with four independent chains (ilp 4) */
    gm_bottleneck_curve inst4[GM_BOTTLENECK_PIPES];
    gm_bottleneck_curve issue;      /* all pipes together */
    gm_bottleneck_curve shared;     /* wavefronts / clock / SM (4-byte, conflict-free) */
    /* the same with 2^i-way conflicts ([0] == shared) */
    gm_bottleneck_curve shared_k[GM_BOTTLENECK_WAYS];
    size_t n_global;
    gm_bottleneck_gpoint *global;   /* owned */
    double launch_ns;               /* an empty launch, back to back (Hopper form) */
    double queued_ns;               /* an empty launch when launches are queued on the GPU
                                       (kind=launch, name=queued; NaN: not measured) */
    double graph_ns;                /* a node of a CUDA graph of empty launches (name=graph) */
    double graph_gap_ns;            /* what a graph node adds to a kernel's own time
                                       (name=graph_gap; NaN: not measured) */
    /* The points by (l2, store, bytes), each set in file order, so that the
     * nearest point is looked for among its own set only (a prediction
     * looks four times; a million launches made that most of gpuq model's
     * time).  Built by gm_bottleneck_machine_from_mdata; NULL: every point is
     * scanned, with the same result. */
    size_t n_sets;
    struct gm_bottleneck_gset {
        int l2, store, bytes;
        size_t first, n;            /* its points: global[order[first .. first + n)] */
        size_t n_values[3];         /* the distinct blocks, threads, per_thread of them */
        double *values[3];          /* owned, each in the order it first occurs */
    } *sets;                        /* owned; in the order the sets first occur */
    size_t *order;                  /* owned */
    unsigned (*value_of)[3];        /* owned: per entry of order, its index into values[] */
    double best_gbps[2][2];         /* [l2][store]: the best any point reached */
} gm_bottleneck_machine;

/* Reads the suite's file (columns: kind,name,bytes,ways,[ilp,]warps,blocks,
 * threads,per_thread,value,...; docs/bottleneck.md).  Rows of other kinds
 * are kept for the docs and ignored here. */
gm_status gm_bottleneck_machine_from_mdata(const gm_mdata *md, gm_bottleneck_machine *m,
                                           gm_error *err);
void gm_bottleneck_machine_free(gm_bottleneck_machine *m);

/* The bandwidth (1e9 B/s) of the synthetic point nearest to the shape
 * (log distance in blocks, threads and transactions per thread; the
 * closest bytes per thread first).  NaN when none. */
double gm_bottleneck_global_bw(const gm_bottleneck_machine *m, int l2, int store, int bytes,
                               double blocks, double threads, double per_thread);

/* One launch, as the counters see it (sums over the GPU; NaN: not
 * collected, the part that needs it is then not predicted). */
typedef struct gm_bottleneck_launch {
    double inst[GM_BOTTLENECK_PIPES];  /* smsp__inst_executed_pipe_<name>.sum */
    double inst_total;                 /* smsp__inst_executed.sum */
    double shared_wavefronts;          /* l1tex__data_pipe_lsu_wavefronts_mem_shared.sum */
    double shared_ideal;               /* the same without bank conflicts */
    double global_inst;                /* global ld + st warp-instructions */
    double global_sectors;             /* l1tex__t_sectors of global ld + st */
    double global_sectors_ideal; /* with perfect coalescing */
    double dram_read_bytes, dram_write_bytes;
    double l2_read_bytes, l2_write_bytes;
    double warps_per_sm;               /* achieved, sm__warps_active per active cycle */
    double blocks, threads_per_block;
    double clock_ghz;                  /* cycles per ns during the launch; NaN: the suite's */
    double launches;                   /* launches the counts add up (the Hopper form pays the
                                          launch term once each); NaN or < 1: one */
} gm_bottleneck_launch;

void gm_bottleneck_launch_init(gm_bottleneck_launch *l); /* everything NaN */

typedef struct gm_bottleneck_result {
    gm_bottleneck_form form;
    double warps;                       /* warps per SM used */
    double sms;                         /* SMs with work */
    double t_pipe[GM_BOTTLENECK_PIPES]; /* ns per pipe (NaN: none or not measured) */
    double t_issue;                     /* ns at the issue rate */
    double t[GM_BOTTLENECK_PARTS];      /* ns per component */
    double t_launch;                    /* ns added (Hopper form) */
    double predicted;                   /* ns */
    int bottleneck;                     /* gm_bottleneck_part, -1 when nothing was predicted */
    int next;                           /* the component that binds once the first is removed */
    double speedup_next;                /* predicted / time with the bottleneck removed */
    double global_bw;                   /* 1e9 B/s used for DRAM */
    int causes;                         /* GM_BOTTLENECK_CAUSE_* bits */
} gm_bottleneck_result;

/* The paper's causes of each bottleneck (Sec. 3, last paragraph). */
enum {
    GM_BOTTLENECK_CAUSE_LOW_DENSITY = 1 << 0, /* under half the instructions compute (fma/fp64/fp16) */
    GM_BOTTLENECK_CAUSE_EXPENSIVE = 1 << 1,   /* xu or fp64 is the slowest pipe */
    GM_BOTTLENECK_CAUSE_FEW_WARPS = 1 << 2,   /* the component's throughput at w < 80% of its best */
    GM_BOTTLENECK_CAUSE_CONFLICTS = 1 << 3,   /* wavefronts > 1.1 x conflict-free */
    GM_BOTTLENECK_CAUSE_BOOKKEEPING = 1 << 4, /* shared wavefronts exceed the compute instructions */
    GM_BOTTLENECK_CAUSE_UNCOALESCED = 1 << 5, /* sectors > 1.25 x ideal */
    GM_BOTTLENECK_CAUSE_LOW_PARALLEL = 1 << 6 /* bandwidth at this shape < 80% of the best */
};
/* The causes as words, "bank conflicts, too few warps"; "" when none. */
void gm_bottleneck_causes_text(int causes, char *buf, size_t len);

gm_status gm_bottleneck_predict(const gm_bottleneck_machine *m, gm_bottleneck_form form,
                                int sm_count, const gm_bottleneck_launch *l,
                                gm_bottleneck_result *r, gm_error *err);

/* The nearest global points found for one launch, kept across the
 * predictions made for it: its what-ifs and its best-rate check change
 * nothing the points depend on (bytes per lane, blocks, threads and
 * transactions per thread), so the search runs once per point instead of
 * once per prediction.  Zero it for each launch; a point is taken from it
 * only when every one of its keys is equal, so the predictions are the
 * same as without it. */
typedef struct gm_bottleneck_memo_entry {
    int l2, store, bytes;
    double blocks, threads, per_thread;
    const gm_bottleneck_gpoint *g;
} gm_bottleneck_memo_entry;
typedef struct gm_bottleneck_memo {
    size_t n;
    gm_bottleneck_memo_entry e[8];
} gm_bottleneck_memo;

/* gm_bottleneck_predict and gm_bottleneck_whatif_all with a memo (NULL: none). */
gm_status gm_bottleneck_predict_memo(const gm_bottleneck_machine *m, gm_bottleneck_form form,
                                     int sm_count, const gm_bottleneck_launch *l,
                                     gm_bottleneck_memo *memo, gm_bottleneck_result *r,
                                     gm_error *err);

/* What-ifs (Sec. 5): the same launch changed, predicted again. */
typedef struct gm_bottleneck_whatif {
    double t_no_conflicts, speedup_no_conflicts;   /* shared wavefronts = ideal */
    double t_coalesced, speedup_coalesced;         /* global sectors = ideal */
    double more_warps;                             /* warps per SM tried */
    double t_more_warps, speedup_more_warps;
} gm_bottleneck_whatif;

/* more_warps <= 0: the machine's maximum warps per SM. */
gm_status gm_bottleneck_whatif_all(const gm_bottleneck_machine *m, gm_bottleneck_form form,
                                   int sm_count, const gm_bottleneck_launch *l, double more_warps,
                                   gm_bottleneck_whatif *w, gm_error *err);
gm_status gm_bottleneck_whatif_all_memo(const gm_bottleneck_machine *m, gm_bottleneck_form form,
                                        int sm_count, const gm_bottleneck_launch *l,
                                        double more_warps, gm_bottleneck_memo *memo,
                                        gm_bottleneck_whatif *w, gm_error *err);

#ifdef __cplusplus
}
#endif
#endif
