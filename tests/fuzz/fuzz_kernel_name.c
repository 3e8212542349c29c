/* libFuzzer harness: kernel base names and display names.
 *
 * Input: byte 0 picks the name base, byte 1 the width; the rest is split at
 * '\n' into names, alternately demangled and mangled.  Besides surviving,
 * the results must keep the module's promises: a base name is a substring
 * of its input, and two different kernels never share a display name. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_input.h"
#include "gpuq/kernel_name.h"

#define MAX_NAMES 64

static int same(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "") == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    gm_name_base base = (gm_name_base)(data[0] % GM_NAME_BASE_COUNT);
    size_t width = data[1] % 48;
    char *text = malloc(size - 2 + 1);
    if (!text)
        return 0;
    memcpy(text, data + 2, size - 2);
    text[size - 2] = '\0';

    const char *dem[MAX_NAMES] = {0}, *mang[MAX_NAMES] = {0};
    size_t n = 0, field = 0;
    char *p = text;
    while (n < MAX_NAMES) {
        char *nl = strchr(p, '\n');
        if (nl)
            *nl = '\0';
        if (field++ % 2 == 0) {
            dem[n] = p[0] == '-' ? NULL : p; /* "-" alone: no name */
        } else {
            mang[n++] = p[0] == '-' ? NULL : p;
        }
        if (!nl)
            break;
        p = nl + 1;
    }
    if (field % 2 == 1)
        n++; /* a last demangled name without a mangled one */

    for (size_t i = 0; i < n; i++) {
        if (!dem[i])
            continue;
        size_t len = strlen(dem[i]);
        char *buf = malloc(len + 1);
        FUZZ_CHECK(buf != NULL);
        gm_kernel_base_name(dem[i], buf, len + 1);
        FUZZ_CHECK(strstr(dem[i], buf) != NULL);
        char small[4];
        gm_kernel_base_name(dem[i], small, (size_t)(data[1] % 4) + 1);
        FUZZ_CHECK(strlen(small) <= (size_t)(data[1] % 4));
        free(buf);
    }

    char *out[MAX_NAMES];
    if (gm_kernel_display_names(dem, mang, n, base, width, out) == GM_OK) {
        for (size_t i = 0; i < n; i++) {
            FUZZ_CHECK(out[i] != NULL);
            for (size_t j = 0; j < i; j++) {
                int kernel_same = same(dem[i], dem[j]) && same(mang[i], mang[j]);
                FUZZ_CHECK(kernel_same == (strcmp(out[i], out[j]) == 0));
            }
        }
        for (size_t i = 0; i < n; i++)
            free(out[i]);
    }
    free(text);
    return 0;
}
