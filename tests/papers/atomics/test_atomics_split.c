/* Unit tests of the opcode split, the shared-atomic unit's code pass
 * (src/papers/atomics/atomics_split.c): the classes of ATOMS opcodes, which
 * a kernel's code holds (recorded cuobjdump text of atomics_app, H200), when
 * the hardware counters then settle the split (checked against the
 * recorded counters, whose split is known by construction), the split from
 * the second run's instruction counts, and the pass as gpuq profile runs
 * it.  Recorded data: tests/profile/data/README.md. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_files.h"

#include "gpuq/counters.h"
#include "gpuq/unit.h"
#include "host/host_sass.h"
#include "papers/atomics/atomics_model.h"
#include "papers/atomics/atomics_split.h"

#define DATA GPUQ_SOURCE_DIR "/tests/profile/data/"
#define PER_LAUNCH 4194304.0 /* 256 blocks x 8 warps x 2048 iterations */

/* One launch of a sass run as gpuq profile takes it: its executed opcodes
 * (host_sass_launch_counts), then the pass's from_counts on a fresh launch;
 * the split it stored and the SASS total. */
static void launch_split(const host_sass_run *run, const host_disasm *d, size_t l,
                         gm_atomics_split *split, double *n, size_t *unresolved)
{
    gm_inst_count *counts = NULL;
    size_t nc = 0;
    gm_error err = {{0}};
    assert_int_equal(host_sass_launch_counts(run, d, l, &counts, &nc, unresolved, &err), GM_OK);
    gm_launch_counters k;
    gm_launch_counters_init(&k);
    int valid = gm_atomics_code_pass.from_counts(&k, counts, nc, *unresolved, run->metric);
    assert_int_equal(valid, k.pass.valid);
    *split = gm_atomics_split_of(&k);
    *n = gm_launch_metric(&k, "smsp__sass_inst_executed_op_shared_atom.sum");
    free(counts);
}

/* The part of a cuobjdump -sass listing that belongs to one function (from
 * its "Function : NAME" line to the next one), as a malloc'ed string. */
static char *function_text(const char *listing, const char *mangled)
{
    char header[256];
    snprintf(header, sizeof header, "Function : %s\n", mangled);
    const char *start = strstr(listing, header);
    assert_non_null(start);
    const char *end = strstr(start + strlen(header), "Function : ");
    size_t n = end ? (size_t)(end - start) : strlen(start);
    char *text = malloc(n + 1);
    assert_non_null(text);
    memcpy(text, start, n);
    text[n] = '\0';
    return text;
}

static void scan_function(const char *listing, const char *mangled, gm_kernel_code *ops)
{
    char *text = function_text(listing, mangled);
    host_code_scan(text, gm_atomics_mark_opcode, ops);
    free(text);
}

static void test_classify_opcode(void **state)
{
    (void)state;
    assert_int_equal(gm_atomics_classify_opcode("ATOMS.ADD"), GM_ATOMICS_OP_ADD);
    assert_int_equal(gm_atomics_classify_opcode("ATOMS.ADD.32"), GM_ATOMICS_OP_ADD);
    assert_int_equal(gm_atomics_classify_opcode("ATOMS.POPC.INC.32"), GM_ATOMICS_OP_POPC_INC);
    assert_int_equal(gm_atomics_classify_opcode("ATOMS.POPC.INC"), GM_ATOMICS_OP_POPC_INC);
    assert_int_equal(gm_atomics_classify_opcode("ATOMS.CAS"), GM_ATOMICS_OP_CAS);
    assert_int_equal(gm_atomics_classify_opcode("ATOMS.CAS.64"), GM_ATOMICS_OP_CAS);
    assert_int_equal(gm_atomics_classify_opcode("ATOMS.CAST.SPIN"), GM_ATOMICS_OP_CAS);
    assert_int_equal(gm_atomics_classify_opcode("ATOMS.ADD.64"), GM_ATOMICS_OP_OTHER);
    assert_int_equal(gm_atomics_classify_opcode("ATOMS.ADD.F32.FTZ.RN"), GM_ATOMICS_OP_OTHER);
    assert_int_equal(gm_atomics_classify_opcode("ATOMS.EXCH"), GM_ATOMICS_OP_OTHER);
    assert_int_equal(gm_atomics_classify_opcode("ATOMS.MIN.S32"), GM_ATOMICS_OP_OTHER);
    assert_int_equal(gm_atomics_classify_opcode("ATOMS.POPC.DEC.32"), GM_ATOMICS_OP_OTHER);
    assert_int_equal(gm_atomics_classify_opcode("ATOMS"), GM_ATOMICS_OP_OTHER);
    assert_int_equal(gm_atomics_classify_opcode("ATOMSX.ADD"), GM_ATOMICS_OP_NOT_ATOMS);
    assert_int_equal(gm_atomics_classify_opcode("ATOM.E.ADD.STRONG.GPU"), GM_ATOMICS_OP_NOT_ATOMS);
    assert_int_equal(gm_atomics_classify_opcode("ATOMG.E.ADD.STRONG.GPU"), GM_ATOMICS_OP_NOT_ATOMS);
    assert_int_equal(gm_atomics_classify_opcode("REDG.E.ADD.STRONG.GPU"), GM_ATOMICS_OP_NOT_ATOMS);
    assert_int_equal(gm_atomics_classify_opcode("LDS"), GM_ATOMICS_OP_NOT_ATOMS);
    assert_int_equal(gm_atomics_classify_opcode(NULL), GM_ATOMICS_OP_NOT_ATOMS);
}

