/* Unit tests of what gpuq reads for a code pass (src/host/host_sass.c):
 * disassembly parsing (nvdisasm and cuobjdump text recorded on an H200), the
 * sass pass file, each launch's executed opcodes, and the join with the
 * counters of the first run, with a pass of the test's own (the opcode
 * split's own tests: tests/papers/atomics/test_atomics_split.c).  Recorded
 * data: tests/profile/data/README.md. */
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

#define DATA GPUQ_SOURCE_DIR "/tests/profile/data/"

/* Known counts of atomics_app (tests/profile/atomics_app.cu): 256 blocks x
 * 8 warps x 2048 iterations per opcode and launch. */
#define PER_LAUNCH 4194304.0

/* A code pass of the test's own: what the join handed each launch, by
 * launch_id; a launch is valid when every executed opcode was found. */
#define MAX_SEEN 16
static struct {
    int calls;
    size_t n, unresolved;
    double executions;
    char first[48];
} seen[MAX_SEEN];

static int applies(const gm_launch_counters *k)
{
    return !isnan(k->metric[0]); /* the test's rows "listed without counters": NaN */
}

static int from_counts(gm_launch_counters *k, const gm_inst_count *counts, size_t n,
                       size_t unresolved, const char *sass_metric)
{
    (void)sass_metric;
    assert_true(k->launch_id < MAX_SEEN);
    seen[k->launch_id].calls++;
    seen[k->launch_id].n = n;
    seen[k->launch_id].unresolved = unresolved;
    seen[k->launch_id].executions = 0;
    for (size_t i = 0; i < n; i++)
        seen[k->launch_id].executions += counts[i].executions;
    snprintf(seen[k->launch_id].first, sizeof seen[0].first, "%s", n ? counts[0].opcode : "");
    return unresolved == 0;
}

static const gm_code_pass test_pass = {.name = "test", .applies = applies,
                                       .from_counts = from_counts};

