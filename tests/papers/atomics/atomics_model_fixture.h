/* Shared fixture of the model tests (paper 000, Sec. 3): a test table and
 * launch counters.  Every expected number in the tests is worked out by
 * hand in a comment next to it.
 *
 * The test table is synthetic (a formula, not a measurement), 4 warps x 4
 * lanes, chosen so that multilinear interpolation differs from the formula
 * itself (the e^2 term), which catches an interpolation that merely
 * evaluates something smooth:
 *   FAO/CAS series (add, mixes CAS):  T(n,e,c) = 100 + 20 n + 10 e^2 + 30 c + 5 n e
 *   POPC.INC series (no CAS):         T(n,e)   = 50 + 10 n
 *   steady-state FAO/CAS series:      T(n,e,c) = 4 n e + c     (for the "steady" variant)
 *   steady-state POPC.INC series:     T(n,e)   = 2 n           (for "measured-steady")
 * wave_table() has one more steady-state FAO/CAS series whose e slope per job
 * differs by layer, for the wavefront variant's w (see there).
 */
#ifndef GPUQ_TESTS_MODEL_FIXTURE_H
#define GPUQ_TESTS_MODEL_FIXTURE_H

#include "papers/atomics/atomics_model.h"

/* cmocka 1.1 has no assert_double_equal: |got - want| <= tol, printing both. */
void check_near(double got, double want, double tol, const char *file, int line);
#define assert_near(got, want, tol) check_near((got), (want), (tol), __FILE__, __LINE__)
#define assert_exact(got, want) check_near((got), (want), 0, __FILE__, __LINE__)
#define TOL 1e-9

double T_add(int n, int e, int c);
double T_popc(int n);
double T_steady(int n, int e, int c);
void fill(gm_atomics_series *s, double (*f)(int, int, int));
double popc_3(int n, int e, int c);
double popc_steady(int n, int e, int c);

enum { WITH_POPC = 1, WITH_STEADY = 2, WITH_POPC_STEADY = 4 };

gm_atomics_table *test_table(int which);
/* w_n per layer of wave_table's steady-state series (atomics_model_fixture.c). */
extern const double wave_w[5];
double T_wave(int n, int e, int c);
gm_atomics_table *wave_table(void);
const gm_atomics_series *add_series(const gm_atomics_table *t);
const gm_atomics_series *popc_series(const gm_atomics_table *t);
gm_atomics_model_options model(const char *name);
void counters_blank(gm_launch_counters *k);
void counters_example(gm_launch_counters *k);

#endif
