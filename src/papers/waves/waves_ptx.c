/* PTX generators of the "sched" suite (waves_ptx.h; paper 003, Sec. 3.2,
 * Fig. 3.3 and 3.4). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "waves_ptx.h"

/* Results per clock per SM for cc 9.0 from the CUDA C++ Programming Guide's
 * "Arithmetic Instructions" throughput table; 0 where it lists none. */
const gb_waves_fu_op gb_waves_fu_ops[] = {
    {"ffma", "FFMA", 128, 128},       /* 32-bit floating-point multiply-add */
    {"fadd", "FADD", 128, 128},       /* 32-bit floating-point add */
    {"iadd3", "IADD3", 64, 128},      /* 32-bit integer add (3-input add) */
    {"imad", "IMAD", 64, 128},        /* 32-bit integer multiply-add */
    {"lop3", "LOP3", 64, 128},        /* 32-bit bitwise AND/OR/XOR */
    {"shf_wrap", "SHF", 64, 128},     /* 32-bit shift (funnel shift; not "shf": gd_fu_shfl) */
    {"mufu_rcp", "MUFU.RCP", 16, 64}, /* reciprocal */
    {"mufu_sin", "MUFU.SIN", 16, 64}, /* sine */
    {"mufu_ex2", "MUFU.EX2", 16, 64}, /* base-2 exponential */
    {"dfma", "DFMA", 64, 64},         /* 64-bit floating-point multiply-add */
    {"hfma2", "HFMA2", 256, 128},     /* 16-bit floating-point multiply-add (half2: 2 results) */
    {"shfl", "SHFL", 32, 64},         /* warp shuffle */
    {"lds", "LDS", 0, 32},            /* shared-memory load, pointer chase */
    {"ldg", "LDG", 0, 32},            /* global load (L1 hit), pointer chase */
    {"bra", "BRA", 0, 64},            /* conditional branch, never taken */
    {"atoms_add", "ATOMS.ADD", 0, 32},       /* shared atomic add, distinct words (paper 000) */
    {"atoms_popc", "ATOMS.POPC.INC", 0, 32}, /* shared atomic +1, one word per warp (paper 000) */
};

size_t gb_waves_fu_op_count(void)
{
    return sizeof gb_waves_fu_ops / sizeof gb_waves_fu_ops[0];
}

const gb_waves_fu_op *gb_waves_fu_op_find(const char *name)
{
    for (size_t i = 0; i < gb_waves_fu_op_count(); i++)
        if (strcmp(gb_waves_fu_ops[i].name, name) == 0)
            return &gb_waves_fu_ops[i];
    return NULL;
}

typedef struct sbuf {
    char *p;
    size_t len, used;
    int overflow;
} sbuf;

static void put(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(sbuf *b, const char *fmt, ...)
{
    if (b->overflow)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b->p + b->used, b->len - b->used, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= b->len - b->used) {
        b->overflow = 1;
        return;
    }
    b->used += (size_t)n;
}

static int finish(sbuf *b)
{
    return b->overflow ? -1 : (int)b->used;
}

static void header(sbuf *b, int cc)
{
    put(b, ".version 8.0\n.target sm_%d\n.address_size 64\n\n", cc);
}

static void entry(sbuf *b, const char *name)
{
    put(b,
        ".visible .entry %s(.param .u64 p_out, .param .u64 p_sync, .param .u64 p_data,\n"
        "    .param .u32 p_n, .param .u32 p_G)\n{\n"
        "  .reg .pred %%p<16>;\n  .reg .b32 %%r<32>;\n  .reg .b64 %%rd<32>;\n"
        "  .reg .f32 %%f<16>;\n  .reg .f64 %%fd<16>;\n  .reg .b32 %%h<16>;\n"
        "  .reg .b32 %%a<16>;\n  .reg .b64 %%q<4>;\n"
        "  ld.param.u64 %%rd1, [p_out];\n  ld.param.u64 %%rd2, [p_sync];\n"
        "  ld.param.u64 %%rd3, [p_data];\n  ld.param.u32 %%r1, [p_n];\n"
        "  ld.param.u32 %%r2, [p_G];\n  mov.u32 %%r3, %%tid.x;\n  mov.u32 %%r4, %%ctaid.x;\n",
        name);
}

