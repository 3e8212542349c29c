/* Unit tests of the opcode split from the disassembly alone (host_sass.h):
 * which ATOMS classes a kernel's code holds (recorded cuobjdump text of
 * atomics_app, H200), when the hardware counters then settle the split
 * (checked against the recorded counters, whose split is known by
 * construction), finding a kernel's code in a cubin, and the raw
 * disassembly command.  Recorded data: tests/profile/data/README.md. */
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
#define PER_LAUNCH 4194304.0 /* 256 blocks x 8 warps x 2048 iterations */

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

static void scan_function(const char *listing, const char *mangled, gi_function_ops *ops)
{
    char *text = function_text(listing, mangled);
    gi_function_ops_scan(text, ops);
    free(text);
}

#define BIT(c) (1u << (c))

static void test_scan_recorded_kernels(void **state)
{
    (void)state;
    char *listing = test_read_file(DATA "gh100_atomics_app.cuobjdump.txt");
    static const struct {
        const char *mangled;
        unsigned classes;
    } kernels[] = {
        {"_Z10k_add_samePKjPji", BIT(GI_OP_ADD)},
        {"_Z10k_popc_incPKjPji", BIT(GI_OP_POPC_INC)},
        {"_Z14k_cas_distinctPKjPji", BIT(GI_OP_CAS)},
        {"_Z7k_mixedPKjS0_Pji", BIT(GI_OP_ADD) | BIT(GI_OP_CAS) | BIT(GI_OP_POPC_INC)},
        {"_Z12k_no_atomicsPKjPji", 0},
        {"_Z10k_in_graphPKjPji", BIT(GI_OP_POPC_INC)},
    };
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++) {
        gi_function_ops ops;
        scan_function(listing, kernels[i].mangled, &ops);
        assert_true(ops.instructions > 10);
        assert_int_equal(ops.classes, kernels[i].classes);
        assert_int_equal(ops.calls, 0);
        assert_int_equal(ops.generic_atomics, 0);
    }
    free(listing);
}

static void test_scan_calls_and_generic_atomics(void **state)
{
    (void)state;
    gi_function_ops ops;
    gi_function_ops_scan("        /*0000*/      ATOMS.ADD R4, [R0], R11 ;\n"
                         "        /*0010*/      CALL.REL.NOINC `(_Z3foov) ;\n"
                         "        /*0020*/ @P0  ATOM.E.ADD.STRONG.GPU PT, R2, [R2.64], R5 ;\n"
                         "        /*0030*/      RED.E.ADD.STRONG.GPU [R2.64], R5 ;\n"
                         "        /*0040*/      REDG.E.ADD.STRONG.GPU desc[UR4][R2.64], R5 ;\n"
                         "        /*0050*/      ATOMG.E.ADD.STRONG.GPU PT, R3, desc[UR4][R2.64], R5 ;\n"
                         "        /*0060*/      EXIT ;\n",
                         &ops);
    assert_int_equal(ops.instructions, 7);
    assert_int_equal(ops.classes, BIT(GI_OP_ADD));
    assert_int_equal(ops.calls, 1);
    assert_int_equal(ops.generic_atomics, 2); /* ATOM and RED; ATOMG/REDG are global */
    gi_function_ops more;
    gi_function_ops_scan("        /*0000*/      ATOMS.POPC.INC.32 RZ, [R4+URZ] ;\n", &more);
    gi_function_ops_merge(&ops, &more);
    assert_int_equal(ops.classes, BIT(GI_OP_ADD) | BIT(GI_OP_POPC_INC));
    assert_int_equal(ops.instructions, 8);
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
        gi_function_ops ops;
        scan_function(listing, k->mangled, &ops);
        gm_opcode_split split;
        memset(&split, 0, sizeof split);
        const char *why = NULL;
        int ok = gi_static_split(k, &ops, &split, &why);
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
    k->metric[GM_M_N_ATOM] = n;
    k->metric[GM_M_N_CAS] = cas;
    k->metric[GM_M_N_ALU] = alu;
}

