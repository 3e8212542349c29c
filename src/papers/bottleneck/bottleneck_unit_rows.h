/* Hopper's units, one row each: the suite "units" measures a row's rate
 * (bottleneck_units_suite.c, its kernel generated from the row in
 * bottleneck_units_kernels.cu / bottleneck_wgmma.cu), the SASS check holds
 * its kernel to the row's opcode, and the bottleneck model divides the
 * row's counter by that rate (bottleneck_physics.c).  Adding a tensor
 * instruction or a memory path is one row here (and, for a new counter, its
 * row in the metric table, src/core/metrics.c).  C and CUDA C include this
 * file; the fields a side does not use are left unexpanded.
 *
 * Tensor rows: X(id, type, form, arch, emul, k, acc, ptx, tail, flop, documented, metric, set,
 *                sass)
 *   id          the row's name in the machine data (kind=tensor) and its kernel's
 *               (tu_<id>);
 *   type        the operand type, as the report names it;
 *   form        HMMA: mma.sync m16n8k<k>, operands in registers, 8 independent
 *               accumulators per warp; GMMA_SS / GMMA_RS: wgmma m64n128k<k>, B
 *               (and A, SS) from shared memory, one accumulator, back to back
 *               with one commit group in flight (sm_90a);
 *   arch        the compute capability x 100 the instruction needs (the
 *               suite leaves the row out on a GPU below it);
 *   emul        the compute capability families (GM_BOTTLENECK_UNITS_CC(major) | ...) where
 *               the instruction compiles but is not native: ptxas emulates it
 *               with other instructions, and a rate measured there would not
 *               be the tensor pipe's rate of the type, so the suite leaves the
 *               row out there too (0: native wherever it compiles).  fp8
 *               mma.sync is native on cc 8.9 and 12.x (QMMA, one per mma);
 *               ptxas 13.0's code of the kernel for sm_90 holds 4 HMMA where
 *               the f16 row's holds 80, among ~380 conversions and adds, and
 *               sm_100's 8 where f16's holds 464 (on the H200, 2026-12-02, ncu
 *               counted 1.6% of its FLOPs, all as fp16: its "rate" of 6697
 *               FLOP/clk/SM was the emulation's);
 *   k           the instruction's K;
 *   acc         F (f32) or I (s32) accumulators;
 *   ptx, tail   the instruction, and for wgmma what follows the operands
 *               (scale-d predicate, then the immediates its type takes);
 *   flop        FLOP (int8: operations) per warp-instruction (mma.sync) or per
 *               warpgroup-instruction (wgmma): 2 M N K;
 *   documented  dense FLOP per clock per SM of the type on cc 9.0: NVIDIA's
 *               published H100 SXM rates (989.4 TFLOP/s bf16 and fp16, 494.7
 *               tf32, 1978.9 fp8 and int8 TOPS, dense) over 132 SMs at the
 *               1830 MHz boost clock they are quoted at;
 *   metric      the counter of the row's work (sm__ops_path_tensor_*: one per
 *               FLOP, to be checked with scripts/gpu_units.sh's ncu step); rows
 *               that share a counter share its work, timed at the best rate
 *               among them;
 *   set         DEFAULT: the counter is in the bottleneck unit's default list
 *               (wgmma's FLOPs, and fp8's, which both forms share: no pass
 *               more on GH100, validation/metric_passes); NAMED: collected
 *               only when named (GPUQ_EXTRA_METRICS=NAME,...: mma.sync's,
 *               which take the opt-in set from 10 passes to 15);
 *   sass        the opcode the kernel must hold, a mnemonic prefix with the
 *               instruction's shape and types as sm_90 SASS spells them
 *               (tests/bench/check_suite_sass.sh): HMMA.16816.F32.BF16,
 *               HGMMA.64x128x16.F32.BF16, QGMMA.64x128x32.F32.E4M3.E4M3, ...;
 *               "A|B": either.  A row's kernel runs a stand-in (f16 or s8
 *               mma.sync, HMMA.16816.F32 / IMMA.16832.S8.S8) in the code of
 *               an architecture the row is left out on, so every
 *               architecture's code of the kernel holds the alternatives: the
 *               fp8 mma.sync row's native QMMA.16832 (sm_89, sm_120) or, in the
 *               default build's sm_80 and sm_90 code, the f16 stand-in.
 *
 * Memory rows: X(id, path, resident, store, sass, documented)
 *   path        LSU: 16-byte ld/st.global.cg (L1 out) from every warp, loads in
 *               flight per thread swept; TMA: cp.async.bulk global -> shared
 *               from one thread per block, stages x bytes in flight swept;
 *   resident    L2: a working set of half the L2 (cudaDevAttrL2CacheSize),
 *               DRAM: 2 GiB, far beyond it;
 *   documented  DRAM: the memory clock x bus width x 2 of the device
 *               attributes (the peak the vendor quotes); L2: none published.
 */
#ifndef GPUQ_BOTTLENECK_UNIT_ROWS_H
#define GPUQ_BOTTLENECK_UNIT_ROWS_H

/* A compute capability family in a row's `emul` mask. */
#define GM_BOTTLENECK_UNITS_CC(major) (1u << (major))
/* 1 where a GPU of compute capability cc100 (x 100: 900) runs a row of
 * `arch` and `emul` natively, the suite measures it there. */
#define GM_BOTTLENECK_UNITS_NATIVE(arch, emul, cc100) ((cc100) >= (arch) && !(((emul) >> ((cc100) / 100)) & 1u))