typedef enum optype { T_F32, T_F64, T_F16, T_U32, T_LDS, T_LDG } optype;

static optype op_type(const char *n)
{
    if (!strcmp(n, "ffma") || !strcmp(n, "fadd") || !strncmp(n, "mufu", 4))
        return T_F32;
    if (!strcmp(n, "dfma"))
        return T_F64;
    if (!strcmp(n, "hfma2"))
        return T_F16;
    if (!strcmp(n, "lds"))
        return T_LDS;
    if (!strcmp(n, "ldg"))
        return T_LDG;
    return T_U32;
}

/* Operands from the thread id and the parameters, so that nothing is a
 * compile-time constant the compiler could fold. */
static void init_operands(sbuf *b, optype t)
{
    put(b, "  cvt.rn.f32.u32 %%f0, %%r3;\n  add.f32 %%f1, %%f0, 0f3F800000;\n"
           "  add.f32 %%f2, %%f0, 0f40000000;\n  add.f32 %%f3, %%f0, 0f40400000;\n"
           "  cvt.rn.f32.u32 %%f8, %%r2;\n  mul.f32 %%f8, %%f8, 0f3F7FBE77;\n"
           "  cvt.rn.f32.u32 %%f9, %%r1;\n  mul.f32 %%f9, %%f9, 0f358637BD;\n"
           "  add.u32 %%a0, %%r3, 1;\n  add.u32 %%a1, %%r3, 3;\n  add.u32 %%a2, %%r3, 5;\n"
           "  add.u32 %%a3, %%r3, 7;\n  add.u32 %%a8, %%r1, %%r2;\n  add.u32 %%a9, %%r1, 12345;\n"
           "  mov.u32 %%a11, 0;\n");
    if (t == T_F64)
        for (int k = 0; k < 4; k++)
            put(b, "  cvt.f64.f32 %%fd%d, %%f%d;\n", k, k);
    if (t == T_F64)
        put(b, "  cvt.f64.f32 %%fd8, %%f8;\n  cvt.f64.f32 %%fd9, %%f9;\n");
    if (t == T_F16) {
        for (int k = 0; k < 4; k++)
            put(b, "  cvt.rn.f16x2.f32 %%h%d, %%f%d, %%f%d;\n", k, k, k);
        put(b, "  cvt.rn.f16x2.f32 %%h8, %%f8, %%f8;\n  cvt.rn.f16x2.f32 %%h9, %%f9, %%f9;\n");
    }
}

/* Shared-memory word of this thread (LDS chase, ATOMS): a10 = &gd_smem[tid],
 * holding its own address (the chase's self-pointer). */
static void init_shared(sbuf *b)
{
    put(b, "  mov.u32 %%a12, gd_smem;\n  shl.b32 %%a13, %%r3, 2;\n  add.u32 %%a10, %%a12, %%a13;\n"
           "  st.shared.u32 [%%a10], %%a10;\n  mov.u32 %%a0, %%a10;\n");
}

/* Global self-pointer of this thread: data[tid] holds &data[tid] (host). */
static void init_global(sbuf *b)
{
    put(b, "  mul.wide.u32 %%rd10, %%r3, 8;\n  add.u64 %%q0, %%rd3, %%rd10;\n");
}

