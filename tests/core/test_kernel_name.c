/* Kernel base names (ncu --print-kernel-base function) and display names
 * that never give two different kernels the same string. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gpuq/kernel_name.h"

/* Names as PyTorch 2.x kernels demangle (cuobjdump / ncu --print-kernel-base
 * demangled); the first three are the ones a 30-column report cut to
 * "void at::native::vectorized...", "void at::native::reduce_ker..." and
 * "void at::native::(anonymous...". */
static const char *const FILL =
    "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, "
    "at::detail::Array<char*, 1> >(int, at::native::FillFunctor<float>, "
    "at::detail::Array<char*, 1>)";
static const char *const ADD =
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
    "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, "
    "at::detail::Array<char*, 3>)";
static const char *const REDUCE =
    "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, "
    "at::native::MeanOps<float, float, float, float>, unsigned int, float, 4> >("
    "at::native::ReduceOp<float, at::native::MeanOps<float, float, float, float>, "
    "unsigned int, float, 4>)";
static const char *const SOFTMAX =
    "void at::native::(anonymous namespace)::softmax_warp_forward<float, float, float, 10, "
    "false, false>(float*, float const*, int, int, int, bool const*, int, bool)";
static const char *const DISTRIB =
    "void at::native::(anonymous namespace)::distribution_elementwise_grid_stride_kernel<float, "
    "4, at::native::templates::cuda::uniform_and_transform<float, float, at::CUDAGeneratorImpl*, "
    "at::native::templates::cuda::uniform_kernel<at::CUDAGeneratorImpl*>(at::TensorIteratorBase&, "
    "double, double, at::CUDAGeneratorImpl*)::{lambda()#1}::operator()() const::{lambda()#2}::"
    "operator()() const::{lambda(float)#1}>(at::TensorIteratorBase&, at::CUDAGeneratorImpl*, "
    "at::native::templates::cuda::uniform_kernel<at::CUDAGeneratorImpl*>(at::TensorIteratorBase&, "
    "double, double, at::CUDAGeneratorImpl*)::{lambda()#1}::operator()() const::{lambda()#2}::"
    "operator()() const::{lambda(float)#1})::{lambda(curandStatePhilox4_32_10*)#2}>(long, "
    "at::PhiloxCudaState, at::native::templates::cuda::uniform_and_transform<float, float, "
    "at::CUDAGeneratorImpl*, at::native::templates::cuda::uniform_kernel<at::CUDAGeneratorImpl*>("
    "at::TensorIteratorBase&, double, double, at::CUDAGeneratorImpl*)::{lambda()#1}::operator()() "
    "const::{lambda()#2}::operator()() const::{lambda(float)#1}>(at::TensorIteratorBase&, "
    "at::CUDAGeneratorImpl*, at::native::templates::cuda::uniform_kernel<at::CUDAGeneratorImpl*>("
    "at::TensorIteratorBase&, double, double, at::CUDAGeneratorImpl*)::{lambda()#1}::operator()() "
    "const::{lambda()#2}::operator()() const::{lambda(float)#1})::{lambda(curandStatePhilox4_32_10*)"
    "#2}, at::native::templates::cuda::uniform_kernel<at::CUDAGeneratorImpl*>(at::TensorIteratorBase&,"
    " double, double, at::CUDAGeneratorImpl*)::{lambda()#1}::operator()() const::{lambda()#2}::"
    "operator()() const::{lambda(float)#1})";
static const char *const COPY =
    "void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl_nocast<"
    "at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() "
    "const::{lambda()#7}::operator()() const::{lambda(float)#1}>(at::TensorIteratorBase&, "
    "at::native::direct_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda()#3}::operator()() "
    "const::{lambda()#7}::operator()() const::{lambda(float)#1} const&)::{lambda(int)#1}>(int, "
    "at::native::gpu_kernel_impl_nocast<at::native::direct_copy_kernel_cuda("
    "at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() "
    "const::{lambda(float)#1}>(at::TensorIteratorBase&, at::native::direct_copy_kernel_cuda("
    "at::TensorIteratorBase&)::{lambda()#3}::operator()() const::{lambda()#7}::operator()() "
    "const::{lambda(float)#1} const&)::{lambda(int)#1})";

static void expect_base(const char *demangled, const char *want)
{
    char buf[512];
    gm_kernel_base_name(demangled, buf, sizeof buf);
    if (strcmp(buf, want) != 0)
        print_error("base of \"%s\"\n", demangled ? demangled : "(null)");
    assert_string_equal(buf, want);
}

