/* Suite "gatomics" in a build without CUDA: its row, settings and SASS
 * expectations are the CUDA build's (gatomics_suite.c); measuring says why it
 * cannot. */
#include "gatomics_suite.h"

gm_status gb_gatomics_measure(const gb_suite_run *run, gm_error *err)
{
    (void)run;
    return gm_fail(err, GM_ERR_UNSUPPORTED, "gatomics: gpuq was built without CUDA");
}