/* One timed instruction of chain k (Fig. 3.3's {insts}). */
static void step(sbuf *b, const char *n, int k)
{
    if (!strcmp(n, "ffma"))
        put(b, "  fma.rn.f32 %%f%d, %%f%d, %%f8, %%f9;\n", k, k);
    else if (!strcmp(n, "fadd"))
        put(b, "  add.rn.f32 %%f%d, %%f%d, %%f8;\n", k, k);
    else if (!strcmp(n, "iadd3")) /* a = a + a8 + a9: one 3-input add */
        put(b, "  add.u32 %%a14, %%a%d, %%a8;\n  add.u32 %%a%d, %%a14, %%a%d;\n", k, k, (k + 1) % 4);
    else if (!strcmp(n, "imad"))
        put(b, "  mad.lo.u32 %%a%d, %%a%d, %%a8, %%a9;\n", k, k);
    else if (!strcmp(n, "lop3"))
        put(b, "  lop3.b32 %%a%d, %%a%d, %%a8, %%a9, 0xE8;\n", k, k);
    else if (!strcmp(n, "shf_wrap"))
        put(b, "  shf.l.wrap.b32 %%a%d, %%a%d, %%a%d, %%a8;\n", k, k, k);
    else if (!strcmp(n, "mufu_rcp")) /* rcp(rcp(x)) alone is folded to x by ptxas */
        put(b, "  rcp.approx.ftz.f32 %%f%d, %%f%d;\n  mul.ftz.f32 %%f%d, %%f%d, %%f8;\n", k, k, k, k);
    else if (!strcmp(n, "mufu_sin"))
        put(b, "  sin.approx.ftz.f32 %%f%d, %%f%d;\n", k, k);
    else if (!strcmp(n, "mufu_ex2"))
        put(b, "  ex2.approx.ftz.f32 %%f%d, %%f%d;\n", k, k);
    else if (!strcmp(n, "dfma"))
        put(b, "  fma.rn.f64 %%fd%d, %%fd%d, %%fd8, %%fd9;\n", k, k);
    else if (!strcmp(n, "hfma2"))
        put(b, "  fma.rn.f16x2 %%h%d, %%h%d, %%h8, %%h9;\n", k, k);
    else if (!strcmp(n, "shfl"))
        put(b, "  shfl.sync.bfly.b32 %%a%d, %%a%d, 1, 31, -1;\n", k, k);
    else if (!strcmp(n, "lds"))
        put(b, "  ld.shared.u32 %%a0, [%%a0];\n");
    else if (!strcmp(n, "ldg"))
        put(b, "  ld.global.u64 %%q0, [%%q0];\n");
    else if (!strcmp(n, "bra")) /* never taken, but the chain decides it each time */
        put(b, "  add.u32 %%a%d, %%a%d, %%a8;\n  setp.eq.u32 %%p8, %%a%d, %%a9;\n"
               "  @%%p8 bra GD_DEAD;\n", k, k, k);
    else if (!strcmp(n, "atoms_add")) /* the returned value feeds the next add */
        put(b, "  atom.shared.add.u32 %%a%d, [%%a10], %%a%d;\n", k, k);
    else if (!strcmp(n, "atoms_popc")) /* +1 on one word, result unused: ATOMS.POPC.INC */
        put(b, "  red.shared.add.u32 [gd_smem], 1;\n");
}

static int op_chains(const char *n)
{
    optype t = op_type(n);
    return (t == T_LDS || t == T_LDG) ? 1 : 4;
}

/* Every chain folded into a12, stored only when it equals a value it never
 * takes: the timed code's result is used, the store never happens. */
static void fold(sbuf *b, optype t)
{
    put(b, "  mov.u32 %%a12, %%a11;\n");
    for (int k = 0; k < (t == T_LDG ? 1 : 4); k++) { /* x ^ x would cancel */
        switch (t) {
        case T_F32: put(b, "  mov.b32 %%a13, %%f%d;\n", k); break;
        case T_F64: put(b, "  cvt.rn.f32.f64 %%f10, %%fd%d;\n  mov.b32 %%a13, %%f10;\n", k); break;
        case T_F16: put(b, "  mov.b32 %%a13, %%h%d;\n", k); break;
        case T_LDG: put(b, "  cvt.u32.u64 %%a13, %%q0;\n"); break;
        default: put(b, "  mov.u32 %%a13, %%a%d;\n", k); break;
        }
        put(b, "  xor.b32 %%a12, %%a12, %%a13;\n");
    }
    put(b, "  setp.eq.u32 %%p7, %%a12, 0x7F3A5C11;\n  @%%p7 st.global.u32 [%%rd1+%u], %%a12;\n",
        GB_WAVES_SINK_OFFSET);
}

/* The global semaphore of Sec. 3.2.2 ("if G > 1, must sync with global
 * memory"), bounded: a block that waits 200 ms gives up and sets sync[1]. */
