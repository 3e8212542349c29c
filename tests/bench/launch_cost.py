"""What a launch measured in full costs: N elementwise launches of distinct
shapes (N tensors of 4096*(i+1) floats, multiplied in place), each repeated
REPS times, with GB of device memory held (and written once) beside them.

    python3 tests/bench/launch_cost.py GB N [REPS]
    gpuq profile [--section S] -- python3 tests/bench/launch_cost.py 0 30

Under GPUQ_DEBUG=1 the collector's timeline line gives the launch phase
(first profiled launch to the drain) to divide by the launches profiled
(docs/profile.md, "The cost against ncu")."""
import sys, time, torch
gb = float(sys.argv[1]); n = int(sys.argv[2]); reps = int(sys.argv[3]) if len(sys.argv) > 3 else 1
hold = torch.empty(int(gb * 2**30), dtype=torch.uint8, device="cuda") if gb > 0 else None
if hold is not None: hold.fill_(1)
xs = [torch.ones(4096 * (i + 1), device="cuda") for i in range(n)]
torch.cuda.synchronize()
t = time.time()
for r in range(reps):
    for x in xs:
        x.mul_(1.0001)
torch.cuda.synchronize()
print("sum %.3f time %.3f s" % (sum(float(x[0]) for x in xs), time.time() - t))
