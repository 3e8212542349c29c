/* The hash-table case of the validation suite: a shared-memory hash table
 * filled by CAS inserts with linear probing, one block of 512 threads per SM,
 * each thread waiting for its CAS before it probes on (docs/validation.md,
 * "The hash table").  A kernel like this is held up by the latency of its
 * ATOMS.CAS results, not by the atomic unit's rate: the rate-based U reads
 * it low although atomics are nearly all it does.
 *
 * Each round clears the table, inserts keys_per_round distinct keys per
 * thread (load factor 1/2 at the end of a round), and the last round's
 * table is counted: a block whose table does not hold exactly its keys
 * bumps *fail.  No probe loop runs longer than the table, so nothing can
 * hang.
 *
 * MODE 1 inserts with atomicCAS (ATOMS.CAS).  MODE 0 is the twin without
 * atomics: the same clears, barriers, keys and hashes, no inserts; its time
 * over the case's time bounds the share of the kernel that is not probing.
 * MODE 2 probes the same way with a plain load and store (LDS/STS, no
 * atomics): racing threads may overwrite each other's keys, which changes
 * nothing the timing needs; it tells what the probe loop costs when its
 * shared accesses are not atomic (an atomic-free case of its own).
 */
#include "vk.h"

#define VK_HASH_EMPTY 0xFFFFFFFFu

template <int MODE>
__global__ void vk_hash(vk_hash_args p)
{
    extern __shared__ unsigned table[];
    const unsigned mask = p.slots - 1u;
    const unsigned per_block = blockDim.x * p.keys_per_round;
    unsigned acc = 0;
    for (unsigned r = 0; r < p.rounds; r++) {
        for (unsigned i = threadIdx.x; i < p.slots; i += blockDim.x)
            table[i] = VK_HASH_EMPTY;
        __syncthreads();
        for (unsigned j = 0; j < p.keys_per_round; j++) {
            /* Distinct per block and round; never VK_HASH_EMPTY. */
            unsigned key = (r * per_block + j * blockDim.x + threadIdx.x) ^ p.seed;
            unsigned h = vk_pixel_hash(key) & mask;
            if (MODE == 1) {
                for (unsigned probe = 0; probe < p.slots; probe++) {
                    unsigned old = atomicCAS(&table[h], VK_HASH_EMPTY, key);
                    if (old == VK_HASH_EMPTY || old == key)
                        break;
                    h = (h + 1u) & mask;
                    acc++;
                }
            } else if (MODE == 2) {
                for (unsigned probe = 0; probe < p.slots; probe++) {
                    unsigned old = table[h];
                    if (old == VK_HASH_EMPTY) {
                        table[h] = key;
                        break;
                    }
                    if (old == key)
                        break;
                    h = (h + 1u) & mask;
                    acc++;
                }
            } else {
                acc += h;
            }
        }
        __syncthreads();
    }
    if (MODE == 1 && p.rounds > 0) {
        unsigned held = 0;
        for (unsigned i = 0; i < p.slots; i += blockDim.x)
            held += (unsigned)__syncthreads_count(i + threadIdx.x < p.slots &&
                                                  table[i + threadIdx.x] != VK_HASH_EMPTY);
        if (threadIdx.x == 0 && held != per_block)
            atomicAdd(p.fail, 1u);
    }
    p.out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

const void *vk_hash_kernel(int mode)
{
    return mode == 1 ? (const void *)vk_hash<1> : mode == 2 ? (const void *)vk_hash<2> : (const void *)vk_hash<0>;
}

cudaError_t vk_hash_launch(const void *kernel, unsigned blocks, unsigned threads, size_t smem_bytes,
                           cudaStream_t stream, const vk_hash_args *args)
{
    void *params[] = {(void *)args};
    return cudaLaunchKernel(kernel, dim3(blocks), dim3(threads), params, smem_bytes, stream);
}