static void global_sync(sbuf *b)
{
    put(b, "  setp.eq.u64 %%p1, %%rd2, 0;\n  @%%p1 bra GD_NOSYNC;\n"
           "  setp.ne.u32 %%p2, %%r3, 0;\n  @%%p2 bra GD_SYNCED;\n"
           "  atom.global.add.u32 %%r5, [%%rd2], 1;\n  mov.u64 %%rd4, %%globaltimer;\n"
           "GD_SPIN:\n  ld.volatile.global.u32 %%r6, [%%rd2];\n"
           "  setp.ge.u32 %%p3, %%r6, %%r2;\n  @%%p3 bra GD_SYNCED;\n"
           "  mov.u64 %%rd5, %%globaltimer;\n  sub.u64 %%rd6, %%rd5, %%rd4;\n"
           "  setp.lt.u64 %%p4, %%rd6, 200000000;\n  @%%p4 bra GD_SPIN;\n"
           "  st.volatile.global.u32 [%%rd2+4], 1;\n"
           "GD_SYNCED:\n  bar.sync 0;\nGD_NOSYNC:\n");
}

/* Fig. 3.3: sync, clock, {insts} n times, sync, clock; run twice so that
 * the second, timed pass finds the instruction cache warm (Sec. 3.2.2). */
int gb_waves_ptx_fu(char *buf, size_t len, const gb_waves_fu_op *op, int cc)
{
    sbuf b = {buf, len, 0, 0};
    char name[64];
    optype t = op_type(op->name);
    int chains = op_chains(op->name);
    int reps = op->per_iter / chains;
    int shared = t == T_LDS || !strncmp(op->name, "atoms", 5);
    snprintf(name, sizeof name, "gd_fu_%s", op->name);
    header(&b, cc);
    if (shared)
        put(&b, ".shared .align 16 .b8 gd_smem[4096];\n\n");
    entry(&b, name);
    put(&b, "  mov.u64 %%rd20, %%globaltimer;\n");
    init_operands(&b, t);
    if (shared)
        init_shared(&b);
    if (t == T_LDG)
        init_global(&b);
    put(&b, "  bar.sync 0;\n");
    global_sync(&b);
    put(&b, "  mov.u32 %%r7, 0;\nGD_PASS:\n  bar.sync 0;\n  mov.u64 %%rd7, %%clock64;\n"
            "  mov.u32 %%r8, 0;\nGD_LOOP:\n");
    for (int r = 0; r < reps; r++)
        for (int k = 0; k < chains; k++)
            step(&b, op->name, k);
    put(&b, "  add.u32 %%r8, %%r8, 1;\n  setp.lt.u32 %%p5, %%r8, %%r1;\n  @%%p5 bra GD_LOOP;\n"
            "  bar.sync 0;\n  mov.u64 %%rd8, %%clock64;\n  add.u32 %%r7, %%r7, 1;\n"
            "  setp.lt.u32 %%p6, %%r7, 2;\n  @%%p6 bra GD_PASS;\n"
            "  setp.ne.u32 %%p2, %%r3, 0;\n  @%%p2 bra GD_FOLD;\n"
            "  sub.u64 %%rd9, %%rd8, %%rd7;\n  mul.wide.u32 %%rd10, %%r4, 8;\n"
            "  add.u64 %%rd11, %%rd1, %%rd10;\n  st.global.u64 [%%rd11], %%rd9;\n"
            /* where and when the block ran (the tail-wave diagnostic) */
            "  mov.u64 %%rd21, %%globaltimer;\n  mov.u32 %%r21, %%smid;\n"
            "  mul.wide.u32 %%rd22, %%r4, 24;\n  add.u64 %%rd23, %%rd1, %%rd22;\n"
            "  cvt.u64.u32 %%rd24, %%r21;\n  st.global.u64 [%%rd23+%u], %%rd24;\n"
            "  st.global.u64 [%%rd23+%u], %%rd20;\n  st.global.u64 [%%rd23+%u], %%rd21;\n"
            "GD_FOLD:\n", GB_WAVES_BLOCKLOG_OFFSET, GB_WAVES_BLOCKLOG_OFFSET + 8, GB_WAVES_BLOCKLOG_OFFSET + 16);
    if (!strcmp(op->name, "atoms_popc")) /* the count the atomics made is the result */
        put(&b, "  ld.shared.u32 %%a11, [gd_smem];\n");
    fold(&b, t);
    put(&b, "  ret;\n");
    if (!strcmp(op->name, "bra"))
        put(&b, "GD_DEAD:\n  st.global.u32 [%%rd1+%u], %%a0;\n  ret;\n", GB_WAVES_SINK_OFFSET + 4);
    put(&b, "}\n");
    return finish(&b);
}

