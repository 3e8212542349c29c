/* Kernel nodes of CUDA graphs (collector_graph.c): each instantiated graph's
 * kernel nodes are read when it is instantiated; a graph launch whose kernel
 * nodes run in one order gets a range profiler window of its own, one auto
 * range per kernel node, and a row per node, attributed in the graphs file
 * (<status>.graphs: graph launch number, node index and id).  Where CUPTI
 * does not give one range per kernel node, each graph says so there, with
 * the numbers it gave. */
#ifndef GPUQ_COLLECTOR_GRAPH_H
#define GPUQ_COLLECTOR_GRAPH_H

#include "collector_internal.h"

int gi_graph_is_instantiate(CUpti_CallbackId cbid);
int gi_graph_is_exec_destroy(CUpti_CallbackId cbid);
/* EXIT of cuGraphInstantiate* / cuGraphExecUpdate: reads the kernel nodes. */
void gi_graph_instantiated(CUpti_CallbackId cbid, const CUpti_CallbackData *cb);
/* ENTER of cuGraphExecDestroy: the handle may be reused afterwards. */
void gi_graph_exec_destroyed(const CUpti_CallbackData *cb);
/* Records that graph launch seq of exec was not profiled, and why (the
 * first time for each graph, and counted). */
void gi_graph_not_profiled(CUgraphExec exec, uint64_t seq, const char *why);
/* A graph launch outside any capture, dev->lock held: opens its window and
 * returns 1, or returns 0 (not profiled; the caller marks the device). */
int gi_graph_launch_begin(gi_device *dev, CUcontext ctx, CUgraphExec exec, uint64_t seq,
                          gi_launch *L);
/* Its EXIT: closes the window, writes a row per selected kernel node. */
void gi_graph_launch_end(gi_device *dev, gi_launch *L, int launch_ok);

#endif