static void test_static_split_refuses(void **state)
{
    (void)state;
    gm_launch_counters k;
    gm_opcode_split split;
    const char *why = NULL;
    gi_function_ops ops;
    memset(&ops, 0, sizeof ops);
    ops.instructions = 20;
    ops.classes = BIT(GI_OP_ADD) | BIT(GI_OP_CAS);

    /* One non-CAS class next to CAS: settled, CAS from the hardware. */
    launch_with(&k, 30, 10, 20);
    assert_true(gi_static_split(&k, &ops, &split, &why));
    assert_true(split.valid && split.add == 20 && split.cas == 10 && split.popc_inc == 0 &&
                split.other == 0);
    /* Other classes count as one class of their own. */
    ops.classes = BIT(GI_OP_OTHER);
    assert_true(gi_static_split(&k, &ops, &split, &why));
    assert_true(split.other == 20 && split.add == 0);

    ops.classes = BIT(GI_OP_ADD) | BIT(GI_OP_POPC_INC);
    assert_false(gi_static_split(&k, &ops, &split, &why));
    ops.classes = BIT(GI_OP_ADD);
    ops.calls = 1;
    assert_false(gi_static_split(&k, &ops, &split, &why));
    assert_non_null(strstr(why, "calls"));
    ops.calls = 0;
    ops.generic_atomics = 1;
    assert_false(gi_static_split(&k, &ops, &split, &why));
    ops.generic_atomics = 0;
    ops.classes = BIT(GI_OP_CAS); /* N_f > 0 and no non-CAS ATOMS: a callee or a surprise */
    assert_false(gi_static_split(&k, &ops, &split, &why));
    ops.classes = BIT(GI_OP_ADD);
    assert_false(gi_static_split(&k, NULL, &split, &why)); /* code unknown */
    ops.instructions = 0;
    assert_false(gi_static_split(&k, &ops, &split, &why)); /* disassembly empty */
    ops.instructions = 20;

    /* Hardware counts that do not add up, or are missing. */
    launch_with(&k, 31, 10, 20);
    assert_false(gi_static_split(&k, &ops, &split, &why));
    launch_with(&k, 30, NAN, 20);
    assert_false(gi_static_split(&k, &ops, &split, &why));

    /* No non-CAS atomics: the code is not needed. */
    launch_with(&k, 7, 7, 0);
    assert_true(gi_static_split(&k, NULL, &split, &why));
    assert_true(split.valid && split.cas == 7 && split.add == 0 && split.popc_inc == 0);
}

/* ---- a synthetic cubin ---------------------------------------------------- */

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
    put16(p, (uint16_t)v);
    put16(p + 2, (uint16_t)(v >> 16));
}

static void put64(uint8_t *p, uint64_t v)
{
    put32(p, (uint32_t)v);
    put32(p + 4, (uint32_t)(v >> 32));
}

/* ELF64 header, a string table, the code of "foo" and of "foobar", and the
 * section headers (null, .shstrtab, .text.foobar, .text.foo) at the end. */
static size_t build_elf(uint8_t *elf, size_t cap)
{
    static const char strtab[] = "\0.shstrtab\0.text.foobar\0.text.foo\0";
    const size_t str_off = 0x40, str_len = sizeof strtab;
    const size_t foo_off = 0x80, foo_len = 32, bar_off = 0xa0, bar_len = 16;
    const size_t sh_off = 0xc0, sh_size = 0x40, sh_num = 4;
    size_t total = sh_off + sh_num * sh_size;
    assert_true(total <= cap);
    memset(elf, 0, total);
    memcpy(elf, "\177ELF", 4);
    elf[4] = 2; /* 64-bit */
    elf[5] = 1; /* little-endian */
    put64(elf + 0x28, sh_off);
    put16(elf + 0x3a, (uint16_t)sh_size);
    put16(elf + 0x3c, (uint16_t)sh_num);
    put16(elf + 0x3e, 1);
    memcpy(elf + str_off, strtab, str_len);
    memset(elf + foo_off, 0xf0, foo_len);
    memset(elf + bar_off, 0xba, bar_len);
    uint8_t *sh = elf + sh_off + sh_size; /* [1] .shstrtab */
    put32(sh, 1);
    put64(sh + 0x18, str_off);
    put64(sh + 0x20, str_len);
    sh += sh_size; /* [2] .text.foobar */
    put32(sh, 11);
    put64(sh + 0x18, bar_off);
    put64(sh + 0x20, bar_len);
    sh += sh_size; /* [3] .text.foo */
    put32(sh, 24);
    put64(sh + 0x18, foo_off);
    put64(sh + 0x20, foo_len);
    return total;
}

