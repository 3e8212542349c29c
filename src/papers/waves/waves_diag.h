/* gpuq diag (waves_cmd_diag.c): the GPUDIAG parameter report (paper 003) and its
 * figures (waves_diag_plots.c). */
#ifndef GPUQ_WAVES_DIAG_H
#define GPUQ_WAVES_DIAG_H

#include "waves_data.h"
#include "gpuq/status.h"

/* Writes fu.svg, wsched.svg, nslot.svg, nmp.svg and tgb.svg into dir
 * (created if missing); names the files written in *written (count). */
gm_status cli_waves_diag_plot(const gm_waves_data *d, gm_waves_form form, const char *dir,
                              int *written, gm_error *err);

#endif
