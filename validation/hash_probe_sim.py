#!/usr/bin/env python3
"""How many warp-level probes the hash cases need per round, on the CPU
(docs/validation.md, "The hash table's twin"): one block of hash.cu's
kernel (512 threads, 16 keys per thread and round into 16,384 slots, the
same keys and hash), its 16 warps interleaved in a random order at each
step, each warp issuing one probe (one ATOMS.CAS or LDS) per step for its
lanes that still probe.

Two ways a warp may run its lanes, for each kernel:
  per-key  the warp finishes key j on every lane before any lane starts
           key j + 1 (the slowest lane sets each key's probe count);
  free     each lane runs through its 16 keys on its own; the warp issues
           a probe while any lane still probes.
CAS: a lane's CAS acts at once, lanes in order.  LDS/STS: a lane that reads
an empty slot stores its key at the end of the step, after every warp's
loads, so racing lanes overwrite each other and keys are lost.

Prints, per kernel and way, probes per warp and round and keys lost per
block and round.  A model of the order of memory operations, not of the
GPU's timing: it tells which way of running the lanes matches the
measured probe counts (hash_twin.csv's probes_per_round).

usage: hash_probe_sim.py [--rounds N] [--seed S]

Python 3 standard library only.
"""
import argparse
import random
import sys

MASK32 = 0xFFFFFFFF
SLOTS = 16384        # VK_HASH_SLOTS
KEYS = 16            # VK_HASH_KEYS_PER_ROUND
THREADS = 512
WARPS = THREADS // 32


def pixel_hash(i):
    """vk_pixel_hash (validation/vk.h)."""
    x = (i * 0x9E3779B1 + 0x7F4A7C15) & MASK32
    x ^= x >> 15
    x = (x * 0x2C1B3C6D) & MASK32
    x ^= x >> 12
    x = (x * 0x297A2D39) & MASK32
    x ^= x >> 15
    return x


def one_round(r, cas, free, rng):
    """(warp-level probes, keys lost) of round r of one block (seed 0)."""
    mask = SLOTS - 1
    table = [None] * SLOTS
    key_of = lambda t, j: r * THREADS * KEYS + j * THREADS + t
    lane_j = [0] * THREADS
    lane_h = [pixel_hash(key_of(t, 0)) & mask for t in range(THREADS)]
    active = [True] * THREADS
    probes = 0
    while any(active):
        order = list(range(WARPS))
        rng.shuffle(order)
        stores = []
        for w in order:
            lanes = [t for t in range(32 * w, 32 * w + 32) if active[t]]
            if not lanes:
                continue
            if not free:
                j = min(lane_j[t] for t in lanes)
                lanes = [t for t in lanes if lane_j[t] == j]
            probes += 1
            for t in lanes:
                key, h = key_of(t, lane_j[t]), lane_h[t]
                old = table[h]
                if old is None or old == key:
                    if old is None:
                        if cas:
                            table[h] = key
                        else:
                            stores.append((h, key))
                    lane_j[t] += 1
                    if lane_j[t] == KEYS:
                        active[t] = False
                    else:
                        lane_h[t] = pixel_hash(key_of(t, lane_j[t])) & mask
                else:
                    lane_h[t] = (h + 1) & mask
        for h, key in stores:
            table[h] = key
    return probes, THREADS * KEYS - sum(v is not None for v in table)


def main(argv=None):
    p = argparse.ArgumentParser(description="warp-level probes per round of the hash cases, on the CPU")
    p.add_argument("--rounds", type=int, default=4)
    p.add_argument("--seed", type=int, default=1, help="of the warp order")
    args = p.parse_args(argv)
    if args.rounds < 1:
        print("hash_probe_sim: --rounds must be at least 1", file=sys.stderr)
        return 2
    print("kernel,way,probes_per_warp_round,keys_lost_per_round")
    for cas in (True, False):
        for free in (False, True):
            rng = random.Random(args.seed)
            res = [one_round(r, cas, free, rng) for r in range(args.rounds)]
            print("%s,%s,%.1f,%.1f" % ("cas" if cas else "lds_sts", "free" if free else "per-key",
                                       sum(p for p, _ in res) / args.rounds / WARPS,
                                       sum(l for _, l in res) / args.rounds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
