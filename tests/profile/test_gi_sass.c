/* Unit tests of the opcode split: disassembly parsing (nvdisasm and
 * cuobjdump text recorded on an H200), the sass pass file, and the join with
 * the counters of the first run.  Recorded data: tests/profile/data/README.md. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_files.h"

#include "host/host_sass.h"
#include "gpuq/counters.h"
#include "papers/atomics/atomics_model.h"

#define DATA GPUQ_SOURCE_DIR "/tests/profile/data/"

/* Known counts of atomics_app (tests/profile/atomics_app.cu): 256 blocks x
 * 8 warps x 2048 iterations per opcode and launch. */
#define PER_LAUNCH 4194304.0

static void test_classify_opcode(void **state)
{
    (void)state;
    assert_int_equal(gi_classify_opcode("ATOMS.ADD"), GI_OP_ADD);
    assert_int_equal(gi_classify_opcode("ATOMS.ADD.32"), GI_OP_ADD);
    assert_int_equal(gi_classify_opcode("ATOMS.POPC.INC.32"), GI_OP_POPC_INC);
    assert_int_equal(gi_classify_opcode("ATOMS.POPC.INC"), GI_OP_POPC_INC);
    assert_int_equal(gi_classify_opcode("ATOMS.CAS"), GI_OP_CAS);
    assert_int_equal(gi_classify_opcode("ATOMS.CAS.64"), GI_OP_CAS);
    assert_int_equal(gi_classify_opcode("ATOMS.CAST.SPIN"), GI_OP_CAS);
    assert_int_equal(gi_classify_opcode("ATOMS.ADD.64"), GI_OP_OTHER);
    assert_int_equal(gi_classify_opcode("ATOMS.ADD.F32.FTZ.RN"), GI_OP_OTHER);
    assert_int_equal(gi_classify_opcode("ATOMS.EXCH"), GI_OP_OTHER);
    assert_int_equal(gi_classify_opcode("ATOMS.MIN.S32"), GI_OP_OTHER);
    assert_int_equal(gi_classify_opcode("ATOMS.POPC.DEC.32"), GI_OP_OTHER);
    assert_int_equal(gi_classify_opcode("ATOMS"), GI_OP_OTHER);
    assert_int_equal(gi_classify_opcode("ATOMSX.ADD"), GI_OP_NOT_ATOMS);
    assert_int_equal(gi_classify_opcode("ATOM.E.ADD.STRONG.GPU"), GI_OP_NOT_ATOMS);
    assert_int_equal(gi_classify_opcode("ATOMG.E.ADD.STRONG.GPU"), GI_OP_NOT_ATOMS);
    assert_int_equal(gi_classify_opcode("REDG.E.ADD.STRONG.GPU"), GI_OP_NOT_ATOMS);
    assert_int_equal(gi_classify_opcode("LDS"), GI_OP_NOT_ATOMS);
    assert_int_equal(gi_classify_opcode(NULL), GI_OP_NOT_ATOMS);
}

