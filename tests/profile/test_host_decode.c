/* Unit tests of the Hopper opcode reader (src/host/host_decode_sm90.c)
 * against what nvdisasm/cuobjdump printed for the same encodings on an
 * H200: the corpus of every mnemonic seen, and whole functions of the
 * ATOMS zoo (tests/profile/atoms_zoo.cu) and atomics_app read both ways. */
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

#define DATA GPUQ_SOURCE_DIR "/tests/profile/data/"

/* What the text path (host_function_ops_scan) makes of one mnemonic. */
static host_sm90_role role_of_mnemonic(const char *mnemonic, host_op_class *op)
{
    char base[64];
    size_t n = strcspn(mnemonic, ".");
    snprintf(base, sizeof base, "%.*s", (int)n, mnemonic);
    *op = host_classify_opcode(mnemonic);
    if (*op != HOST_OP_NOT_ATOMS)
        return HOST_SM90_ATOMS;
    if (strcmp(base, "CALL") == 0)
        return HOST_SM90_CALL;
    if (strcmp(base, "ATOM") == 0 || strcmp(base, "RED") == 0)
        return HOST_SM90_GENERIC_ATOMIC;
    return HOST_SM90_PLAIN;
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
        host_op_class want_op;
        host_sm90_role want = role_of_mnemonic(mnemonic, &want_op);
        for (char *e = strtok(list, ";"); e; e = strtok(NULL, ";")) {
            uint64_t lo = 0, hi = 0;
            assert_int_equal(sscanf(e, "%" SCNx64 ",%" SCNx64, &lo, &hi), 2);
            host_op_class op;
            const char *name = NULL;
            host_sm90_role got = host_sm90_decode(lo, hi, &op, &name);
            if (got != want || op != want_op)
                fail_msg("%s (%s): decoded as role %d class %d (%s), nvdisasm says role %d "
                         "class %d", mnemonic, e, (int)got, (int)op, name ? name : "?", (int)want,
                         (int)want_op);
            if (got == HOST_SM90_ATOMS) {
                assert_string_equal(name, mnemonic);
                atoms++;
            }
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
                host_function_ops from_text, from_code;
                host_function_ops_scan(fn.text, &from_text);
                int known = host_sm90_function_ops(fn.code, fn.length, &from_code);
                if (!known)
                    fail_msg("%s: the decoder does not know every instruction", fn.name);
                assert_int_equal(from_code.instructions, fn.length / 16);
                assert_int_equal(from_text.instructions, from_code.instructions);
                if (from_code.classes != from_text.classes || from_code.calls != from_text.calls ||
                    from_code.generic_atomics != from_text.generic_atomics)
                    fail_msg("%s: decoder classes %#x calls %d generic %d, text %#x %d %d",
                             fn.name, from_code.classes, from_code.calls,
                             from_code.generic_atomics, from_text.classes, from_text.calls,
                             from_text.generic_atomics);
                functions++;
                *with_atoms += from_code.classes != 0;
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
    host_op_class op;
    /* An opcode outside the table. */
    assert_int_equal(host_sm90_decode(0x1ff, 0, &op, NULL), HOST_SM90_UNKNOWN);
    /* ATOMS.ADD as printed (0x738c form), then with an operation, a type
     * and a form never seen. */
    uint64_t add_lo = 0x0000000d0008738cull, add_hi = 0x000e220000000000ull;
    assert_int_equal(host_sm90_decode(add_lo, add_hi, &op, NULL), HOST_SM90_ATOMS);
    assert_int_equal(op, HOST_OP_ADD);
    assert_int_equal(host_sm90_decode(add_lo, add_hi | (0xeull << 23), &op, NULL), HOST_SM90_UNKNOWN);
    assert_int_equal(host_sm90_decode(add_lo, add_hi | (5ull << 9), &op, NULL), HOST_SM90_UNKNOWN);
    assert_int_equal(host_sm90_decode((add_lo & ~0xe00ull) | (6ull << 9), add_hi, &op, NULL),
                     HOST_SM90_UNKNOWN);
    /* POPC.INC, CAS, a call, a generic ATOM, REDUX (a warp reduction, not
     * an atomic). */
    assert_int_equal(host_sm90_decode(0x0000000004ff7f8cull, 0x0003ea000d80003full, &op, NULL),
                     HOST_SM90_ATOMS);
    assert_int_equal(op, HOST_OP_POPC_INC);
    assert_int_equal(host_sm90_decode(0x000000020502738dull, 0x000e640000000003ull, &op, NULL),
                     HOST_SM90_ATOMS);
    assert_int_equal(op, HOST_OP_CAS);
    assert_int_equal(host_sm90_decode(0x00000000005c7944ull, 0x020fea0003c00000ull, &op, NULL),
                     HOST_SM90_CALL);
    assert_int_equal(host_sm90_decode(0x0000001b1212798aull, 0x000ea200081ee1ccull, &op, NULL),
                     HOST_SM90_GENERIC_ATOMIC);
    assert_int_equal(host_sm90_decode(0x1c4, 0, &op, NULL), HOST_SM90_PLAIN);

    /* A function with one unknown instruction is unknown as a whole. */
    uint8_t code[32] = {0};
    code[0] = 0x8c;
    code[1] = 0x73; /* ATOMS.ADD form 1, operation 0, type 0 */
    code[16] = 0xff;
    code[17] = 0x01; /* opcode 0x1ff */
    host_function_ops ops;
    assert_int_equal(host_sm90_function_ops(code, 16, &ops), 1);
    assert_int_equal(ops.classes, 1u << HOST_OP_ADD);
    assert_int_equal(ops.instructions, 1);
    assert_int_equal(host_sm90_function_ops(code, 32, &ops), 0);
    assert_int_equal(ops.instructions, 0);
    assert_int_equal(host_sm90_function_ops(code, 24, &ops), 0); /* not whole instructions */
    assert_int_equal(host_sm90_function_ops(NULL, 0, &ops), 0);
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
