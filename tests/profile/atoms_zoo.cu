// Every shared-memory atomic the compiler offers, for the SASS corpus.
#include <cstdint>
__global__ void zoo(int *out, const int *in, int n)
{
    __shared__ int si[1024];
    __shared__ unsigned su[1024];
    __shared__ unsigned long long sl[512];
    __shared__ long long sll[512];
    __shared__ float sf[512];
    __shared__ double sd[256];
    int t = threadIdx.x, v = in[t];
    si[t] = 0; su[t] = 0; sl[t % 512] = 0; sf[t % 512] = 0; sd[t % 256] = 0; sll[t % 512] = 0;
    __syncthreads();
    int acc = 0;
    acc += atomicAdd(&si[v & 1023], v);
    atomicAdd(&si[(v >> 3) & 1023], 1);
    atomicAdd(&su[(v >> 4) & 1023], 1u);
    acc += atomicSub(&si[(v >> 1) & 1023], v);
    acc += atomicExch(&si[(v >> 2) & 1023], v);
    acc += atomicMin(&si[(v >> 5) & 1023], v);
    acc += atomicMax(&si[(v >> 6) & 1023], v);
    acc += atomicMin(&su[(v >> 5) & 1023], (unsigned)v);
    acc += atomicMax(&su[(v >> 6) & 1023], (unsigned)v);
    acc += atomicInc(&su[(v >> 7) & 1023], 77u);
    acc += atomicDec(&su[(v >> 8) & 1023], 77u);
    acc += atomicAnd(&si[(v >> 9) & 1023], v);
    acc += atomicOr(&si[(v >> 10) & 1023], v);
    acc += atomicXor(&si[(v >> 11) & 1023], v);
    atomicAnd(&si[(v >> 12) & 1023], v);
    atomicOr(&si[(v >> 13) & 1023], v);
    atomicXor(&si[(v >> 14) & 1023], v);
    atomicMax(&si[(v >> 15) & 1023], v);
    atomicExch(&si[(v >> 16) & 1023], v);
    acc += atomicCAS(&si[(v >> 2) & 1023], v, acc);
    acc += (int)atomicAdd(&sl[v & 511], (unsigned long long)v);
    atomicAdd(&sl[(v >> 1) & 511], 1ull);
    acc += (int)atomicCAS(&sl[(v >> 2) & 511], (unsigned long long)v, (unsigned long long)acc);
    acc += (int)atomicExch(&sl[(v >> 3) & 511], (unsigned long long)v);
    acc += (int)atomicMin(&sll[(v >> 4) & 511], (long long)v);
    acc += (int)atomicMax(&sl[(v >> 5) & 511], (unsigned long long)v);
    acc += (int)atomicAnd(&sl[(v >> 6) & 511], (unsigned long long)v);
    acc += (int)atomicOr(&sl[(v >> 7) & 511], (unsigned long long)v);
    acc += (int)atomicXor(&sl[(v >> 8) & 511], (unsigned long long)v);
    acc += (int)atomicAdd(&sf[v & 511], 1.5f);
    atomicAdd(&sf[(v >> 1) & 511], 2.5f);
    acc += (int)atomicAdd(&sd[v & 255], 1.5);
    acc += atomicAdd(&si[5], v);             // constant address
    acc += atomicAdd(&si[(t + 32) & 1023], 3); // immediate offset forms
    atomicAdd(&si[t], 7);
    atomicAdd_block(&si[(v >> 17) & 1023], v);
    // generic pointer that the compiler cannot prove shared
    int *p = (v & 1) ? &si[t] : out;
    acc += atomicAdd(p, 1);
    __syncthreads();
    out[t] = acc + si[t] + su[t] + (int)sl[t % 512] + (int)sf[t % 512] + (int)sd[t % 256];
}
__device__ __noinline__ int callee(int *s, int v) { return atomicAdd(&s[v & 255], v); }
__global__ void with_call(int *out, const int *in)
{
    __shared__ int s[256];
    s[threadIdx.x % 256] = 0;
    __syncthreads();
    out[threadIdx.x] = callee(s, in[threadIdx.x]) + atomicAdd(&out[1000], 1);
    atomicAdd(&out[2000], 1);
    atomicAdd((float *)&out[3000], 1.0f);
}
