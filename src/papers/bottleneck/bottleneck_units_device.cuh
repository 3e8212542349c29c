// What both kernel files of the suite "units" need (bottleneck_units_kernels.cu,
// bottleneck_wgmma.cu), each its own copy: without relocatable device code
// a __device__ variable belongs to one translation unit, so each file has
// its own clock readings and reads them back itself.
#ifndef GPUQ_BOTTLENECK_UNITS_DEVICE_CUH
#define GPUQ_BOTTLENECK_UNITS_DEVICE_CUH

#include <cuda_runtime.h>
#include <stdint.h>

// clock64 and %globaltimer of block 0's thread 0: [0], [1] before its work,
// [2], [3] after it.
static __device__ unsigned long long tu_clock_buf[4];

static __device__ __forceinline__ void tu_clock_note(int at)
{
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        unsigned long long ns;
        long long c = clock64();
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns));
        tu_clock_buf[at] = (unsigned long long)c;
        tu_clock_buf[at + 1] = ns;
    }
}

// The launch's SM clock in MHz from block 0's readings (0 when they make no
// sense: a reading missing or the timer not advancing).
static double tu_clock_of_launch(void)
{
    unsigned long long c[4];
    if (cudaMemcpyFromSymbol(c, tu_clock_buf, sizeof c) != cudaSuccess) return 0;
    return c[2] > c[0] && c[3] > c[1] ? (double)(c[2] - c[0]) * 1e3 / (double)(c[3] - c[1]) : 0;
}

static cudaError_t tu_timed_begin(cudaEvent_t *e0, cudaEvent_t *e1)
{
    unsigned long long zero[4] = {0, 0, 0, 0};
    cudaError_t st = cudaMemcpyToSymbol(tu_clock_buf, zero, sizeof zero);
    if (st == cudaSuccess) st = cudaEventCreate(e0);
    if (st == cudaSuccess) st = cudaEventCreate(e1);
    if (st == cudaSuccess) st = cudaEventRecord(*e0);
    return st;
}

// After the launch: its time from the events and its clock from the kernel.
static int tu_timed_end(cudaEvent_t e0, cudaEvent_t e1, float *ms, double *mhz)
{
    cudaError_t st = cudaEventRecord(e1);
    if (st == cudaSuccess) st = cudaGetLastError();
    if (st == cudaSuccess) st = cudaEventSynchronize(e1);
    if (st == cudaSuccess) st = cudaEventElapsedTime(ms, e0, e1);
    if (st == cudaSuccess) *mhz = tu_clock_of_launch();
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    return st;
}

#endif