static void test_pytorch_base_names(void **state)
{
    (void)state;
    expect_base(FILL, "vectorized_elementwise_kernel");
    expect_base(ADD, "vectorized_elementwise_kernel");
    expect_base(REDUCE, "reduce_kernel");
    expect_base(SOFTMAX, "softmax_warp_forward");
    expect_base(DISTRIB, "distribution_elementwise_grid_stride_kernel");
    expect_base(COPY, "elementwise_kernel");
}

static void test_plain_and_library_names(void **state)
{
    (void)state;
    /* extern "C" kernels: the demangled name is the symbol itself */
    expect_base("sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x128x32_execute_kernel__5x_cublas",
                "sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x128x32_execute_kernel__5x_cublas");
    expect_base("histogram_smem_atomics(unsigned char const*, int, unsigned int*)",
                "histogram_smem_atomics");
    expect_base("void cutlass::Kernel2<cutlass_80_wmma_tensorop_s161616gemm_f16_32x32_128x2_tn_align8>"
                "(cutlass_80_wmma_tensorop_s161616gemm_f16_32x32_128x2_tn_align8::Params)",
                "Kernel2");
    expect_base("unsigned int* ns::alloc<int>(unsigned long)", "alloc");
    expect_base("void foo(int) [clone .isra.0]", "foo");
    expect_base("std::string ns::name[abi:cxx11]<int>(int)", "name");
    expect_base("void (anonymous namespace)::k()", "k");
    expect_base("ns::Cls<int>::method(int) const &", "method");
}

static void test_operator_names(void **state)
{
    (void)state;
    expect_base("void foo<int>(int)::{lambda(int)#1}::operator()(int) const", "operator()");
    expect_base("bool ns::operator<(ns::A const&, ns::A const&)", "operator<");
    expect_base("bool ns::operator< <int>(ns::A<int> const&, ns::A<int> const&)", "operator<");
    expect_base("ns::A& ns::A::operator<<=(int)", "operator<<=");
    expect_base("ns::A::operator->() const", "operator->");
    expect_base("void* operator new[](unsigned long)", "operator new[]");
    expect_base("void operator delete(void*)", "operator delete");
    expect_base("ns::A::operator unsigned int() const", "operator unsigned int");
    expect_base("ns::A::operator std::vector<int>() const", "operator std::vector");
    expect_base("void my_operator_kernel<2>(float*)", "my_operator_kernel");
    expect_base("void operator_kernel(float*)", "operator_kernel");
    expect_base("void k<&ns::A::operator>, 3>(int)", "k");
}

static void test_odd_input(void **state)
{
    (void)state;
    expect_base("", "");
    expect_base(NULL, "");
    expect_base("   ", "   ");
    expect_base("()", "()");
    expect_base("<>", "<>");
    expect_base("foo(", "foo(");                  /* unbalanced: no base, whole text */
    expect_base("void foo<int(int)", "void foo<int(int)");
    expect_base("void foo(int))", "void foo(int))");
    expect_base("void foo>(int)", "foo>");          /* a stray '>' is text */
    expect_base("{lambda(int)#1}", "{lambda(int)#1}");
    expect_base("ns::{lambda(int)#1}::operator()(int) const", "operator()");
    expect_base("operator", "operator");
    expect_base("::", "::");
    expect_base("a::", "a::");
    expect_base("_Z3fooPi", "_Z3fooPi");

    /* truncation: always terminated, never beyond len */
    char small[6];
    memset(small, 'x', sizeof small);
    gm_kernel_base_name(REDUCE, small, sizeof small);
    assert_string_equal(small, "reduc");
    gm_kernel_base_name(REDUCE, small, 1);
    assert_string_equal(small, "");
    gm_kernel_base_name(REDUCE, NULL, 10); /* no crash */
}