static void test_scan_recorded_kernels(void **state)
{
    (void)state;
    char *listing = test_read_file(DATA "gh100_atomics_app.cuobjdump.txt");
    static const struct {
        const char *mangled;
        unsigned classes;
    } kernels[] = {
        {"_Z10k_add_samePKjPji", GM_ATOMICS_MARK(GM_ATOMICS_OP_ADD)},
        {"_Z10k_popc_incPKjPji", GM_ATOMICS_MARK(GM_ATOMICS_OP_POPC_INC)},
        {"_Z14k_cas_distinctPKjPji", GM_ATOMICS_MARK(GM_ATOMICS_OP_CAS)},
        {"_Z7k_mixedPKjS0_Pji", GM_ATOMICS_MARK(GM_ATOMICS_OP_ADD) | GM_ATOMICS_MARK(GM_ATOMICS_OP_CAS) | GM_ATOMICS_MARK(GM_ATOMICS_OP_POPC_INC)},
        {"_Z12k_no_atomicsPKjPji", 0},
        {"_Z10k_in_graphPKjPji", GM_ATOMICS_MARK(GM_ATOMICS_OP_POPC_INC)},
    };
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++) {
        gm_kernel_code ops;
        scan_function(listing, kernels[i].mangled, &ops);
        assert_true(ops.instructions > 10);
        assert_int_equal(ops.marks, kernels[i].classes); /* no call, no generic atomic */
    }
    free(listing);
}

static void test_scan_calls_and_generic_atomics(void **state)
{
    (void)state;
    gm_kernel_code ops;
    host_code_scan("        /*0000*/      ATOMS.ADD R4, [R0], R11 ;\n"
                   "        /*0010*/      CALL.REL.NOINC `(_Z3foov) ;\n"
                   "        /*0060*/      EXIT ;\n",
                   gm_atomics_mark_opcode, &ops);
    assert_int_equal(ops.instructions, 3);
    assert_int_equal(ops.marks, GM_ATOMICS_MARK(GM_ATOMICS_OP_ADD) | GM_ATOMICS_MARK_CALL);
    /* ATOM and RED are generic (they may reach shared memory); ATOMG/REDG
     * are global, REDUX a warp reduction. */
    static const char *const generic[] = {
        "        /*0020*/ @P0  ATOM.E.ADD.STRONG.GPU PT, R2, [R2.64], R5 ;\n",
        "        /*0030*/      RED.E.ADD.STRONG.GPU [R2.64], R5 ;\n"};
    static const char *const not_generic[] = {
        "        /*0040*/      REDG.E.ADD.STRONG.GPU desc[UR4][R2.64], R5 ;\n",
        "        /*0050*/      ATOMG.E.ADD.STRONG.GPU PT, R3, desc[UR4][R2.64], R5 ;\n",
        "        /*0070*/      REDUX.SUM UR5, R2 ;\n"};
    for (size_t i = 0; i < 2; i++) {
        host_code_scan(generic[i], gm_atomics_mark_opcode, &ops);
        assert_int_equal(ops.marks, GM_ATOMICS_MARK_GENERIC_ATOMIC);
    }
    for (size_t i = 0; i < 3; i++) {
        host_code_scan(not_generic[i], gm_atomics_mark_opcode, &ops);
        assert_int_equal(ops.instructions, 1);
        assert_int_equal(ops.marks, 0);
    }
    host_code_scan("        /*0000*/      ATOMS.ADD R4, [R0], R11 ;\n", gm_atomics_mark_opcode, &ops);
    gm_kernel_code more;
    host_code_scan("        /*0000*/      ATOMS.POPC.INC.32 RZ, [R4+URZ] ;\n", gm_atomics_mark_opcode,
                   &more);
    host_code_merge(&ops, &more);
    assert_int_equal(ops.marks,
                     GM_ATOMICS_MARK(GM_ATOMICS_OP_ADD) | GM_ATOMICS_MARK(GM_ATOMICS_OP_POPC_INC));
    assert_int_equal(ops.instructions, 2);
}

