/* The unit registry (gpuq/unit.h): every model gpuq applies, in report
 * order.  Adding a model: its `const gm_unit gm_unit_<name>` in
 * src/papers/<name>/<name>_unit.c, one extern line and one row below (before
 * the NULL), the file in src/papers/<name>/CMakeLists.txt.  The first row takes
 * a bare -m VARIANT (no "unit:").  What is done with the rows is generic
 * (src/core/unit.c). */
#include <stddef.h>

#include "gpuq/unit.h"

extern const gm_unit gm_unit_atomics; /* paper 000: shared-memory atomic unit */
extern const gm_unit gm_unit_gatomics; /* paper 002: L2 atomic units */
extern const gm_unit gm_unit_bottleneck; /* paper 004: Zhang & Owens throughput model */
extern const gm_unit gm_unit_waves; /* paper 003: GPUDIAG blocks and waves */

const gm_unit *const gm_units[] = {
    &gm_unit_atomics,
    &gm_unit_gatomics,
    &gm_unit_bottleneck,
    &gm_unit_waves,
    NULL,
};