static void test_parse_instruction_lines(void **state)
{
    (void)state;
    uint32_t off = 0;
    char op[48];
    /* nvdisasm */
    assert_int_equal(gi_sass_parse_instruction(
                         "        /*01a0*/                   ATOMS.ADD R4, [R0], R11 ;", &off, op,
                         sizeof op),
                     1);
    assert_int_equal(off, 0x1a0);
    assert_string_equal(op, "ATOMS.ADD");
    /* cuobjdump -sass: the encoding follows in a second comment */
    assert_int_equal(gi_sass_parse_instruction("        /*0130*/                   ATOMS.POPC.INC.32 "
                                               "RZ, [R4+URZ] ;                           /* "
                                               "0x0000000004ff7f8c */",
                                               &off, op, sizeof op),
                     1);
    assert_int_equal(off, 0x130);
    assert_string_equal(op, "ATOMS.POPC.INC.32");
    /* guard predicates are not part of the opcode */
    assert_int_equal(gi_sass_parse_instruction("        /*00a0*/              @!P0 STS [R0], RZ ;",
                                               &off, op, sizeof op),
                     1);
    assert_string_equal(op, "STS");
    assert_int_equal(gi_sass_parse_instruction("\t/*0170*/  @P0 EXIT ;", &off, op, sizeof op), 1);
    assert_int_equal(off, 0x170);
    assert_string_equal(op, "EXIT");
    assert_int_equal(gi_sass_parse_instruction("/*0200*/ NOP;", &off, op, sizeof op), 1);
    assert_string_equal(op, "NOP");
    /* dual-issue braces of older architectures */
    assert_int_equal(gi_sass_parse_instruction("        /*0008*/   {  ATOMS.CAS R2, [R5], R2, R3 ;",
                                               &off, op, sizeof op),
                     1);
    assert_string_equal(op, "ATOMS.CAS");
    /* not instructions */
    static const char *const not_inst[] = {
        "                                                                             /* "
        "0x000fe20000000800 */",
        ".L_x_1:",
        "\t\tFunction : _Z10k_add_samePKjPji",
        "        .global         _Z10k_in_graphPKjPji",
        "",
        "/*zz*/ ATOMS.ADD R1, [R2], R3 ;",
        "/*0010*/ ;",
    };
    for (size_t i = 0; i < sizeof not_inst / sizeof not_inst[0]; i++)
        assert_int_equal(gi_sass_parse_instruction(not_inst[i], &off, op, sizeof op), 0);
    /* an opcode longer than the buffer is refused, not cut */
    char tiny[6];
    assert_int_equal(gi_sass_parse_instruction("/*0000*/ ATOMS.ADD R1 ;", &off, tiny, sizeof tiny),
                     0);
}

static void test_parse_function_lines(void **state)
{
    (void)state;
    char name[128];
    assert_int_equal(gi_sass_parse_function("\t\tFunction : _Z10k_add_samePKjPji", name, sizeof name),
                     1);
    assert_string_equal(name, "_Z10k_add_samePKjPji");
    assert_int_equal(gi_sass_parse_function("\t.section\t.text._Z7k_mixedPKjS0_Pji,\"ax\",@progbits",
                                            name, sizeof name),
                     1);
    assert_string_equal(name, "_Z7k_mixedPKjS0_Pji");
    assert_int_equal(gi_sass_parse_function(".text._Z10k_popc_incPKjPji:", name, sizeof name), 1);
    assert_string_equal(name, "_Z10k_popc_incPKjPji");
    assert_int_equal(gi_sass_parse_function("//--------------------- .text._Z10k_in_graphPKjPji "
                                            "--------------------------",
                                            name, sizeof name),
                     0);
    assert_int_equal(gi_sass_parse_function("\t.section\t.nv.info,\"\",@\"SHT_CUDA_INFO\"", name,
                                            sizeof name),
                     0);
    assert_int_equal(gi_sass_parse_function("_Z10k_in_graphPKjPji:", name, sizeof name), 0);
    assert_int_equal(gi_sass_parse_function(".text.x", name, sizeof name), 0);
}

/* The ATOMS of atomics_app as nvcc 13.0 emitted them for sm_90. */
static const struct {
    const char *function;
    uint32_t offset;
    const char *opcode;
} app_atoms[] = {
    {"_Z10k_add_samePKjPji", 0x1a0, "ATOMS.ADD"},
    {"_Z10k_popc_incPKjPji", 0x130, "ATOMS.POPC.INC.32"},
    {"_Z14k_cas_distinctPKjPji", 0x1b0, "ATOMS.CAS"},
    {"_Z7k_mixedPKjS0_Pji", 0x300, "ATOMS.ADD"},
    {"_Z7k_mixedPKjS0_Pji", 0x320, "ATOMS.CAS"},
    {"_Z7k_mixedPKjS0_Pji", 0x340, "ATOMS.POPC.INC.32"},
    {"_Z10k_in_graphPKjPji", 0x130, "ATOMS.POPC.INC.32"},
};

