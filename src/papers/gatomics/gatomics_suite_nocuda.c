/* Suite "gatomics" in a build without CUDA: listed, answers "unsupported". */
#include <stddef.h>

#include "gpuq/suite.h"

static const gb_sass_expect ga_sass_none[] = {{"ga_stall_atom32_k", "ATOMG.E.ADD", 1}, {NULL, NULL, 0}};

static gm_status ga_run_nocuda(const gb_suite_run *run, gm_error *err)
{
    (void)run;
    return gm_fail(err, GM_ERR_UNSUPPORTED, "gatomics: gpuq was built without CUDA");
}

const gb_suite gb_suite_gatomics = {
    .name = "gatomics",
    .measures = "global-memory atomics (paper 002, Robertson); needs a CUDA build",
    .sweep = "-",
    .file = "gatomics.csv",
    .expected_s = 2.0, /* as the CUDA build's row: H100 1.4 s (docs/global-atomics.md) */
    .sass = ga_sass_none,
    .run = ga_run_nocuda,
};
