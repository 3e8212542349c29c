/* Unit tests of the Hopper SASS reader (src/host/host_decode_sm90.c)
 * against what nvdisasm/cuobjdump printed for the same encodings on an
 * H200: the corpus of every mnemonic seen (the same mnemonic, and the same
 * marks of the one code pass there is, the shared-atomic opcode split), and
 * whole functions of the ATOMS zoo (tests/profile/atoms_zoo.cu) and
 * atomics_app read both ways. */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "host/host_decode_sm90.h"
#include "host/host_sass.h"
#include "papers/atomics/atomics_split.h"

#define DATA GPUQ_SOURCE_DIR "/tests/profile/data/"

/* 1 when the reader's mnemonic names the instruction nvdisasm printed:
 * the same mnemonic without modifiers, or one of "A/B" (one opcode value
 * that nvdisasm prints two ways); for ATOMS the whole opcode. */
static int same_instruction(const char *decoded, const char *printed)
{
    size_t n = strcspn(printed, ".");
    if (strncmp(printed, "ATOMS", n) == 0 && n == 5)
        return strcmp(decoded, printed) == 0;
    for (const char *alt = decoded; alt && *alt;) {
        size_t m = strcspn(alt, "/");
        if (m == n && strncmp(alt, printed, n) == 0)
            return 1;
        alt = alt[m] ? alt + m + 1 : NULL;
    }
    return 0;
}

static void test_corpus(void **state)
{
    (void)state;
    FILE *f = fopen(DATA "gh100_sass_corpus.tsv", "r");
    assert_non_null(f);
    static char line[8192];
    size_t encodings = 0, mnemonics = 0, atoms = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#')
            continue;
        char *mnemonic = strtok(line, "\t");
        char *count = strtok(NULL, "\t");
        char *list = strtok(NULL, "\t\n");
        assert_non_null(mnemonic);
        assert_non_null(count);
        assert_non_null(list);
        mnemonics++;
        unsigned want = gm_atomics_mark_opcode(mnemonic);
        for (char *e = strtok(list, ";"); e; e = strtok(NULL, ";")) {
            uint64_t lo = 0, hi = 0;
            assert_int_equal(sscanf(e, "%" SCNx64 ",%" SCNx64, &lo, &hi), 2);
            const char *name = host_sm90_mnemonic(lo, hi);
            if (!name)
                fail_msg("%s (%s): not in the reader's tables", mnemonic, e);
            if (!same_instruction(name, mnemonic))
                fail_msg("%s (%s): read as %s", mnemonic, e, name);
            unsigned got = gm_atomics_mark_opcode(name);
            if (got != want)
                fail_msg("%s (%s): read as %s, marked %#x, nvdisasm's text marked %#x", mnemonic,
                         e, name, got, want);
            if (gm_atomics_classify_opcode(name) != GM_ATOMICS_OP_NOT_ATOMS)
                atoms++;
            encodings++;
        }
    }
    fclose(f);
    assert_true(mnemonics > 100);
    assert_true(atoms >= 18);
    print_message("corpus: %zu mnemonics, %zu encodings, %zu of them ATOMS, all agree\n",
                  mnemonics, encodings, atoms);
}

/* One function of a cuobjdump -sass listing: its code rebuilt from the
 * printed encodings and its text, read both ways. */
typedef struct listing_function {
    char name[512];
    uint8_t *code;
    size_t length, cap;
    char *text;
    size_t text_len, text_cap;
} listing_function;

static void append_text(listing_function *fn, const char *line)
{
    size_t n = strlen(line);
    if (fn->text_len + n + 1 > fn->text_cap) {
        fn->text_cap = 2 * (fn->text_len + n + 1);
        fn->text = realloc(fn->text, fn->text_cap);
        assert_non_null(fn->text);
    }
    memcpy(fn->text + fn->text_len, line, n + 1);
    fn->text_len += n;
}

static void append_word(listing_function *fn, uint64_t word)
{
    if (fn->length + 8 > fn->cap) {
        fn->cap = fn->cap ? 2 * fn->cap : 4096;
        fn->code = realloc(fn->code, fn->cap);
        assert_non_null(fn->code);
    }
    for (int i = 0; i < 8; i++)
        fn->code[fn->length++] = (uint8_t)(word >> (8 * i));
}

#define ATOMS_CLASSES                                                                    \
    (GM_ATOMICS_MARK(GM_ATOMICS_OP_ADD) | GM_ATOMICS_MARK(GM_ATOMICS_OP_CAS) |            \
     GM_ATOMICS_MARK(GM_ATOMICS_OP_POPC_INC) | GM_ATOMICS_MARK(GM_ATOMICS_OP_OTHER))

/* Compares decoder and text for every function of a listing; returns the
 * number of functions. */