/* Every recorded launch of atomics_app: the split follows from the
 * hardware counters and the code for each kernel but k_mixed, and equals
 * the split known by construction. */
static void test_split_of_recorded_launches(void **state)
{
    (void)state;
    char *listing = test_read_file(DATA "gh100_atomics_app.cuobjdump.txt");
    gm_counters_set set;
    gm_error err = {{0}};
    assert_int_equal(gm_counters_load(DATA "gh100_atomics_app.counters.csv", &set, &err), GM_OK);
    assert_true(set.count >= 10);
    size_t settled = 0, mixed = 0;
    for (size_t i = 0; i < set.count; i++) {
        const gm_launch_counters *k = &set.launches[i];
        gm_kernel_code ops;
        scan_function(listing, k->mangled, &ops);
        gm_atomics_split split;
        memset(&split, 0, sizeof split);
        const char *why = NULL;
        int ok = gm_atomics_split_from_code(k, &ops, &split, &why);
        assert_non_null(why);
        if (strcmp(k->mangled, "_Z7k_mixedPKjS0_Pji") == 0) {
            assert_false(ok);
            assert_non_null(strstr(why, "several"));
            mixed++;
            continue;
        }
        assert_true(ok);
        settled++;
        assert_true(split.valid);
        double add = 0, cas = 0, popc = 0;
        if (strcmp(k->mangled, "_Z10k_add_samePKjPji") == 0)
            add = PER_LAUNCH;
        else if (strcmp(k->mangled, "_Z10k_popc_incPKjPji") == 0)
            popc = PER_LAUNCH;
        else if (strcmp(k->mangled, "_Z14k_cas_distinctPKjPji") == 0)
            cas = PER_LAUNCH;
        assert_true(split.add == add);
        assert_true(split.cas == cas);
        assert_true(split.popc_inc == popc);
        assert_true(split.other == 0);
    }
    assert_int_equal(mixed, 1);
    assert_int_equal(settled, set.count - 1);
    gm_counters_set_clear(&set);
    free(listing);
}

static void launch_with(gm_launch_counters *k, double n, double cas, double alu)
{
    gm_launch_counters_init(k);
    k->metric[GM_ATOMICS_M_N_ATOM] = n;
    k->metric[GM_ATOMICS_M_N_CAS] = cas;
    k->metric[GM_ATOMICS_M_N_ALU] = alu;
}