static void test_name_base_parse(void **state)
{
    (void)state;
    gm_name_base b = GM_NAME_MANGLED;
    assert_int_equal(gm_name_base_parse("function", &b), GM_OK);
    assert_int_equal(b, GM_NAME_FUNCTION);
    assert_int_equal(gm_name_base_parse("demangled", &b), GM_OK);
    assert_int_equal(b, GM_NAME_DEMANGLED);
    assert_int_equal(gm_name_base_parse("mangled", &b), GM_OK);
    assert_int_equal(b, GM_NAME_MANGLED);
    assert_int_not_equal(gm_name_base_parse("Function", &b), GM_OK);
    assert_int_not_equal(gm_name_base_parse("", &b), GM_OK);
    assert_int_not_equal(gm_name_base_parse(NULL, &b), GM_OK);
    assert_string_equal(gm_name_base_name(GM_NAME_DEMANGLED), "demangled");
    assert_string_equal(gm_name_base_name((gm_name_base)99), "unknown");
}

static void free_names(char **out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(out[i]);
}

/* No two different (demangled, mangled) pairs share a name; the same pair
 * always gets the same name; every name fits the width when it can. */
static void check_distinct(const char *const *dem, const char *const *mang, size_t n,
                           char **out, size_t width)
{
    for (size_t i = 0; i < n; i++) {
        assert_non_null(out[i]);
        if (width >= 8)
            assert_true(strlen(out[i]) <= width);
        for (size_t j = 0; j < i; j++) {
            int same = strcmp(dem[i] ? dem[i] : "", dem[j] ? dem[j] : "") == 0 &&
                       strcmp(mang[i] ? mang[i] : "", mang[j] ? mang[j] : "") == 0;
            if (same)
                assert_string_equal(out[i], out[j]);
            else if (strcmp(out[i], out[j]) == 0)
                fail_msg("kernels %zu and %zu both shown as \"%s\"", j, i, out[i]);
        }
    }
}

static void test_display_pytorch(void **state)
{
    (void)state;
    const char *dem[] = {FILL, REDUCE, ADD, FILL, SOFTMAX, DISTRIB, COPY, ADD};
    const char *mang[] = {"_Z1a", "_Z1b", "_Z1c", "_Z1a", "_Z1d", "_Z1e", "_Z1f", "_Z1c"};
    size_t n = sizeof dem / sizeof dem[0];
    char *out[8];

    assert_int_equal(gm_kernel_display_names(dem, mang, n, GM_NAME_FUNCTION, 0, out), GM_OK);
    check_distinct(dem, mang, n, out, 0);
    assert_string_equal(out[0], "vectorized_elementwise_kernel");
    assert_string_equal(out[1], "reduce_kernel");
    assert_string_equal(out[2], "vectorized_elementwise_kernel #2");
    assert_string_equal(out[3], "vectorized_elementwise_kernel");
    assert_string_equal(out[4], "softmax_warp_forward");
    assert_string_equal(out[5], "distribution_elementwise_grid_stride_kernel");
    assert_string_equal(out[6], "elementwise_kernel");
    assert_string_equal(out[7], "vectorized_elementwise_kernel #2");
    free_names(out, n);

    /* 30 columns, as the text report: the suffix survives the cut */
    assert_int_equal(gm_kernel_display_names(dem, mang, n, GM_NAME_FUNCTION, 30, out), GM_OK);
    check_distinct(dem, mang, n, out, 30);
    assert_string_equal(out[0], "vectorized_elementwise_kernel");
    assert_string_equal(out[2], "vectorized_elementwise_k... #2");
    assert_string_equal(out[5], "distribution_elementwise_gr...");
    free_names(out, n);

    /* demangled names cut to 30 all start "void at::native::": suffixes */
    assert_int_equal(gm_kernel_display_names(dem, mang, n, GM_NAME_DEMANGLED, 30, out), GM_OK);
    check_distinct(dem, mang, n, out, 30);
    assert_string_equal(out[0], "void at::native::vectorized...");
    assert_string_equal(out[1], "void at::native::reduce_ker...");
    assert_string_equal(out[2], "void at::native::vectori... #2");
    free_names(out, n);

    assert_int_equal(gm_kernel_display_names(dem, mang, n, GM_NAME_MANGLED, 0, out), GM_OK);
    check_distinct(dem, mang, n, out, 0);
    assert_string_equal(out[1], "_Z1b");
    free_names(out, n);
}

static void test_display_suffix_never_steals(void **state)
{
    (void)state;
    /* "k #2" is a real kernel's own name: the second "k" must not take it */
    const char *dem[] = {"k", "k", "k #2", "k"};
    const char *mang[] = {"_Z1", "_Z2", NULL, "_Z3"};
    char *out[4];
    assert_int_equal(gm_kernel_display_names(dem, mang, 4, GM_NAME_DEMANGLED, 0, out), GM_OK);
    assert_string_equal(out[0], "k");
    assert_string_equal(out[1], "k #3");
    assert_string_equal(out[2], "k #2");
    assert_string_equal(out[3], "k #4");
    check_distinct(dem, mang, 4, out, 0);
    free_names(out, 4);
}