static void check_recorded_disasm(const char *file)
{
    char *text = test_read_file(file);
    gi_disasm d;
    gm_error err = {{0}};
    assert_int_equal(gi_disasm_parse(text, &d, &err), GM_OK);
    free(text);
    assert_int_equal(d.n_functions, 6);
    size_t atoms = 0;
    for (size_t i = 0; i < d.count; i++)
        atoms += gi_classify_opcode(d.inst[i].opcode) != GI_OP_NOT_ATOMS;
    assert_int_equal(atoms, sizeof app_atoms / sizeof app_atoms[0]);
    for (size_t i = 0; i < sizeof app_atoms / sizeof app_atoms[0]; i++) {
        const char *op = gi_disasm_lookup(&d, app_atoms[i].function, app_atoms[i].offset);
        assert_non_null(op);
        assert_string_equal(op, app_atoms[i].opcode);
    }
    assert_string_equal(gi_disasm_lookup(&d, "_Z10k_add_samePKjPji", 0), "LDC");
    assert_null(gi_disasm_lookup(&d, "_Z10k_add_samePKjPji", 0x1a8)); /* not an offset */
    assert_null(gi_disasm_lookup(&d, "_Z9k_missingv", 0x1a0));
    gi_disasm_free(&d);
}

static void test_recorded_nvdisasm(void **state)
{
    (void)state;
    check_recorded_disasm(DATA "gh100_atomics_app.nvdisasm.txt");
}

static void test_recorded_cuobjdump(void **state)
{
    (void)state;
    check_recorded_disasm(DATA "gh100_atomics_app.cuobjdump.txt");
}

static gi_disasm load_disasm(void)
{
    char *text = test_read_file(DATA "gh100_atomics_app.nvdisasm.txt");
    gi_disasm d;
    gm_error err = {{0}};
    assert_int_equal(gi_disasm_parse(text, &d, &err), GM_OK);
    free(text);
    return d;
}

static void test_recorded_sass_run_split(void **state)
{
    (void)state;
    gi_sass_run run;
    gm_error err = {{0}};
    assert_int_equal(gi_sass_run_load(DATA "gh100_atomics_app.sass.csv", &run, &err), GM_OK);
    assert_int_equal(run.n_cubins, 1);
    assert_int_equal(run.n_launches, 10);
    gi_disasm d = load_disasm();
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
        gm_opcode_split split;
        double n;
        size_t unresolved = 99;
        gi_sass_launch_split(&run, &d, l, &split, &n, &unresolved);
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
    gi_disasm empty;
    memset(&empty, 0, sizeof empty);
    gm_opcode_split split;
    double n;
    size_t unresolved = 0;
    gi_sass_launch_split(&run, &empty, 1, &split, &n, &unresolved);
    assert_false(split.valid);
    assert_true(unresolved > 0);
    gi_disasm_free(&d);
    gi_sass_run_free(&run);
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
    gi_sass_run run;
    assert_int_equal(gi_sass_run_load(DATA "gh100_atomics_app.sass.csv", &run, &err), GM_OK);
    gi_disasm d = load_disasm();
    gi_merge_stats stats;
    assert_int_equal(gi_sass_merge(&set, &run, &d, &stats, &err), GM_OK);
    assert_int_equal(stats.joined, 10);
    assert_int_equal(stats.missing, 0);
    assert_int_equal(stats.extra, 0);
    assert_int_equal(stats.unresolved, 0);
    for (size_t i = 0; i < set.count; i++) {
        const gm_launch_counters *k = &set.launches[i];
        assert_true(k->split.valid);
        assert_true(k->split.cas == k->metric[GM_M_N_CAS]);
        assert_true(k->split.add + k->split.popc_inc + k->split.other == k->metric[GM_M_N_ALU]);
        assert_true(k->metric[GM_M_N_ATOM_SASS] == k->metric[GM_M_N_ATOM]);
    }
    gi_disasm_free(&d);
    gi_sass_run_free(&run);
    gm_counters_set_clear(&set);
}

static gm_launch_counters make_launch(uint64_t id, const char *mangled)
{
    gm_launch_counters k;
    gm_launch_counters_init(&k);
    assert_int_equal(gm_launch_counters_set_names(&k, mangled, mangled), GM_OK);
    k.launch_id = id;
    k.metric[GM_M_N_ATOM] = k.metric[GM_M_N_CAS] = k.metric[GM_M_N_ALU] = 0; /* measured */
    return k;
}

/* Launches pair by name and ordinal; a launch missing from either run, or
 * cut short (no end line), is counted and left without a split. */
