/* Access patterns of one warp instruction, shared by the GPU kernel that
 * performs them (bn_validate.cu --patterns, counters from ncu) and the
 * comparison (bn_compare.c, the transaction simulator): pattern p gives,
 * for each lane, a byte address, the access width and whether the lane
 * takes part.  Global patterns address a 1 MiB-aligned buffer; shared ones
 * a 16 KiB window. */
#ifndef BN_PATTERNS_H
#define BN_PATTERNS_H

#ifdef __CUDACC__
#define BN_HD __host__ __device__
#else
#define BN_HD
#endif

#define BN_N_GLOBAL 18
#define BN_N_SHARED 18

/* A well-mixed lane hash (Knuth's multiplicative), the same on CPU and GPU. */
BN_HD static inline unsigned bn_hash(unsigned lane)
{
    return (lane * 2654435761u) >> 7;
}

/* Global pattern p (0..BN_N_GLOBAL-1): *bytes width, return the address;
 * *active 0 for lanes that sit out. */
BN_HD static inline unsigned bn_global_addr(int p, unsigned lane, int *bytes, int *active)
{
    /* no lookup table: a table would be one more global load in the kernel */
    *active = 1;
    if (p < 7) { *bytes = 4; return lane * (1u << p) * 4u; }     /* stride 1..64 words */
    if (p < 10) { *bytes = 8; return lane * (1u << (p - 7)) * 8u; }
    if (p < 12) { *bytes = 16; return lane * (1u << (p - 10)) * 16u; }
    switch (p) {
    case 12: *bytes = 4; return lane * 4u + 4u;            /* shifted one word */
    case 13: *bytes = 4; return 0;                         /* broadcast */
    case 14: *bytes = 4; return (bn_hash(lane) & 1023u) * 4u; /* scattered in 4 KiB */
    case 15: *bytes = 8; return (31u - lane) * 8u;         /* reversed */
    case 16: *bytes = 16; return (bn_hash(lane) & 255u) * 16u;
    default: *bytes = 4; *active = lane < 16; return lane * 4u; /* half the warp */
    }
}

BN_HD static inline unsigned bn_shared_addr(int p, unsigned lane, int *bytes, int *active)
{
    *active = 1;
    if (p < 7) { *bytes = 4; return lane * (p < 3 ? p + 1u : 1u << (p - 1)) * 4u; } /* 1,2,3,4,8,16,32 */
    if (p == 7) { *bytes = 4; return 64; }                  /* broadcast */
    if (p < 11) { *bytes = 8; return lane * (1u << (p - 8)) * 8u; }
    if (p < 14) { *bytes = 16; return lane * (1u << (p - 11)) * 16u; }
    switch (p) {
    case 14: *bytes = 4; return (bn_hash(lane) & 1023u) * 4u;
    case 15: *bytes = 8; return (lane / 2u) * 8u;          /* lane pairs share */
    case 16: *bytes = 16; return (bn_hash(lane) & 255u) * 16u;
    default: *bytes = 4; return lane < 16 ? 0u : 128u;     /* two words, one bank */
    }
}

#endif