/* Registers held live in code that never runs: `regs` volatile loads, then
 * the same stores in reverse order, so every loaded value is live at once
 * (volatile accesses are not reordered).  Shared memory: one store into the
 * static array keeps it. */
static void resources(sbuf *b, long smem, int regs)
{
    put(b, "  setp.ne.u32 %%p9, %%r2, 0x5EED5EED;\n  @%%p9 bra GD_END;\n");
    if (smem != 0)
        put(b, "  mov.u32 %%a12, gd_smem;\n  st.volatile.shared.u32 [%%a12+%ld], %%r3;\n",
            smem > 0 ? (smem - 4) & ~3L : 0L);
    for (int i = 0; i < regs; i++)
        put(b, "  ld.volatile.global.u32 %%v%d, [%%rd1+%d];\n", i, 4 * i);
    for (int i = regs - 1; i >= 0; i--)
        put(b, "  st.volatile.global.u32 [%%rd1+%d], %%v%d;\n", 4 * (i + 1), i);
    put(b, "GD_END:\n");
}

int gb_waves_ptx_count(char *buf, size_t len, int cc, long smem_bytes, int regs, int maxnreg,
                       int mode)
{
    sbuf b = {buf, len, 0, 0};
    header(&b, cc);
    if (smem_bytes > 0)
        put(&b, ".shared .align 16 .b8 gd_smem[%ld];\n\n", (smem_bytes + 3) & ~3L);
    else if (smem_bytes < 0) /* dynamic: the size is the launch's */
        put(&b, ".extern .shared .align 16 .b8 gd_smem[];\n\n");
    put(&b, ".visible .entry gd_count(.param .u64 p_out, .param .u64 p_sync, .param .u64 p_data,\n"
            "    .param .u32 p_n, .param .u32 p_G)\n");
    if (maxnreg > 0)
        put(&b, ".maxnreg %d\n", maxnreg);
    put(&b, "{\n  .reg .pred %%p<16>;\n  .reg .b32 %%r<32>;\n  .reg .b64 %%rd<32>;\n"
            "  .reg .b32 %%a<16>;\n");
    if (regs > 0)
        put(&b, "  .reg .b32 %%v<%d>;\n", regs);
    put(&b, "  ld.param.u64 %%rd1, [p_out];\n  ld.param.u64 %%rd2, [p_sync];\n"
            "  ld.param.u32 %%r1, [p_n];\n  ld.param.u32 %%r2, [p_G];\n  mov.u32 %%r3, %%tid.x;\n"
            "  setp.ne.u32 %%p1, %%r3, 0;\n  @%%p1 bra GD_BAR;\n"
            "  atom.global.add.u32 %%r5, [%%rd2], 1;\n  mov.u64 %%rd4, %%globaltimer;\n"
            "  mov.u64 %%rd5, %%rd4;\n  add.u32 %%r6, %%r5, 1;\n");
    if (mode == 0) {
        /* the first block watches: count stable for n ns -> that is everyone
         * who fits; it releases the others through sync[1] */
        put(&b, "  setp.ne.u32 %%p2, %%r5, 0;\n  @%%p2 bra GD_WAIT;\n"
                "GD_WATCH:\n  ld.volatile.global.u32 %%r7, [%%rd2];\n"
                "  mov.u64 %%rd6, %%globaltimer;\n  setp.ge.u32 %%p3, %%r7, %%r2;\n"
                "  @%%p3 bra GD_RELEASE;\n  setp.ne.u32 %%p4, %%r7, %%r6;\n"
                "  @%%p4 mov.u64 %%rd5, %%rd6;\n  @%%p4 mov.u32 %%r6, %%r7;\n"
                "  sub.u64 %%rd7, %%rd6, %%rd5;\n  cvt.u64.u32 %%rd8, %%r1;\n"
                "  setp.gt.u64 %%p5, %%rd7, %%rd8;\n  @%%p5 bra GD_RELEASE;\n"
                "  sub.u64 %%rd9, %%rd6, %%rd4;\n  setp.lt.u64 %%p6, %%rd9, 50000000;\n"
                "  @%%p6 bra GD_WATCH;\n"
                "GD_RELEASE:\n  ld.volatile.global.u32 %%r7, [%%rd2];\n"
                "  st.global.u32 [%%rd1], %%r7;\n  st.volatile.global.u32 [%%rd2+4], 1;\n"
                "  bra GD_BAR;\n"
                "GD_WAIT:\n  ld.volatile.global.u32 %%r8, [%%rd2+4];\n"
                "  setp.ne.u32 %%p3, %%r8, 0;\n  @%%p3 bra GD_BAR;\n"
                "  ld.volatile.global.u32 %%r7, [%%rd2];\n  setp.ge.u32 %%p4, %%r7, %%r2;\n"
                "  @%%p4 bra GD_BAR;\n  mov.u64 %%rd6, %%globaltimer;\n"
                "  sub.u64 %%rd9, %%rd6, %%rd4;\n  setp.lt.u64 %%p6, %%rd9, 100000000;\n"
                "  @%%p6 bra GD_WAIT;\n");
    } else {
        /* Fig. 3.4: wait for all G, or time out after n ns and say so */
        put(&b, "GD_WAIT:\n  ld.volatile.global.u32 %%r7, [%%rd2];\n"
                "  setp.ge.u32 %%p4, %%r7, %%r2;\n  @%%p4 bra GD_BAR;\n"
                "  mov.u64 %%rd6, %%globaltimer;\n  sub.u64 %%rd9, %%rd6, %%rd4;\n"
                "  cvt.u64.u32 %%rd8, %%r1;\n  setp.lt.u64 %%p6, %%rd9, %%rd8;\n"
                "  @%%p6 bra GD_WAIT;\n  st.volatile.global.u32 [%%rd2+4], 2;\n");
    }
    put(&b, "GD_BAR:\n  bar.sync 0;\n");
    resources(&b, smem_bytes, regs);
    put(&b, "  ret;\n}\n");
    return finish(&b);
}

