/* Built when no CUDA compiler was found: the benchmarks cannot run. */
#include "bench.h"

int gb_available(void)
{
    return 0;
}