static void test_merge_by_name_and_ordinal(void **state)
{
    (void)state;
    static const char text[] = GI_SASS_FILE_MAGIC "\n"
                                                  "cubin,abc,/nowhere/x.cubin\n"
                                                  "launch,0,0,_Z1bv\n"
                                                  "inst,0,abc,16,10,_Z1bv\n"
                                                  "end,0,1\n"
                                                  "launch,1,0,_Z1av\n"
                                                  "inst,1,abc,0,7,_Z1av\n"
                                                  "end,1,1\n"
                                                  "launch,2,0,_Z1cv\n"
                                                  "end,2,0\n"
                                                  "launch,3,0,_Z1av\n"
                                                  "inst,3,abc,0,5,_Z1av\n";
    gi_sass_run run;
    gm_error err = {{0}};
    assert_int_equal(gi_sass_run_parse(text, "test", &run, &err), GM_OK);
    assert_int_equal(run.n_launches, 4);
    assert_false(run.launches[3].complete);

    static const char dis_text[] = "\t\tFunction : _Z1av\n"
                                   "        /*0000*/   ATOMS.POPC.INC.32 RZ, [R4+URZ] ;\n"
                                   "\t\tFunction : _Z1bv\n"
                                   "        /*0010*/   ATOMS.CAS R2, [R5], R2, R3 ;\n";
    gi_disasm d;
    assert_int_equal(gi_disasm_parse(dis_text, &d, &err), GM_OK);

    gm_counters_set set;
    gm_counters_set_init(&set);
    /* first run: a, a, b (ids out of name order on purpose) */
    const char *names[] = {"_Z1av", "_Z1bv", "_Z1av"};
    for (int i = 0; i < 3; i++) {
        gm_launch_counters k = make_launch((uint64_t)(10 + i), names[i]);
        assert_int_equal(gm_counters_set_push(&set, &k), GM_OK);
    }
    /* and a row listed without counters (an NCCL kernel neither run
     * measured): not in the second run, and not counted missing */
    gm_launch_counters listed;
    gm_launch_counters_init(&listed);
    assert_int_equal(gm_launch_counters_set_names(&listed, "_Z1dv", "_Z1dv"), GM_OK);
    listed.launch_id = 13;
    assert_true(gm_launch_counters_unmeasured(&listed));
    assert_int_equal(gm_counters_set_push(&set, &listed), GM_OK);
    assert_false(gm_launch_counters_unmeasured(&set.launches[0]));
    gi_merge_stats stats;
    assert_int_equal(gi_sass_merge(&set, &run, &d, &stats, &err), GM_OK);
    assert_int_equal(stats.joined, 2);   /* first a, and b */
    assert_int_equal(stats.missing, 1);  /* the second a: its sass launch has no end line */
    assert_int_equal(stats.extra, 1);    /* c never ran in the first run */
    assert_true(set.launches[0].split.valid);
    assert_true(set.launches[0].split.popc_inc == 7);
    assert_true(set.launches[0].metric[GM_M_N_ATOM_SASS] == 7);
    assert_true(set.launches[1].split.valid);
    assert_true(set.launches[1].split.cas == 10);
    assert_false(set.launches[2].split.valid);
    assert_true(isnan(set.launches[2].metric[GM_M_N_ATOM_SASS]));
    assert_false(set.launches[3].split.valid);
    gm_counters_set_clear(&set);
    gi_disasm_free(&d);
    gi_sass_run_free(&run);
}

/* The metric line says what the counts are of; with the shared-atomics
 * metric, an executed instruction that is not an ATOMS is a shared atomic
 * all the same (a generic ATOM) and counts as "other". */