static void test_static_split_refuses(void **state)
{
    (void)state;
    gm_launch_counters k;
    gm_atomics_split split;
    const char *why = NULL;
    gm_kernel_code ops;
    memset(&ops, 0, sizeof ops);
    ops.instructions = 20;
    ops.marks = GM_ATOMICS_MARK(GM_ATOMICS_OP_ADD) | GM_ATOMICS_MARK(GM_ATOMICS_OP_CAS);

    /* One non-CAS class next to CAS: settled, CAS from the hardware. */
    launch_with(&k, 30, 10, 20);
    assert_true(gm_atomics_split_from_code(&k, &ops, &split, &why));
    assert_true(split.valid && split.add == 20 && split.cas == 10 && split.popc_inc == 0 &&
                split.other == 0);
    /* Other classes count as one class of their own. */
    ops.marks = GM_ATOMICS_MARK(GM_ATOMICS_OP_OTHER);
    assert_true(gm_atomics_split_from_code(&k, &ops, &split, &why));
    assert_true(split.other == 20 && split.add == 0);

    ops.marks = GM_ATOMICS_MARK(GM_ATOMICS_OP_ADD) | GM_ATOMICS_MARK(GM_ATOMICS_OP_POPC_INC);
    assert_false(gm_atomics_split_from_code(&k, &ops, &split, &why));
    ops.marks = GM_ATOMICS_MARK(GM_ATOMICS_OP_ADD) | GM_ATOMICS_MARK_CALL;
    assert_false(gm_atomics_split_from_code(&k, &ops, &split, &why));
    assert_non_null(strstr(why, "calls"));
    ops.marks = GM_ATOMICS_MARK(GM_ATOMICS_OP_ADD) | GM_ATOMICS_MARK_GENERIC_ATOMIC;
    assert_false(gm_atomics_split_from_code(&k, &ops, &split, &why));
    assert_non_null(strstr(why, "generic"));
    /* N_f > 0 and no non-CAS ATOMS: a callee or a surprise */
    ops.marks = GM_ATOMICS_MARK(GM_ATOMICS_OP_CAS);
    assert_false(gm_atomics_split_from_code(&k, &ops, &split, &why));
    ops.marks = GM_ATOMICS_MARK(GM_ATOMICS_OP_ADD);
    assert_false(gm_atomics_split_from_code(&k, NULL, &split, &why)); /* code unknown */
    ops.instructions = 0;
    assert_false(gm_atomics_split_from_code(&k, &ops, &split, &why)); /* disassembly empty */
    ops.instructions = 20;

    /* Hardware counts that do not add up, or are missing. */
    launch_with(&k, 31, 10, 20);
    assert_false(gm_atomics_split_from_code(&k, &ops, &split, &why));
    launch_with(&k, 30, NAN, 20);
    assert_false(gm_atomics_split_from_code(&k, &ops, &split, &why));

    /* No non-CAS atomics: the code is not needed. */
    launch_with(&k, 7, 7, 0);
    assert_true(gm_atomics_split_from_code(&k, NULL, &split, &why));
    assert_true(split.valid && split.cas == 7 && split.add == 0 && split.popc_inc == 0);
}

static host_disasm load_disasm(void)
{
    char *text = test_read_file(DATA "gh100_atomics_app.nvdisasm.txt");
    host_disasm d;
    gm_error err = {{0}};
    assert_int_equal(host_disasm_parse(text, &d, &err), GM_OK);
    free(text);
    return d;
}

static void test_recorded_sass_run_split(void **state)
{
    (void)state;
    host_sass_run run;
    gm_error err = {{0}};
    assert_int_equal(host_sass_run_load(DATA "gh100_atomics_app.sass.csv", &run, &err), GM_OK);
    assert_int_equal(run.n_cubins, 1);
    assert_int_equal(run.n_launches, 10);
    host_disasm d = load_disasm();
    static const struct {
        const char *kernel;
        double add, cas, popc;
    } want[] = {
        {"_Z12k_no_atomicsPKjPji", 0, 0, 0},
        {"_Z10k_add_samePKjPji", PER_LAUNCH, 0, 0},
        {"_Z10k_popc_incPKjPji", 0, 0, PER_LAUNCH},
        {"_Z14k_cas_distinctPKjPji", 0, PER_LAUNCH, 0},
        {"_Z7k_mixedPKjS0_Pji", PER_LAUNCH, PER_LAUNCH, PER_LAUNCH},
    };
    for (size_t l = 0; l < run.n_launches; l++) {
        assert_true(run.launches[l].complete);
        gm_atomics_split split;
        double n;
        size_t unresolved = 99;
        launch_split(&run, &d, l, &split, &n, &unresolved);
        assert_int_equal(unresolved, 0);
        assert_true(split.valid);
        size_t w = 0;
        while (w < sizeof want / sizeof want[0] && strcmp(want[w].kernel, run.launches[l].mangled))
            w++;
        assert_true(w < sizeof want / sizeof want[0]);
        assert_true(split.add == want[w].add);
        assert_true(split.cas == want[w].cas);
        assert_true(split.popc_inc == want[w].popc);
        assert_true(split.other == 0);
        assert_true(n == want[w].add + want[w].cas + want[w].popc);
    }
    /* Without the disassembly nothing can be classified. */
    host_disasm empty;
    memset(&empty, 0, sizeof empty);
    gm_atomics_split split;
    double n;
    size_t unresolved = 0;
    launch_split(&run, &empty, 1, &split, &n, &unresolved);
    assert_false(split.valid);
    assert_true(unresolved > 0);
    host_disasm_free(&d);
    host_sass_run_free(&run);
}