int gb_waves_ptx_wsched(char *buf, size_t len, int cc, int steps)
{
    sbuf b = {buf, len, 0, 0};
    header(&b, cc);
    entry(&b, "gd_wsched");
    put(&b, "  .reg .b32 %%c<%d>;\n  cvt.rn.f32.u32 %%f0, %%r3;\n  cvt.rn.f32.u32 %%f8, %%r1;\n"
            "  mov.u32 %%a1, %%warpid;\n  bar.sync 0;\n",
        steps);
    for (int i = 0; i < steps; i++)
        put(&b, "  mov.u32 %%c%d, %%clock;\n  fma.rn.f32 %%f0, %%f0, %%f8, %%f8;\n", i);
    put(&b, "  and.b32 %%a2, %%r3, 31;\n  setp.ne.u32 %%p1, %%a2, 0;\n  @%%p1 bra GD_FOLD;\n"
            "  shr.u32 %%a3, %%r3, 5;\n  mul.lo.u32 %%a4, %%a3, %d;\n"
            "  mul.wide.u32 %%rd10, %%a4, 8;\n  add.u64 %%rd11, %%rd1, %%rd10;\n"
            "  cvt.u64.u32 %%rd12, %%a1;\n  st.global.u64 [%%rd11], %%rd12;\n",
        steps + 1);
    for (int i = 0; i < steps; i++)
        put(&b, "  cvt.u64.u32 %%rd12, %%c%d;\n  st.global.u64 [%%rd11+%d], %%rd12;\n", i,
            8 * (i + 1));
    put(&b, "GD_FOLD:\n  mov.b32 %%a12, %%f0;\n  setp.eq.u32 %%p7, %%a12, 0x7F3A5C11;\n"
            "  @%%p7 st.global.u32 [%%rd1+%u], %%a12;\n  ret;\n}\n",
        GB_WAVES_SINK_OFFSET);
    return finish(&b);
}

int gb_waves_ptx_empty(char *buf, size_t len, int cc)
{
    sbuf b = {buf, len, 0, 0};
    header(&b, cc);
    entry(&b, "gd_empty");
    put(&b, "  ret;\n}\n");
    return finish(&b);
}
