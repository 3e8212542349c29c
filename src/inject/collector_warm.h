/* GPUQ_EARLY_START=1: the range profiler's first Start, paid on a context of
 * the collector's own while the program starts (collector_warm.c). */
#ifndef GPUQ_COLLECTOR_WARM_H
#define GPUQ_COLLECTOR_WARM_H

#include "collector_internal.h"

/* Starts the warm-up thread when GPUQ_EARLY_START is 1 (InitializeInjection,
 * counters pass only). */
void gi_warm_start(void);
/* Whether the calling thread is the warm-up thread: the CUPTI callbacks its
 * own driver calls cause (its context's creation and destruction, modules
 * CUPTI loads) are not the program's and pass through. */
int gi_warm_is_self(void);
/* Before the range profiler is enabled on a program's context of device
 * dev (dev->lock held): waits until the warm-up of that device is over
 * (bounded), since the range profiler serves one context of a device at a
 * time. */
void gi_warm_wait(gi_device *dev);
/* Before a stream capture begins (any device, any mode; no device lock
 * held): the thread is told to make no profiler call if its window has not
 * begun, and waited for until its context is destroyed (bounded), since in
 * global capture mode a call of another thread such as cuCtxDestroy or a
 * synchronization would invalidate the capture. */
void gi_warm_before_capture(void);
/* The end of device dev's set-up (gi_device_setup, dev->lock held). */
void gi_warm_device_ready(const gi_device *dev);
/* At exit: asks the thread to stop and waits for it (bounded).  Returns 0
 * if it is still working on the GPU after the wait (the device's CUPTI
 * objects must then be left alone). */
int gi_warm_finish(void);
/* GPUQ_DEBUG: the warm-up's timeline line (nothing when it did not run). */
void gi_warm_debug(void);

#endif
