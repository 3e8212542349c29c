/* The SM clock of a suite's run in its machine-data header (suite_clock.h). */
#include <math.h>
#include <stddef.h>

#include "gpuq/mdata.h"
#include "suite_clock.h"

static int read_ok(double mhz)
{
    return isfinite(mhz) && mhz > 0;
}

double gb_clock_of_run(double before_mhz, double after_mhz)
{
    int b = read_ok(before_mhz), a = read_ok(after_mhz);
    if (b && a)
        return 0.5 * (before_mhz + after_mhz);
    return b ? before_mhz : a ? after_mhz : 0;
}

int gb_clock_changed(double before_mhz, double after_mhz, double fraction)
{
    if (!read_ok(before_mhz) || !read_ok(after_mhz))
        return 0;
    return fabs(after_mhz - before_mhz) > fraction * before_mhz;
}

gm_status gb_suite_fill_clock(const char *path, double before_mhz, double after_mhz,
                              double *mhz, int *filled, gm_error *err)
{
    if (filled)
        *filled = 0;
    if (mhz)
        *mhz = 0;
    gm_mdata_meta meta;
    gm_status st = gm_mdata_read_meta(path, &meta, err);
    if (st != GM_OK)
        return st;
    double run = gb_clock_of_run(before_mhz, after_mhz);
    if (read_ok(meta.sm_clock_mhz) || run == 0) {
        /* the suite's own reading wins; with no reading there is nothing to write */
        if (mhz)
            *mhz = read_ok(meta.sm_clock_mhz) ? meta.sm_clock_mhz : 0;
        return GM_OK;
    }
    gm_mdata *md = NULL;
    if ((st = gm_mdata_load(path, &md, err)) != GM_OK)
        return st;
    md->meta.sm_clock_mhz = run;
    st = gm_mdata_write_file(path, md, err);
    gm_mdata_free(md);
    if (st == GM_OK) {
        if (mhz)
            *mhz = run;
        if (filled)
            *filled = 1;
    }
    return st;
}