static void test_metric_line_and_shared_atom_only(void **state)
{
    (void)state;
    static const char text[] = GI_SASS_FILE_MAGIC "\n"
                                                  "metric," GI_SASS_DEFAULT_METRIC "\n"
                                                  "cubin,abc,/nowhere/x.cubin\n"
                                                  "launch,0,0,_Z1av\n"
                                                  "inst,0,abc,0,6,_Z1av\n"
                                                  "inst,0,abc,16,4,_Z1av\n"
                                                  "end,0,2\n";
    static const char dis_text[] = "\t\tFunction : _Z1av\n"
                                   "        /*0000*/   ATOMS.ADD R4, [R0], R11 ;\n"
                                   "        /*0010*/   ATOM.E.ADD.STRONG.GPU PT, R2, [R2.64], R5 ;\n";
    gi_sass_run run;
    gm_error err = {{0}};
    assert_int_equal(gi_sass_run_parse(text, "t", &run, &err), GM_OK);
    assert_string_equal(run.metric, GI_SASS_DEFAULT_METRIC);
    assert_true(run.shared_atom_only);
    gi_disasm d;
    assert_int_equal(gi_disasm_parse(dis_text, &d, &err), GM_OK);
    gm_opcode_split split;
    double n;
    size_t unresolved;
    gi_sass_launch_split(&run, &d, 0, &split, &n, &unresolved);
    assert_true(split.valid);
    assert_true(split.add == 6 && split.other == 4 && n == 10);
    gi_sass_run_free(&run);

    /* Without a metric line: every instruction was counted, and a generic
     * ATOM is not a shared atomic. */
    static const char all[] = GI_SASS_FILE_MAGIC "\n"
                                                 "cubin,abc,/nowhere/x.cubin\n"
                                                 "launch,0,0,_Z1av\n"
                                                 "inst,0,abc,0,6,_Z1av\n"
                                                 "inst,0,abc,16,4,_Z1av\n"
                                                 "end,0,2\n";
    assert_int_equal(gi_sass_run_parse(all, "t", &run, &err), GM_OK);
    assert_string_equal(run.metric, GI_SASS_ALL_METRIC);
    assert_false(run.shared_atom_only);
    gi_sass_launch_split(&run, &d, 0, &split, &n, &unresolved);
    assert_true(split.add == 6 && split.other == 0 && n == 6);
    gi_sass_run_free(&run);
    gi_disasm_free(&d);

    assert_int_equal(gi_sass_run_parse(GI_SASS_FILE_MAGIC "\nmetric,\n", "t", &run, &err),
                     GM_ERR_PARSE);
    assert_non_null(strstr(err.msg, "bad metric"));
}

