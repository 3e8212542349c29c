/* Kernel names as a report shows them, after Nsight Compute's
 * --print-kernel-base: "function" (the function's own name: no return type,
 * namespaces, template arguments or parameters), "demangled" (the full
 * C++ signature) or "mangled" (the symbol).
 *
 *   void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>,
 *        at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, ...)
 *   -> function: "vectorized_elementwise_kernel"
 *
 * Pure C; survives any input (operator names, lambdas "{lambda(int)#1}",
 * "(anonymous namespace)", unbalanced brackets, empty strings).
 */
#ifndef GPUQ_KERNEL_NAME_H
#define GPUQ_KERNEL_NAME_H

#include <stddef.h>
#include "gpuq/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum gm_name_base {
    GM_NAME_FUNCTION = 0, /* default, as ncu */
    GM_NAME_DEMANGLED,
    GM_NAME_MANGLED,
    GM_NAME_BASE_COUNT
} gm_name_base;

gm_status gm_name_base_parse(const char *text, gm_name_base *out);
const char *gm_name_base_name(gm_name_base b);

/* The function base name of a demangled name into buf (always terminated;
 * the whole demangled name when no base can be found). */
void gm_kernel_base_name(const char *demangled, char *buf, size_t len);

/* Display names for n kernels such that two different kernels (different
 * demangled names) never show the same string: where function base names
 * collide, the colliding names get " #2", " #3", ... in order of first
 * appearance... (see kernel_name.c for the exact rule).  out[i] is malloc'd
 * (free each, then the array is the caller's).  width > 0: each name is
 * also cut to at most width characters, keeping the distinguishing suffix. */
gm_status gm_kernel_display_names(const char *const *demangled, const char *const *mangled,
                                  size_t n, gm_name_base base, size_t width, char **out);

#ifdef __cplusplus
}
#endif
#endif