typedef struct seen_functions {
    int n;
    char names[4][16];
    size_t off[4], len[4];
} seen_functions;

static void note_function(void *ctx, const char *name, size_t offset, size_t length)
{
    seen_functions *s = ctx;
    assert_true(s->n < 4);
    snprintf(s->names[s->n], sizeof s->names[0], "%s", name);
    s->off[s->n] = offset;
    s->len[s->n++] = length;
}

static void test_cubin_function(void **state)
{
    (void)state;
    uint8_t elf[1024];
    size_t size = build_elf(elf, sizeof elf);
    size_t off = 0, len = 0;
    assert_int_equal(gi_cubin_function(elf, size, "foo", &off, &len), 1);
    assert_int_equal(off, 0x80);
    assert_int_equal(len, 32);
    assert_int_equal(gi_cubin_function(elf, size, "foobar", &off, &len), 1);
    assert_int_equal(off, 0xa0);
    assert_int_equal(len, 16);
    assert_int_equal(gi_cubin_function(elf, size, "fo", &off, &len), 0);
    assert_int_equal(gi_cubin_function(elf, size, "bar", &off, &len), 0);
    seen_functions seen;
    memset(&seen, 0, sizeof seen);
    assert_int_equal(gi_cubin_each_function(elf, size, note_function, &seen), 2);
    assert_string_equal(seen.names[0], "foobar");
    assert_int_equal(seen.off[0], 0xa0);
    assert_string_equal(seen.names[1], "foo");
    assert_int_equal(seen.len[1], 32);
    /* Truncated, not an ELF, a section beyond the end. */
    assert_int_equal(gi_cubin_function(elf, size - 1, "foo", &off, &len), -1);
    assert_int_equal(gi_cubin_function(elf, 32, "foo", &off, &len), -1);
    uint8_t bad[1024];
    memcpy(bad, elf, size);
    bad[0] = 0;
    assert_int_equal(gi_cubin_function(bad, size, "foo", &off, &len), -1);
    memcpy(bad, elf, size);
    put64(bad + 0xc0 + 3 * 0x40 + 0x20, 4096); /* .text.foo longer than the file */
    assert_int_equal(gi_cubin_function(bad, size, "foo", &off, &len), -1);
    assert_int_equal(gi_cubin_function(bad, size, "foobar", &off, &len), 1);
    assert_int_equal(gi_cubin_each_function(bad, size, note_function, &seen), -1);
}

static void test_raw_disassembly_command(void **state)
{
    (void)state;
    char dir[] = "/tmp/gpuq-test-raw.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char tool[256], raw[256], args[300];
    snprintf(tool, sizeof tool, "%s/nvdisasm", dir);
    snprintf(raw, sizeof raw, "%s/k.code", dir);
    snprintf(args, sizeof args, "%s.args", raw);
    FILE *f = fopen(tool, "w");
    assert_non_null(f);
    fprintf(f, "#!/bin/sh\n"
               "echo \"$1 $2\" > \"$3.args\"\n"
               "echo '        /*0000*/                   ATOMS.POPC.INC.32 RZ, [R4+URZ] ;'\n");
    fclose(f);
    chmod(tool, 0755);
    char *text = NULL;
    gm_error err = {{0}};
    assert_int_equal(gi_disassemble_raw(tool, raw, "SM90", &text, &err), GM_OK);
    char *got = test_read_file(args);
    assert_string_equal(got, "-b SM90\n");
    free(got);
    gi_function_ops ops;
    gi_function_ops_scan(text, &ops);
    assert_int_equal(ops.classes, BIT(GI_OP_POPC_INC));
    free(text);
    /* cuobjdump has no raw mode. */
    assert_int_equal(gi_disassemble_raw("/usr/local/cuda/bin/cuobjdump", raw, "SM90", &text, &err),
                     GM_ERR_UNSUPPORTED);
    unlink(args);
    unlink(tool);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scan_recorded_kernels),
        cmocka_unit_test(test_scan_calls_and_generic_atomics),
        cmocka_unit_test(test_split_of_recorded_launches),
        cmocka_unit_test(test_static_split_refuses),
        cmocka_unit_test(test_cubin_function),
        cmocka_unit_test(test_raw_disassembly_command),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