/* 20,000 kernels of one name (different symbols), and the names "k #N"
 * some of them would take held by kernels of their own: every
 * one gets the first suffix free, in order of first appearance (checked
 * by hashing, not against every other name: this took minutes before). */
static void test_display_many_of_one_name(void **state)
{
    (void)state;
    enum { N = 20000 };
    char **dem = calloc(N, sizeof *dem), **mang = calloc(N, sizeof *mang), **out = calloc(N, sizeof *out);
    assert_true(dem && mang && out);
    for (size_t i = 0; i < N; i++) {
        char b[64];
        if (i % 1000 == 999) /* a kernel whose own name is one suffix of "k" */
            snprintf(b, sizeof b, "k #%zu", i / 10);
        else
            snprintf(b, sizeof b, "k");
        dem[i] = strdup(b);
        snprintf(b, sizeof b, "_Z1kILi%zuEEvi", i);
        mang[i] = strdup(b);
    }
    assert_int_equal(gm_kernel_display_names((const char *const *)dem,
                                             (const char *const *)mang, N, GM_NAME_DEMANGLED,
                                             30, out),
                     GM_OK);
    /* the held names are theirs; the others count up past them */
    size_t next = 2;
    for (size_t i = 0; i < N; i++) {
        if (i % 1000 == 999) {
            char want[32];
            snprintf(want, sizeof want, "k #%zu", i / 10);
            assert_string_equal(out[i], want);
            continue;
        }
        if (i == 0) {
            assert_string_equal(out[i], "k");
            continue;
        }
        char want[32];
        for (;;) {
            int held = 0;
            for (size_t h = 999; h < N; h += 1000)
                held |= next == h / 10;
            if (!held)
                break;
            next++;
        }
        snprintf(want, sizeof want, "k #%zu", next++);
        assert_string_equal(out[i], want);
    }
    for (size_t i = 0; i < N; i++) {
        free(dem[i]);
        free(mang[i]);
        free(out[i]);
    }
    free(dem);
    free(mang);
    free(out);
}

static void test_display_odd(void **state)
{
    (void)state;
    /* NULL names, control characters made spaces (then still distinct),
     * widths too small for a name plus suffix */
    const char *dem[] = {NULL, "a\001", "a\002", NULL, "", "a "};
    const char *mang[] = {NULL, NULL, NULL, "_Zx", NULL, NULL};
    char *out[6];
    for (size_t width = 0; width < 12; width++)
        for (int b = 0; b < GM_NAME_BASE_COUNT; b++) {
            assert_int_equal(gm_kernel_display_names(dem, mang, 6, (gm_name_base)b, width, out),
                             GM_OK);
            check_distinct(dem, mang, 6, out, width);
            for (size_t i = 0; i < 6; i++)
                for (const char *p = out[i]; *p; p++)
                    assert_true((unsigned char)*p >= 0x20);
            free_names(out, 6);
        }
    assert_int_equal(gm_kernel_display_names(dem, mang, 0, GM_NAME_FUNCTION, 0, NULL), GM_OK);
    assert_int_not_equal(gm_kernel_display_names(dem, mang, 6, GM_NAME_FUNCTION, 0, NULL), GM_OK);
    assert_int_not_equal(
        gm_kernel_display_names(dem, mang, 6, (gm_name_base)7, 0, out), GM_OK);
    /* no arrays at all: every launch the same unnamed kernel */
    assert_int_equal(gm_kernel_display_names(NULL, NULL, 2, GM_NAME_FUNCTION, 0, out), GM_OK);
    assert_string_equal(out[0], "(unnamed kernel)");
    assert_string_equal(out[1], "(unnamed kernel)");
    free_names(out, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pytorch_base_names),
        cmocka_unit_test(test_plain_and_library_names),
        cmocka_unit_test(test_operator_names),
        cmocka_unit_test(test_odd_input),
        cmocka_unit_test(test_name_base_parse),
        cmocka_unit_test(test_display_pytorch),
        cmocka_unit_test(test_display_suffix_never_steals),
        cmocka_unit_test(test_display_odd),
        cmocka_unit_test(test_display_many_of_one_name),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