static void test_sass_file_errors(void **state)
{
    (void)state;
    static const struct {
        const char *text, *want;
    } bad[] = {
        {"# something else\n", "not a gpuq sass pass file"},
        {"", "empty"},
        {GI_SASS_FILE_MAGIC "\ninst,0,abc,0,1,_Z1av\nlaunch,0,0,_Z1av\n", "line 2"},
        {GI_SASS_FILE_MAGIC "\nlaunch,0,0,_Z1av\ninst,0,abc,0,1,_Z1av\nend,0,2\n", "2 records"},
        {GI_SASS_FILE_MAGIC "\nlaunch,x,0,_Z1av\nend,0,0\n", "bad launch"},
        {GI_SASS_FILE_MAGIC "\ncubin,zz,/a\n", "bad cubin"},
        {GI_SASS_FILE_MAGIC "\nlaunch,0,0,_Z1av\ninst,0,abc,-4,1,_Z1av\n", "bad inst"},
        {GI_SASS_FILE_MAGIC "\nbogus,1\nlaunch,0,0,_Z1av\n", "unknown record"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gi_sass_run run;
        gm_error err = {{0}};
        assert_int_equal(gi_sass_run_parse(bad[i].text, "t", &run, &err), GM_ERR_PARSE);
        if (!strstr(err.msg, bad[i].want))
            fail_msg("case %zu: '%s' lacks '%s'", i, err.msg, bad[i].want);
    }
    /* A last line cut short by a crash is tolerated. */
    gi_sass_run run;
    gm_error err = {{0}};
    assert_int_equal(gi_sass_run_parse(GI_SASS_FILE_MAGIC "\nlaunch,0,0,_Z1av\nend,0,0\nlau", "t",
                                       &run, &err),
                     GM_OK);
    assert_int_equal(run.n_launches, 1);
    gi_sass_run_free(&run);
    assert_int_equal(gi_sass_run_load("/nonexistent/gpuq.sass", &run, &err), GM_ERR_IO);
}

/* gi_disassemble runs a tool and captures its stdout; a failing tool's
 * first stderr line ends up in the error. */
static void test_disassemble_runs_the_tool(void **state)
{
    (void)state;
    char dir[] = "/tmp/gpuq-test-disasm.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char tool[256], cubin[256];
    snprintf(tool, sizeof tool, "%s/nvdisasm", dir);
    snprintf(cubin, sizeof cubin, "%s/x.cubin", dir);
    FILE *f = fopen(tool, "w");
    assert_non_null(f);
    fprintf(f, "#!/bin/sh\n"
               "[ \"$1\" = -c ] || { echo \"bad option $1\" >&2; exit 3; }\n"
               "if [ \"$2\" = -fun ]; then echo \"$3\" > \"$4.fun\"; shift 2; fi\n"
               "[ -f \"$2\" ] || { echo \"no file $2\" >&2; exit 4; }\n"
               "i=0; while [ $i -lt 3000 ]; do echo \"        /*0000*/ NOP ;\"; i=$((i+1)); done\n"
               "echo '.text._Z1av:'\n"
               "echo '        /*0010*/   ATOMS.ADD R4, [R0], R11 ;'\n");
    fclose(f);
    chmod(tool, 0755);

    char *text = NULL;
    gm_error err = {{0}};
    assert_int_equal(gi_disassemble(tool, cubin, NULL, &text, &err), GM_ERR_IO);
    assert_non_null(strstr(err.msg, "no file"));
    assert_null(text);

    f = fopen(cubin, "w");
    assert_non_null(f);
    fclose(f);
    assert_int_equal(gi_disassemble(tool, cubin, NULL, &text, &err), GM_OK);
    assert_non_null(text);
    assert_true(strlen(text) > 3000 * 20); /* more than a pipe buffer: nothing lost */
    gi_disasm d;
    assert_int_equal(gi_disasm_parse(text, &d, &err), GM_OK);
    assert_string_equal(gi_disasm_lookup(&d, "_Z1av", 0x10), "ATOMS.ADD");
    gi_disasm_free(&d);
    free(text);

    /* A function list goes to -fun of the cuobjdump beside nvdisasm (names,
     * not indices); without a cuobjdump there, nvdisasm does the whole. */
    char fun_file[300], objdump[300];
    snprintf(fun_file, sizeof fun_file, "%s.fun", cubin);
    snprintf(objdump, sizeof objdump, "%s/cuobjdump", dir);
    assert_int_equal(gi_disassemble(tool, cubin, "_Z1av,_Z1bv", &text, &err), GM_OK);
    free(text);
    assert_int_equal(access(fun_file, F_OK), -1);
    f = fopen(objdump, "w");
    assert_non_null(f);
    fprintf(f, "#!/bin/sh\n"
               "[ \"$1 $2\" = \"-sass -fun\" ] || { echo \"bad options $1 $2\" >&2; exit 3; }\n"
               "echo \"$3\" > \"$4.fun\"\n"
               "printf '\\t\\tFunction : _Z1av\\n        /*0010*/   ATOMS.CAS R2, [R5], R2, R3 ;\\n'\n");
    fclose(f);
    chmod(objdump, 0755);
    assert_int_equal(gi_disassemble(tool, cubin, "_Z1av,_Z1bv", &text, &err), GM_OK);
    char *fun = test_read_file(fun_file);
    assert_string_equal(fun, "_Z1av,_Z1bv\n");
    free(fun);
    assert_non_null(strstr(text, "ATOMS.CAS"));
    free(text);
    unlink(fun_file);
    unlink(objdump);

    /* GPUQ_NVDISASM wins over every search path. */
    setenv("GPUQ_NVDISASM", tool, 1);
    char found[512];
    assert_int_equal(gi_find_disassembler(found, sizeof found, &err), GM_OK);
    assert_string_equal(found, tool);
    setenv("GPUQ_NVDISASM", cubin, 1); /* not executable */
    assert_int_equal(gi_find_disassembler(found, sizeof found, &err), GM_ERR_UNSUPPORTED);
    unsetenv("GPUQ_NVDISASM");

    unlink(tool);
    unlink(cubin);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_classify_opcode),
        cmocka_unit_test(test_parse_instruction_lines),
        cmocka_unit_test(test_parse_function_lines),
        cmocka_unit_test(test_recorded_nvdisasm),
        cmocka_unit_test(test_recorded_cuobjdump),
        cmocka_unit_test(test_recorded_sass_run_split),
        cmocka_unit_test(test_merge_with_recorded_counters),
        cmocka_unit_test(test_merge_by_name_and_ordinal),
        cmocka_unit_test(test_metric_line_and_shared_atom_only),
        cmocka_unit_test(test_sass_file_errors),
        cmocka_unit_test(test_disassemble_runs_the_tool),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