static size_t compare_listing(const char *path, size_t *with_atoms)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    static char line[4096];
    listing_function fn;
    memset(&fn, 0, sizeof fn);
    size_t functions = 0;
    int in_function = 0;
    for (int more = 1; more;) {
        more = fgets(line, sizeof line, f) != NULL;
        const char *fun = more ? strstr(line, "Function : ") : NULL;
        if (!more || fun) {
            if (in_function && fn.length) {
                gm_kernel_code from_text, from_code;
                host_code_scan(fn.text, gm_atomics_mark_opcode, &from_text);
                int known = host_sm90_read(fn.code, fn.length, gm_atomics_mark_opcode, &from_code);
                if (!known)
                    fail_msg("%s: the decoder does not know every instruction", fn.name);
                assert_int_equal(from_code.instructions, fn.length / 16);
                assert_int_equal(from_text.instructions, from_code.instructions);
                if (from_code.marks != from_text.marks)
                    fail_msg("%s: decoder marks %#x, text %#x", fn.name, from_code.marks,
                             from_text.marks);
                functions++;
                *with_atoms += (from_code.marks & ATOMS_CLASSES) != 0;
            }
            fn.length = 0;
            fn.text_len = 0;
            if (fn.text)
                fn.text[0] = '\0';
            in_function = fun != NULL;
            if (fun)
                snprintf(fn.name, sizeof fn.name, "%s", fun + 11);
            continue;
        }
        if (!in_function)
            continue;
        /* Instruction lines end in the low word; the next line holds the
         * high word alone. */
        const char *enc = strstr(line, "/* 0x");
        if (!enc)
            continue;
        uint64_t word = strtoull(enc + 3, NULL, 16);
        append_word(&fn, word);
        append_text(&fn, line);
    }
    fclose(f);
    free(fn.code);
    free(fn.text);
    return functions;
}

static void test_zoo_functions(void **state)
{
    (void)state;
    size_t atoms = 0;
    size_t n = compare_listing(DATA "gh100_atoms_zoo.cuobjdump.txt", &atoms);
    assert_int_equal(n, 2); /* zoo, and with_call (its callee is in its section) */
    assert_true(atoms >= 2);
}

static void test_atomics_app_functions(void **state)
{
    (void)state;
    size_t atoms = 0;
    size_t n = compare_listing(DATA "gh100_atomics_app.cuobjdump.txt", &atoms);
    assert_true(n >= 5);
    assert_true(atoms >= 4);
}

static void test_unknown_is_never_guessed(void **state)
{
    (void)state;
    /* An opcode outside the table. */
    assert_null(host_sm90_mnemonic(0x1ff, 0));
    /* ATOMS.ADD as printed (0x738c form), then with an operation, a type
     * and a form never seen. */
    uint64_t add_lo = 0x0000000d0008738cull, add_hi = 0x000e220000000000ull;
    assert_string_equal(host_sm90_mnemonic(add_lo, add_hi), "ATOMS.ADD");
    assert_null(host_sm90_mnemonic(add_lo, add_hi | (0xeull << 23)));
    assert_null(host_sm90_mnemonic(add_lo, add_hi | (5ull << 9)));
    assert_null(host_sm90_mnemonic((add_lo & ~0xe00ull) | (6ull << 9), add_hi));
    /* POPC.INC, CAS, a call, a generic ATOM, REDUX (a warp reduction, not
     * an atomic). */
    assert_string_equal(host_sm90_mnemonic(0x0000000004ff7f8cull, 0x0003ea000d80003full),
                        "ATOMS.POPC.INC.32");
    assert_string_equal(host_sm90_mnemonic(0x000000020502738dull, 0x000e640000000003ull),
                        "ATOMS.CAS");
    assert_string_equal(host_sm90_mnemonic(0x00000000005c7944ull, 0x020fea0003c00000ull), "CALL");
    assert_string_equal(host_sm90_mnemonic(0x0000001b1212798aull, 0x000ea200081ee1ccull), "ATOM");
    assert_string_equal(host_sm90_mnemonic(0x1c4, 0), "REDUX");
    assert_int_equal(gm_atomics_mark_opcode("REDUX"), 0);

    /* A function with one unknown instruction is unknown as a whole. */
    uint8_t code[32] = {0};
    code[0] = 0x8c;
    code[1] = 0x73; /* ATOMS.ADD form 1, operation 0, type 0 */
    code[16] = 0xff;
    code[17] = 0x01; /* opcode 0x1ff */
    gm_kernel_code ops;
    assert_int_equal(host_sm90_read(code, 16, gm_atomics_mark_opcode, &ops), 1);
    assert_int_equal(ops.marks, GM_ATOMICS_MARK(GM_ATOMICS_OP_ADD));
    assert_int_equal(ops.instructions, 1);
    assert_int_equal(host_sm90_read(code, 32, gm_atomics_mark_opcode, &ops), 0);
    assert_int_equal(ops.instructions, 0);
    assert_int_equal(host_sm90_read(code, 24, gm_atomics_mark_opcode, &ops), 0); /* not whole */
    assert_int_equal(host_sm90_read(NULL, 0, gm_atomics_mark_opcode, &ops), 0);
    /* Without a pass's marks, the instructions are still counted. */
    assert_int_equal(host_sm90_read(code, 16, NULL, &ops), 1);
    assert_int_equal(ops.marks, 0);
    assert_int_equal(ops.instructions, 1);
}

/* test_host_decode LISTING...: compares decoder and text for every function
 * of freshly made cuobjdump -sass listings (the GPU-machine test
 * decode_fresh, tests/profile/decode_fresh.sh). */
static char **fresh_listings;
static int n_fresh_listings;

static void test_fresh_listings(void **state)
{
    (void)state;
    for (int i = 0; i < n_fresh_listings; i++) {
        size_t atoms = 0;
        size_t n = compare_listing(fresh_listings[i], &atoms);
        print_message("%s: %zu functions, %zu with shared atomics, decoder and text agree\n",
                      fresh_listings[i], n, atoms);
        assert_true(n > 0);
    }
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        fresh_listings = argv + 1;
        n_fresh_listings = argc - 1;
        const struct CMUnitTest fresh[] = {cmocka_unit_test(test_fresh_listings)};
        return cmocka_run_group_tests(fresh, NULL, NULL);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_corpus),
        cmocka_unit_test(test_zoo_functions),
        cmocka_unit_test(test_atomics_app_functions),
        cmocka_unit_test(test_unknown_is_never_guessed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
