/* The sass pass: CUPTI's SASS metrics (collector_sass.c). */
#ifndef GPUQ_COLLECTOR_SASS_H
#define GPUQ_COLLECTOR_SASS_H

#include "collector_internal.h"

/* SASS metrics (collector_sass.c). */
int gi_sass_device_setup(gi_device *dev);
int gi_sass_context_enable(gi_device *dev, gi_context *c);
/* Enables SASS patching on ctx unless done (contexts_lock taken inside). */
int gi_sass_context_ready(gi_device *dev, CUcontext ctx);
int gi_sass_begin(gi_device *dev, CUcontext ctx);
int gi_sass_end(gi_device *dev, gi_launch *launch, int launch_ok);
void gi_sass_context_gone(gi_context *c);
void gi_sass_device_teardown(gi_device *dev);
/* Saves a loaded cubin into g.cubin_dir once (both passes: the counters
 * pass keeps them for the code pass to read); the sass pass also
 * records it in its file. */
void gi_sass_module_loaded(const CUpti_ModuleResourceData *module);

/* A graph launch's EXIT in the sass pass: waits for it, then writes one
 * launch block per kernel node (ids[j], mangled[j]) with the records of its
 * function (the nodes' functions must be distinct). */
int gi_sass_end_graph(gi_device *dev, CUcontext ctx, size_t n, const char *const *mangled,
                      const uint64_t *ids, int launch_ok);

#endif
