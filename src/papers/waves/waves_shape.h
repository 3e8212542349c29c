/* Launch-shape what-ifs (paper 003, Eq. 3.2, with the kernel's own cost of
 * a wave): the time of a launch at another grid G and block size b, from
 * one measured launch.
 *
 * Eq. 3.2 counts waves on the busiest SM, g = ceil(G / n_mp) blocks in
 * floor(g / N_slot) full waves of b N_slot warps and one of b (g mod N_slot),
 * each costing fu(c) for its c warps per SM.  The paper's fu(c) is one
 * instruction stream's (the suite's FFMA kernel), the same for every kernel.
 * Here a wave of c warps per SM costs
 *
 *     f(c) = max(L, alpha W(c))
 *
 * W(c)   the kernel's own busiest component when each SM runs c of its
 *        warps (their measured work at the rates the throughput suite
 *        measured at c warps per SM); where those are missing, the suite's
 *        FFMA fu(c), as in the paper;
 * L      one wave's floor: a block's time when nothing competes with it
 *        (its warps' own latency), so that no shape is predicted below a
 *        single wave's time;
 * alpha  the scale that makes the measured launch come out at its time.
 *
 * and T(G, b) = T_fix + sum over waves of f(c), T_fix the launch's fixed
 * cost (a queued empty launch, where measured).
 *
 * Blocks of one wave do not share the SM's units evenly: a warp scheduler
 * serves its oldest warps first (docs/diag.md, "Launch-shape what-ifs"),
 * so where a wave's warps need more of a per-SM unit (issue, a pipe,
 * shared memory) than it has, the oldest blocks run at their own latency
 * and the youngest wait for them: the wave takes generations of the floor,
 *
 *     f(c) = max(alpha W(c), t_1 gen(n, d)),   t_1 = max(L, alpha W_sm(b)),
 *
 * t_1 a block alone (W_sm: the per-SM units of W; the L2's and DRAM's share
 * of one block is in W(c)), n its blocks on the busiest scheduler, d = the share
 * of that scheduler one block's warps use at their own pace: w / K, w its
 * warps on the scheduler, K the warps a scheduler keeps at their own pace,
 * Little's law from the warps' own latency and the unit's rate, K =
 * round(L_0 / (S T_w)), T_w one warp's work at the unit's best rate, S the
 * schedulers per SM (a scheduler holds whole warps: rounded).  gen() is the
 * time, in t_1, of n equal blocks served oldest first (waves_shape.c).
 * A block that alone fills the scheduler (d >= 1) takes its unit's time,
 * which alpha W(c) holds: gen = 1 then.  K is had only where the warps'
 * own latency L_0 is theirs: known, and mostly (GM_WAVES_SHAPE_FIXED) in the
 * states that last the same however many warps share the SM (a dependent
 * fixed-latency instruction, issuing); a scoreboard's wait holds the queue
 * at the unit the measured launch kept busy, which would be counted twice.
 * Without K, f(c) = max(L, alpha W(c)) as before.
 *
 * L_0 is at least what the warps' lifetime says (their resident cycles,
 * every state, counted by the collection or not): where the measured
 * launch's busiest scheduler holds no more than K of its warps, they ran at
 * their own pace and a warp's lifetime is its latency; where one wave's
 * blocks were served oldest first, the lifetime over the mean of their
 * ends in gen()'s recurrence.  The warp states the collection leaves out
 * are some 5% of the T(g,b) sweep's chain (docs/diag.md), so the stall sum
 * alone puts a single wave that much low.
 *
 * The measured launch decides L and alpha.  Where the floor holds up most
 * of its waves (with the warps' own latency from the warp states and the
 * rates as measured, the floor term t_1 gen is at least the components'
 * time; unknown: the components explain under GM_WAVES_SHAPE_BUSY of the
 * time), it was latency bound and L is what makes the waves add up to that
 * time (alpha 1); otherwise L is the warps' own latency (0 unknown) and
 * alpha is fitted.  Pure C. */
#ifndef GPUQ_WAVES_SHAPE_H
#define GPUQ_WAVES_SHAPE_H

#include "gpuq/status.h"
#include "waves_model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The bottleneck verdict's threshold (bottleneck_verdict.h, GM_BOTTLENECK_VERDICT_BUSY_SHARE):
 * components under this share of the time leave it to latency. */
#define GM_WAVES_SHAPE_BUSY 0.6
/* The share of the warps' own latency in fixed-latency states (waiting on a
 * dependent fixed-latency instruction, issuing) at which it is taken as
 * theirs and K is had: most of it.  The T(g,b) sweep's chain has 99.8%
 * (docs/diag.md). */