/* The split from instruction counts must agree with the hardware counters
 * that the first run recorded: CAS with N_c, the rest with N_f. */
static void test_merge_with_recorded_counters(void **state)
{
    (void)state;
    gm_counters_set set;
    gm_error err = {{0}};
    gm_counters_set_init(&set);
    assert_int_equal(gm_counters_load(DATA "gh100_atomics_app.counters.csv", &set, &err), GM_OK);
    assert_int_equal(set.count, 10);
    host_sass_run run;
    assert_int_equal(host_sass_run_load(DATA "gh100_atomics_app.sass.csv", &run, &err), GM_OK);
    host_disasm d = load_disasm();
    host_merge_stats stats;
    assert_int_equal(host_sass_merge(&set, &run, &d, &gm_atomics_code_pass, &stats, &err), GM_OK);
    assert_int_equal(stats.joined, 10);
    assert_int_equal(stats.missing, 0);
    assert_int_equal(stats.extra, 0);
    assert_int_equal(stats.unresolved, 0);
    for (size_t i = 0; i < set.count; i++) {
        const gm_launch_counters *k = &set.launches[i];
        gm_atomics_split sp = gm_atomics_split_of(k);
        assert_true(sp.valid);
        assert_true(sp.cas == k->metric[GM_ATOMICS_M_N_CAS]);
        assert_true(sp.add + sp.popc_inc + sp.other == k->metric[GM_ATOMICS_M_N_ALU]);
        assert_true(k->metric[GM_ATOMICS_M_N_ATOM_SASS] == k->metric[GM_ATOMICS_M_N_ATOM]);
    }
    host_disasm_free(&d);
    host_sass_run_free(&run);
    gm_counters_set_clear(&set);
}

/* The metric line says what the counts are of; with the shared-atomics
 * metric, an executed instruction that is not an ATOMS is a shared atomic
 * all the same (a generic ATOM) and counts as "other". */
static void test_metric_line_and_shared_atom_only(void **state)
{
    (void)state;
    static const char text[] = GI_SASS_FILE_MAGIC "\n"
                                                  "metric,smsp__sass_inst_executed_op_shared_atom\n"
                                                  "cubin,abc,/nowhere/x.cubin\n"
                                                  "launch,0,0,_Z1av\n"
                                                  "inst,0,abc,0,6,_Z1av\n"
                                                  "inst,0,abc,16,4,_Z1av\n"
                                                  "end,0,2\n";
    static const char dis_text[] = "\t\tFunction : _Z1av\n"
                                   "        /*0000*/   ATOMS.ADD R4, [R0], R11 ;\n"
                                   "        /*0010*/   ATOM.E.ADD.STRONG.GPU PT, R2, [R2.64], R5 ;\n";
    host_sass_run run;
    gm_error err = {{0}};
    assert_int_equal(host_sass_run_parse(text, "t", &run, &err), GM_OK);
    assert_string_equal(run.metric, gm_atomics_code_pass.sass_metric);
    host_disasm d;
    assert_int_equal(host_disasm_parse(dis_text, &d, &err), GM_OK);
    gm_atomics_split split;
    double n;
    size_t unresolved;
    launch_split(&run, &d, 0, &split, &n, &unresolved);
    assert_true(split.valid);
    assert_true(split.add == 6 && split.other == 4 && n == 10);
    host_sass_run_free(&run);

    /* Without a metric line: every instruction was counted, and a generic
     * ATOM is not a shared atomic. */
    static const char all[] = GI_SASS_FILE_MAGIC "\n"
                                                 "cubin,abc,/nowhere/x.cubin\n"
                                                 "launch,0,0,_Z1av\n"
                                                 "inst,0,abc,0,6,_Z1av\n"
                                                 "inst,0,abc,16,4,_Z1av\n"
                                                 "end,0,2\n";
    assert_int_equal(host_sass_run_parse(all, "t", &run, &err), GM_OK);
    assert_string_equal(run.metric, GI_SASS_ALL_METRIC);
    launch_split(&run, &d, 0, &split, &n, &unresolved);
    assert_true(split.add == 6 && split.other == 0 && n == 6);
    host_sass_run_free(&run);
    host_disasm_free(&d);
}

