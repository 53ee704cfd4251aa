#!/usr/bin/python3
"""PyTorch's side of the all-reduce benchmark (scripts/bench/allreduce_compare.sh):
torch.distributed with Gloo, N processes on 127.0.0.1, timed exactly as
scripts/bench/allreduce.dsl times nabla (f32 messages of 4 KiB to 64 MiB, a barrier
then one timed all-reduce, the median of `reps`). Rank 0 prints
    BENCH allreduce_<size> time_us=.. busbw_GBps=.. ranks=N
Usage: allreduce_torch.py [reps] [ranks]. PyTorch is Debian's python3-torch 1.13,
only a reference: never a build dependency."""
import os
import socket
import sys
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

SIZES = [4096, 65536, 1048576, 16777216, 67108864]
NAMES = ["4KiB", "64KiB", "1MiB", "16MiB", "64MiB"]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def median_all_reduce_seconds(t, reps):
    dist.all_reduce(t)  # warm-up, as allreduce.dsl
    times = []
    for _ in range(reps):
        dist.barrier()
        t0 = time.perf_counter()
        dist.all_reduce(t)
        times.append(time.perf_counter() - t0)
    times.sort()
    return times[len(times) // 2]


def rank_main(rank, world, port, reps):
    # as `nabla launch`: the cores shared out among the ranks
    torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", max(1, os.cpu_count() // world))))
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=world)
    for size, name in zip(SIZES, NAMES):
        t = torch.ones(size // 4)
        r = reps if size <= 1048576 else max(3, reps // 3)
        med = median_all_reduce_seconds(t, r)
        busbw = 2.0 * (world - 1) / world * size / med / 1e9
        if rank == 0:
            print(f"BENCH allreduce_{name} time_us={med * 1e6:.1f} busbw_GBps={busbw:.3f} ranks={world}", flush=True)
    dist.destroy_process_group()


def main():
    reps = int(sys.argv[1]) if len(sys.argv) > 1 else 41
    world = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    mp.spawn(rank_main, args=(world, free_port(), reps), nprocs=world)


if __name__ == "__main__":
    main()