#define GM_BOTTLENECK_UNITS_TENSOR_ROWS(X)                                                          \
    X(hmma_f16, "fp16", HMMA, 800, 0, 16, F,                                                        \
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32", "",                                      \
      4096, 4096, "sm__ops_path_tensor_op_hmma_src_fp16_dst_fp32.sum", NAMED, "HMMA.16816.F32")     \
    X(hmma_bf16, "bf16", HMMA, 800, 0, 16, F,                                                       \
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32", "",                                    \
      4096, 4096, "sm__ops_path_tensor_op_hmma_src_bf16_dst_fp32.sum", NAMED,                       \
      "HMMA.16816.F32.BF16")                                                                        \
    X(hmma_tf32, "tf32", HMMA, 800, 0, 8, F,                                                        \
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32", "",                                     \
      2048, 2048, "sm__ops_path_tensor_op_hmma_src_tf32_dst_fp32.sum", NAMED,                       \
      "HMMA.1688.F32.TF32")                                                                         \
    X(imma_s8, "int8", HMMA, 800, 0, 32, I,                                                         \
      "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32", "",                                        \
      8192, 8192, "sm__ops_path_tensor_op_imma_src_int8.sum", NAMED, "IMMA.16832.S8.S8")            \
    X(hmma_e4m3, "fp8", HMMA, 890, GM_BOTTLENECK_UNITS_CC(9) | GM_BOTTLENECK_UNITS_CC(10), 32, F,   \
      "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32", "",                                    \
      8192, 8192, "sm__ops_path_tensor_src_fp8.sum", DEFAULT,                                       \
      "QMMA.16832.F32.E4M3.E4M3|HMMA.16816.F32")                                                    \
    X(gmma_bf16_ss, "bf16", GMMA_SS, 900, 0, 16, F,                                                 \
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16", "p, 1, 1, 0, 0",                     \
      262144, 4096, "sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32.sum", DEFAULT,                  \
      "HGMMA.64x128x16.F32.BF16")                                                                   \
    X(gmma_bf16_rs, "bf16", GMMA_RS, 900, 0, 16, F,                                                 \
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16", "p, 1, 1, 0",                        \
      262144, 4096, "sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32.sum", DEFAULT,                  \
      "HGMMA.64x128x16.F32.BF16")                                                                   \
    X(gmma_f16_ss, "fp16", GMMA_SS, 900, 0, 16, F,                                                  \
      "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16", "p, 1, 1, 0, 0",                       \
      262144, 4096, "sm__ops_path_tensor_op_hgmma_src_fp16.sum", DEFAULT, "HGMMA.64x128x16.F32")    \
    X(gmma_tf32_ss, "tf32", GMMA_SS, 900, 0, 8, F,                                                  \
      "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32", "p, 1, 1",                            \
      131072, 2048, "sm__ops_path_tensor_op_hgmma_src_tf32_dst_fp32.sum", DEFAULT,                  \
      "HGMMA.64x128x8.F32.TF32")                                                                    \
    X(gmma_e4m3_ss, "fp8", GMMA_SS, 900, 0, 32, F,                                                  \
      "wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3", "p, 1, 1",                           \
      524288, 8192, "sm__ops_path_tensor_src_fp8.sum", DEFAULT, "QGMMA.64x128x32.F32.E4M3.E4M3")    \
    X(gmma_s8_ss, "int8", GMMA_SS, 900, 0, 32, I,                                                   \
      "wgmma.mma_async.sync.aligned.m64n128k32.s32.s8.s8", "p",                                     \
      524288, 8192, "sm__ops_path_tensor_op_igmma_src_int8.sum", DEFAULT, "IGMMA.64x128x32.S8.S8")

#define GM_BOTTLENECK_UNITS_MEMORY_ROWS(X)                                                         \
    X(l2_ld, LSU, L2, 0, "LDG.E.128.STRONG.GPU", 0)                                                \
    X(l2_st, LSU, L2, 1, "STG.E.128", 0)                                                           \
    X(dram_ld, LSU, DRAM, 0, "LDG.E.128.STRONG.GPU", 1)                                            \
    X(dram_st, LSU, DRAM, 1, "STG.E.128", 1)                                                       \
    X(tma_l2_ld, TMA, L2, 0, "UBLKCP", 0)                                                          \
    X(tma_dram_ld, TMA, DRAM, 0, "UBLKCP", 1)

/* A tensor row's counter as a list item of the unit's default metrics
 * where its `set` says so; a name may repeat. */
#define GM_BOTTLENECK_UNITS_DEFAULT_METRIC(id, type, form, arch, emul, k, acc, ptx, tail, flop, doc, metric,     \
                                           set, sass)                                                            \
    GM_BOTTLENECK_UNITS_IN_DEFAULT_##set(metric)
#define GM_BOTTLENECK_UNITS_IN_DEFAULT_DEFAULT(metric) metric,
#define GM_BOTTLENECK_UNITS_IN_DEFAULT_NAMED(metric)

/* Row ids as enums (C and CUDA alike). */
#define GM_BOTTLENECK_UNITS_TENSOR_ENUM(id, ...) GM_BOTTLENECK_UNITS_##id,
#define GM_BOTTLENECK_UNITS_MEMORY_ENUM(id, ...) GM_BOTTLENECK_UNITS_##id,
enum { GM_BOTTLENECK_UNITS_TENSOR_ROWS(GM_BOTTLENECK_UNITS_TENSOR_ENUM) GM_BOTTLENECK_UNITS_N_TENSOR };
enum { GM_BOTTLENECK_UNITS_MEMORY_ROWS(GM_BOTTLENECK_UNITS_MEMORY_ENUM) GM_BOTTLENECK_UNITS_N_MEMORY };
#undef GM_BOTTLENECK_UNITS_TENSOR_ENUM
#undef GM_BOTTLENECK_UNITS_MEMORY_ENUM

#endif