/* The pass as the unit declares it: run when the non-CAS count was
 * gathered; the counters alone settle launches without non-CAS atomics,
 * and leave rows listed without counters alone. */
static void test_pass_row(void **state)
{
    (void)state;
    const gm_unit *u = gm_unit_find("atomics");
    assert_non_null(u);
    assert_ptr_equal(u->code_pass, &gm_atomics_code_pass);
    const gm_code_pass *p = &gm_atomics_code_pass;
    assert_ptr_equal(gm_units_code_pass(NULL, 0, NULL), p);
    const char *other[] = {"gatomics"};
    assert_null(gm_units_code_pass(other, 1, NULL));
    gm_counters_meta meta;
    memset(&meta, 0, sizeof meta);
    assert_ptr_equal(gm_units_code_pass(NULL, 0, &meta), p); /* no metric list: any */
    meta.n_metrics = 1;
    meta.metric_rows[0] = gm_metric_find("smsp__inst_executed_op_shared_atom_dot_cas.sum");
    assert_null(gm_units_code_pass(NULL, 0, &meta));
    meta.metric_rows[0] = gm_metric_find(p->when);
    assert_ptr_equal(gm_units_code_pass(NULL, 0, &meta), p);
    /* the result's names: the counters file's columns split_valid, split_add... */
    assert_string_equal(p->result_key, "split");
    assert_int_equal(gm_code_pass_values(p), 4);
    assert_string_equal(p->result_values[2], "popc_inc");
    assert_ptr_equal(gm_units_file_pass(), p);
    assert_string_equal(p->option, "no-opcode-split");

    gm_counters_set set;
    gm_counters_set_init(&set);
    gm_launch_counters k;
    launch_with(&k, 5, 5, 0);
    assert_int_equal(gm_counters_set_push(&set, &k), GM_OK);
    gm_launch_counters_init(&k); /* listed without counters */
    assert_false(p->applies(&k));
    assert_int_equal(gm_counters_set_push(&set, &k), GM_OK);
    assert_true(p->from_counters(&set));
    assert_true(set.launches[0].pass.valid);
    assert_true(gm_atomics_split_of(&set.launches[0]).cas == 5 &&
                gm_atomics_split_of(&set.launches[0]).add == 0);
    assert_false(set.launches[1].pass.valid);
    launch_with(&k, 5, 4, 1);
    assert_true(p->needs_code(&k));
    assert_int_equal(gm_counters_set_push(&set, &k), GM_OK);
    set.launches[0].pass.valid = 0;
    assert_false(p->from_counters(&set));
    assert_false(set.launches[0].pass.valid); /* unchanged */
    /* from_code does not change the launch; gpuq stores the result */
    gm_kernel_code code = {10, GM_ATOMICS_MARK(GM_ATOMICS_OP_POPC_INC)};
    gm_pass_result r;
    const char *why = NULL;
    assert_true(p->from_code(&set.launches[2], &code, &r, &why));
    assert_false(set.launches[2].pass.valid);
    set.launches[2].pass = r;
    gm_atomics_split sp = gm_atomics_split_of(&set.launches[2]);
    assert_true(sp.valid && sp.popc_inc == 1 && sp.cas == 4);
    gm_counters_set_clear(&set);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_classify_opcode),
        cmocka_unit_test(test_scan_recorded_kernels),
        cmocka_unit_test(test_scan_calls_and_generic_atomics),
        cmocka_unit_test(test_split_of_recorded_launches),
        cmocka_unit_test(test_static_split_refuses),
        cmocka_unit_test(test_recorded_sass_run_split),
        cmocka_unit_test(test_merge_with_recorded_counters),
        cmocka_unit_test(test_metric_line_and_shared_atom_only),
        cmocka_unit_test(test_pass_row),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