#define GM_WAVES_SHAPE_FIXED 0.5

/* W(c): ns for `sms` SMs each to run `warps_per_sm` of the kernel's warps
 * (NaN: cannot say). */
typedef double (*gm_waves_busy_fn)(const void *ctx, double warps_per_sm, double sms);

/* Warp schedulers per SM (Volta to Hopper: four sub-partitions, a warp's
 * being its warp id mod 4; docs/diag.md, "Warp scheduling"). */
#define GM_WAVES_SHAPE_SCHEDULERS 4
/* Blocks per scheduler that gen() follows one by one; more are taken as
 * evenly shared (Hopper holds at most 64 warps per SM: 16 per scheduler). */
#define GM_WAVES_SHAPE_MAX_GEN 256

/* gen(n, d): the time, in units of one block's own time, that n equal
 * blocks take when each needs the share d of a unit at its own pace and the
 * unit serves the oldest first (the rest of it to the next): 1 where n d
 * <= 1, n d where d >= 1. */
double gm_waves_shape_gen(int n, double d);
/* The mean end of those n blocks, in the same unit: 1 where n d <= 1,
 * d (n + 1) / 2 where d >= 1 (one after another), n d where gen() takes
 * them as evenly shared. */
double gm_waves_shape_gen_mean(int n, double d);

typedef enum gm_waves_shape_from {
    GM_WAVES_SHAPE_NONE = 0,
    GM_WAVES_SHAPE_LATENCY,    /* components < BUSY of the time: L from the measured time */
    GM_WAVES_SHAPE_COMPONENTS, /* the components, scaled; L from the warp states (or 0) */
    GM_WAVES_SHAPE_FU          /* the suite's fu(c), scaled; L from the warp states (or 0) */
} gm_waves_shape_from;

/* "latency (measured)", "components", "ffma fu(c)", "-". */
const char *gm_waves_shape_from_name(gm_waves_shape_from f);

/* The wave costs W(c) and W_sm(c) had for one launch, kept across its fit
 * and its what-ifs (Eq. 3.2 at the launch's own shape and four others asks
 * for the same c and SMs several times: a block alone, the full waves of
 * the same b); each is a prediction of the throughput model, most of the
 * what-ifs' time.  Empty it (n = 0) for each launch: a ctx is one
 * launch's, and one seen with another ctx is emptied first.  A cost is
 * taken from it only where (which function, c, SMs) are equal, so the
 * times are those without it. */
#define GM_WAVES_BUSY_MEMO 32
typedef struct gm_waves_busy_memo {
    const void *ctx;
    int n;
    struct {
        int sm;        /* 1: sm_busy's */
        double c, sms, ns;
    } e[GM_WAVES_BUSY_MEMO];
} gm_waves_busy_memo;

typedef struct gm_waves_shape {
    /* inputs */
    gm_waves_busy_fn busy;         /* NULL: fu below */
    gm_waves_busy_fn sm_busy;      /* the per-SM units of busy (issue, pipes, shared memory;
                                   not L2 or DRAM); NULL: busy */
    const void *ctx;
    const gm_waves_fu_curve *fu;   /* the suite's FFMA fu(c) */
    int n_mp;
    double fixed_ns;               /* T_fix (0 none; at most half the measured time is used) */
    double latency_ns;             /* the warps' own latency; NaN unknown */
    double fixed_share;            /* its share in fixed-latency states (NaN unknown: no K) */
    double lifetime_ns;            /* a warp's mean residency, every state (0 or NaN unknown):
                                      the latency where the warps ran at their own pace */
    int max_warps;                 /* warps per SM at most (the unit's best rate; 0: 64) */
    gm_waves_busy_memo *memo;      /* NULL: every cost computed where asked */
    /* fitted */
    gm_waves_shape_from from;
    double fixed, L, alpha;        /* ns, ns, scale */
    double K;                      /* warps a scheduler keeps at their own pace (INFINITY: no
                                      per-SM unit contended, or the latency unknown) */
} gm_waves_shape;

/* Fits L and alpha to a launch of G blocks of b warps, N_slot N, that took
 * T_ns.  GM_ERR_INVALID_ARG for a shape or time that is not positive or a
 * wave cost that cannot be had. */
gm_status gm_waves_shape_fit(gm_waves_shape *s, long G, int b, int N, double T_ns, gm_error *err);
/* T(G, b) in ns after the fit; NaN for a shape that is not positive. */
double gm_waves_shape_time(const gm_waves_shape *s, long G, int b, int N);

#ifdef __cplusplus
}
#endif
#endif
