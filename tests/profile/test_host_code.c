/* Unit tests of what a kernel's code holds for a code pass (host_code.c):
 * the scan of a disassembly with a pass's marks (a pass of the test's own),
 * finding a kernel's code in a cubin, and the raw disassembly command. */
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

/* The test's marks: bit 0 for an opcode starting with "ST", bit 1 for EXIT. */
static unsigned test_mark(const char *opcode)
{
    return (strncmp(opcode, "ST", 2) == 0 ? 1u : 0u) | (strcmp(opcode, "EXIT") == 0 ? 2u : 0u);
}

/* Every instruction line counts, whatever function it is in; each opcode
 * is marked with modifiers and without predicate; other lines do not count. */
static void test_scan(void **state)
{
    (void)state;
    gm_kernel_code code;
    host_code_scan("\t\tFunction : _Z1av\n"
                   "        /*0000*/      LDS R4, [R0] ;\n"
                   "        /* 0x000fe20000000f00 */\n"
                   "        /*0010*/ @!P0 STS.64 [R0], R4 ;\n"
                   "\t\tFunction : _Z1bv\n"
                   "        /*0000*/      EXIT ;\n",
                   test_mark, &code);
    assert_int_equal(code.instructions, 3);
    assert_int_equal(code.marks, 3u);
    host_code_scan("        /*0000*/      LDS R4, [R0] ;\n", test_mark, &code);
    assert_int_equal(code.instructions, 1);
    assert_int_equal(code.marks, 0u);
    gm_kernel_code more = {2, 2u};
    host_code_merge(&code, &more);
    assert_int_equal(code.instructions, 3);
    assert_int_equal(code.marks, 2u);
    host_code_scan("no instructions here\n", NULL, &code);
    assert_int_equal(code.instructions, 0);
    host_code_scan(NULL, test_mark, &code);
    assert_int_equal(code.instructions, 0);
}

#define BIT(c) (1u << (c))

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
    assert_int_equal(host_cubin_function(elf, size, "foo", &off, &len), 1);
    assert_int_equal(off, 0x80);
    assert_int_equal(len, 32);
    assert_int_equal(host_cubin_function(elf, size, "foobar", &off, &len), 1);
    assert_int_equal(off, 0xa0);
    assert_int_equal(len, 16);
    assert_int_equal(host_cubin_function(elf, size, "fo", &off, &len), 0);
    assert_int_equal(host_cubin_function(elf, size, "bar", &off, &len), 0);
    seen_functions seen;
    memset(&seen, 0, sizeof seen);
    assert_int_equal(host_cubin_each_function(elf, size, note_function, &seen), 2);
    assert_string_equal(seen.names[0], "foobar");
    assert_int_equal(seen.off[0], 0xa0);
    assert_string_equal(seen.names[1], "foo");
    assert_int_equal(seen.len[1], 32);
    /* Truncated, not an ELF, a section beyond the end. */
    assert_int_equal(host_cubin_function(elf, size - 1, "foo", &off, &len), -1);
    assert_int_equal(host_cubin_function(elf, 32, "foo", &off, &len), -1);
    uint8_t bad[1024];
    memcpy(bad, elf, size);
    bad[0] = 0;
    assert_int_equal(host_cubin_function(bad, size, "foo", &off, &len), -1);
    memcpy(bad, elf, size);
    put64(bad + 0xc0 + 3 * 0x40 + 0x20, 4096); /* .text.foo longer than the file */
    assert_int_equal(host_cubin_function(bad, size, "foo", &off, &len), -1);
    assert_int_equal(host_cubin_function(bad, size, "foobar", &off, &len), 1);
    assert_int_equal(host_cubin_each_function(bad, size, note_function, &seen), -1);
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
    assert_int_equal(host_disassemble_raw(tool, raw, "SM90", &text, &err), GM_OK);
    char *got = test_read_file(args);
    assert_string_equal(got, "-b SM90\n");
    free(got);
    gm_kernel_code code;
    host_code_scan(text, test_mark, &code);
    assert_int_equal(code.instructions, 1);
    free(text);
    /* cuobjdump has no raw mode. */
    assert_int_equal(host_disassemble_raw("/usr/local/cuda/bin/cuobjdump", raw, "SM90", &text, &err),
                     GM_ERR_UNSUPPORTED);
    unlink(args);
    unlink(tool);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scan),
        cmocka_unit_test(test_cubin_function),
        cmocka_unit_test(test_raw_disassembly_command),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