static void test_parse_instruction_lines(void **state)
{
    (void)state;
    uint32_t off = 0;
    char op[48];
    /* nvdisasm */
    assert_int_equal(host_sass_parse_instruction(
                         "        /*01a0*/                   ATOMS.ADD R4, [R0], R11 ;", &off, op,
                         sizeof op),
                     1);
    assert_int_equal(off, 0x1a0);
    assert_string_equal(op, "ATOMS.ADD");
    /* cuobjdump -sass: the encoding follows in a second comment */
    assert_int_equal(host_sass_parse_instruction("        /*0130*/                   ATOMS.POPC.INC.32 "
                                               "RZ, [R4+URZ] ;                           /* "
                                               "0x0000000004ff7f8c */",
                                               &off, op, sizeof op),
                     1);
    assert_int_equal(off, 0x130);
    assert_string_equal(op, "ATOMS.POPC.INC.32");
    /* guard predicates are not part of the opcode */
    assert_int_equal(host_sass_parse_instruction("        /*00a0*/              @!P0 STS [R0], RZ ;",
                                               &off, op, sizeof op),
                     1);
    assert_string_equal(op, "STS");
    assert_int_equal(host_sass_parse_instruction("\t/*0170*/  @P0 EXIT ;", &off, op, sizeof op), 1);
    assert_int_equal(off, 0x170);
    assert_string_equal(op, "EXIT");
    assert_int_equal(host_sass_parse_instruction("/*0200*/ NOP;", &off, op, sizeof op), 1);
    assert_string_equal(op, "NOP");
    /* dual-issue braces of older architectures */
    assert_int_equal(host_sass_parse_instruction("        /*0008*/   {  ATOMS.CAS R2, [R5], R2, R3 ;",
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
        assert_int_equal(host_sass_parse_instruction(not_inst[i], &off, op, sizeof op), 0);
    /* an opcode longer than the buffer is refused, not cut */
    char tiny[6];
    assert_int_equal(host_sass_parse_instruction("/*0000*/ ATOMS.ADD R1 ;", &off, tiny, sizeof tiny),
                     0);
}

static void test_parse_function_lines(void **state)
{
    (void)state;
    char name[128];
    assert_int_equal(host_sass_parse_function("\t\tFunction : _Z10k_add_samePKjPji", name, sizeof name),
                     1);
    assert_string_equal(name, "_Z10k_add_samePKjPji");
    assert_int_equal(host_sass_parse_function("\t.section\t.text._Z7k_mixedPKjS0_Pji,\"ax\",@progbits",
                                            name, sizeof name),
                     1);
    assert_string_equal(name, "_Z7k_mixedPKjS0_Pji");
    assert_int_equal(host_sass_parse_function(".text._Z10k_popc_incPKjPji:", name, sizeof name), 1);
    assert_string_equal(name, "_Z10k_popc_incPKjPji");
    assert_int_equal(host_sass_parse_function("//--------------------- .text._Z10k_in_graphPKjPji "
                                            "--------------------------",
                                            name, sizeof name),
                     0);
    assert_int_equal(host_sass_parse_function("\t.section\t.nv.info,\"\",@\"SHT_CUDA_INFO\"", name,
                                            sizeof name),
                     0);
    assert_int_equal(host_sass_parse_function("_Z10k_in_graphPKjPji:", name, sizeof name), 0);
    assert_int_equal(host_sass_parse_function(".text.x", name, sizeof name), 0);
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
    host_disasm d;
    gm_error err = {{0}};
    assert_int_equal(host_disasm_parse(text, &d, &err), GM_OK);
    free(text);
    assert_int_equal(d.n_functions, 6);
    size_t atoms = 0;
    for (size_t i = 0; i < d.count; i++)
        atoms += strncmp(d.inst[i].opcode, "ATOMS", 5) == 0;
    assert_int_equal(atoms, sizeof app_atoms / sizeof app_atoms[0]);
    for (size_t i = 0; i < sizeof app_atoms / sizeof app_atoms[0]; i++) {
        const char *op = host_disasm_lookup(&d, app_atoms[i].function, app_atoms[i].offset);
        assert_non_null(op);
        assert_string_equal(op, app_atoms[i].opcode);
    }
    assert_string_equal(host_disasm_lookup(&d, "_Z10k_add_samePKjPji", 0), "LDC");
    assert_null(host_disasm_lookup(&d, "_Z10k_add_samePKjPji", 0x1a8)); /* not an offset */
    assert_null(host_disasm_lookup(&d, "_Z9k_missingv", 0x1a0));
    host_disasm_free(&d);
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

/* Every executed instruction of the recorded run is in the recorded
 * disassembly; without a disassembly none is. */
static void test_recorded_launch_counts(void **state)
{
    (void)state;
    host_sass_run run;
    gm_error err = {{0}};
    assert_int_equal(host_sass_run_load(DATA "gh100_atomics_app.sass.csv", &run, &err), GM_OK);
    assert_int_equal(run.n_cubins, 1);
    assert_int_equal(run.n_launches, 10);
    assert_string_equal(run.metric, GI_SASS_ALL_METRIC); /* no metric line */
    char *text = test_read_file(DATA "gh100_atomics_app.nvdisasm.txt");
    host_disasm d;
    assert_int_equal(host_disasm_parse(text, &d, &err), GM_OK);
    free(text);
    size_t atoms_launches = 0;
    for (size_t l = 0; l < run.n_launches; l++) {
        assert_true(run.launches[l].complete);
        gm_inst_count *counts = NULL;
        size_t n = 0, unresolved = 99;
        assert_int_equal(host_sass_launch_counts(&run, &d, l, &counts, &n, &unresolved, &err),
                         GM_OK);
        assert_int_equal(unresolved, 0);
        assert_true(n > 0 && n <= run.launches[l].n);
        double atoms = 0;
        for (size_t i = 0; i < n; i++)
            if (strncmp(counts[i].opcode, "ATOMS", 5) == 0)
                atoms += counts[i].executions;
        /* one opcode per kernel but k_no_atomics, three in k_mixed */
        assert_true(atoms == 0 || atoms == PER_LAUNCH || atoms == 3 * PER_LAUNCH);
        atoms_launches += atoms > 0;
        free(counts);
    }
    assert_true(atoms_launches >= 4);
    host_disasm empty;
    memset(&empty, 0, sizeof empty);
    gm_inst_count *counts = NULL;
    size_t n = 0, unresolved = 0;
    assert_int_equal(host_sass_launch_counts(&run, &empty, 1, &counts, &n, &unresolved, &err),
                     GM_OK);
    assert_int_equal(n, 0);
    assert_true(unresolved > 0);
    free(counts);
    host_disasm_free(&d);
    host_sass_run_free(&run);
}

static gm_launch_counters make_launch(uint64_t id, const char *mangled)
{
    gm_launch_counters k;
    gm_launch_counters_init(&k);
    assert_int_equal(gm_launch_counters_set_names(&k, mangled, mangled), GM_OK);
    k.launch_id = id;
    k.metric[0] = 0; /* measured (test_pass.applies) */
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
                                                  "launch,4,0,_Z1ev\n"
                                                  "inst,4,abc,0,3,_Z1ev\n"
                                                  "inst,4,abc,16,0,_Z1ev\n"
                                                  "end,4,2\n"
                                                  "launch,3,0,_Z1av\n"
                                                  "inst,3,abc,0,5,_Z1av\n";
    host_sass_run run;
    gm_error err = {{0}};
    assert_int_equal(host_sass_run_parse(text, "test", &run, &err), GM_OK);
    assert_int_equal(run.n_launches, 5);
    assert_false(run.launches[4].complete);

    static const char dis_text[] = "\t\tFunction : _Z1av\n"
                                   "        /*0000*/   ATOMS.POPC.INC.32 RZ, [R4+URZ] ;\n"
                                   "\t\tFunction : _Z1bv\n"
                                   "        /*0010*/   ATOMS.CAS R2, [R5], R2, R3 ;\n";
    host_disasm d;
    assert_int_equal(host_disasm_parse(dis_text, &d, &err), GM_OK);

    gm_counters_set set;
    gm_counters_set_init(&set);
    /* first run: a, b, a (ids out of name order on purpose), and e, whose
     * code is in no disassembly */
    const char *names[] = {"_Z1av", "_Z1bv", "_Z1av", "_Z1ev"};
    for (int i = 0; i < 4; i++) {
        gm_launch_counters k = make_launch((uint64_t)(i < 3 ? 10 + i : 14), names[i]);
        assert_int_equal(gm_counters_set_push(&set, &k), GM_OK);
    }
    /* and a row listed without counters (an NCCL kernel neither run
     * measured): not in the second run, and not counted missing */
    gm_launch_counters listed;
    gm_launch_counters_init(&listed);
    assert_int_equal(gm_launch_counters_set_names(&listed, "_Z1dv", "_Z1dv"), GM_OK);
    listed.launch_id = 13;
    assert_int_equal(gm_counters_set_push(&set, &listed), GM_OK);
    memset(seen, 0, sizeof seen);
    host_merge_stats stats;
    assert_int_equal(host_sass_merge(&set, &run, &d, &test_pass, &stats, &err), GM_OK);
    assert_int_equal(stats.joined, 2);     /* first a, and b */
    assert_int_equal(stats.unresolved, 1); /* e */
    assert_int_equal(stats.missing, 1);    /* the second a: its sass launch has no end line */
    assert_int_equal(stats.extra, 1);      /* c never ran in the first run */
    assert_int_equal(seen[10].calls, 1);
    assert_int_equal(seen[10].n, 1);
    assert_true(seen[10].executions == 7);
    assert_string_equal(seen[10].first, "ATOMS.POPC.INC.32");
    assert_int_equal(seen[11].calls, 1);
    assert_true(seen[11].executions == 10);
    assert_string_equal(seen[11].first, "ATOMS.CAS");
    assert_int_equal(seen[12].calls, 0);
    assert_int_equal(seen[13].calls, 0);
    assert_int_equal(seen[14].calls, 1); /* its record with 0 executions is no count */
    assert_int_equal(seen[14].n, 0);
    assert_int_equal(seen[14].unresolved, 1);
    assert_string_equal(stats.first_unresolved, "_Z1ev+0x0 (cubin crc abc)");
    gm_counters_set_clear(&set);
    host_disasm_free(&d);
    host_sass_run_free(&run);
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
        {GI_SASS_FILE_MAGIC "\nmetric,\n", "bad metric"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        host_sass_run run;
        gm_error err = {{0}};
        assert_int_equal(host_sass_run_parse(bad[i].text, "t", &run, &err), GM_ERR_PARSE);
        if (!strstr(err.msg, bad[i].want))
            fail_msg("case %zu: '%s' lacks '%s'", i, err.msg, bad[i].want);
    }
    /* A last line cut short by a crash is tolerated. */
    host_sass_run run;
    gm_error err = {{0}};
    assert_int_equal(host_sass_run_parse(GI_SASS_FILE_MAGIC "\nlaunch,0,0,_Z1av\nend,0,0\nlau", "t",
                                       &run, &err),
                     GM_OK);
    assert_int_equal(run.n_launches, 1);
    host_sass_run_free(&run);
    /* The metric line says what the counts are of. */
    assert_int_equal(host_sass_run_parse(GI_SASS_FILE_MAGIC "\nmetric,smsp__x\n", "t", &run, &err),
                     GM_OK);
    assert_string_equal(run.metric, "smsp__x");
    host_sass_run_free(&run);
    assert_int_equal(host_sass_run_load("/nonexistent/gpuq.sass", &run, &err), GM_ERR_IO);
}

/* host_disassemble runs a tool and captures its stdout; a failing tool's
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
    assert_int_equal(host_disassemble(tool, cubin, NULL, &text, &err), GM_ERR_IO);
    assert_non_null(strstr(err.msg, "no file"));
    assert_null(text);

    f = fopen(cubin, "w");
    assert_non_null(f);
    fclose(f);
    assert_int_equal(host_disassemble(tool, cubin, NULL, &text, &err), GM_OK);
    assert_non_null(text);
    assert_true(strlen(text) > 3000 * 20); /* more than a pipe buffer: nothing lost */
    host_disasm d;
    assert_int_equal(host_disasm_parse(text, &d, &err), GM_OK);
    assert_string_equal(host_disasm_lookup(&d, "_Z1av", 0x10), "ATOMS.ADD");
    host_disasm_free(&d);
    free(text);

    /* A function list goes to -fun of the cuobjdump beside nvdisasm (names,
     * not indices); without a cuobjdump there, nvdisasm does the whole. */
    char fun_file[300], objdump[300];
    snprintf(fun_file, sizeof fun_file, "%s.fun", cubin);
    snprintf(objdump, sizeof objdump, "%s/cuobjdump", dir);
    assert_int_equal(host_disassemble(tool, cubin, "_Z1av,_Z1bv", &text, &err), GM_OK);
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
    assert_int_equal(host_disassemble(tool, cubin, "_Z1av,_Z1bv", &text, &err), GM_OK);
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
    assert_int_equal(host_find_disassembler(found, sizeof found, &err), GM_OK);
    assert_string_equal(found, tool);
    setenv("GPUQ_NVDISASM", cubin, 1); /* not executable */
    assert_int_equal(host_find_disassembler(found, sizeof found, &err), GM_ERR_UNSUPPORTED);
    unsetenv("GPUQ_NVDISASM");

    unlink(tool);
    unlink(cubin);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_instruction_lines),
        cmocka_unit_test(test_parse_function_lines),
        cmocka_unit_test(test_recorded_nvdisasm),
        cmocka_unit_test(test_recorded_cuobjdump),
        cmocka_unit_test(test_recorded_launch_counts),
        cmocka_unit_test(test_merge_by_name_and_ordinal),
        cmocka_unit_test(test_sass_file_errors),
        cmocka_unit_test(test_disassemble_runs_the_tool),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
