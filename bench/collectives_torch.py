#!/usr/bin/env python3
"""torch.distributed's NCCL collectives as a peer of `kladder-mpi peak --collectives` (not a
test; issue 41's benchmark). One process per GPU, spawned here; each collective at each size
from 1 MiB to --max bytes (doubling), nccl-tests' way: 5 warm-up calls, then 20 (fewer from
8 MiB, as kladder) timed by the host clock after a barrier, the slowest rank's time; busbw as
nccl-tests defines it. Prints one table (bytes by collective, GB/s of busbw).

usage: bench/collectives_torch.py [--max BYTES] [--gpus N]     (torch from /opt/torch/.venv)
"""
import argparse
import os
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

OPS = ["all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce", "all_to_all",
       "send_recv"]


def factor(op, n):
    return {"all_reduce": 2 * (n - 1) / n, "all_gather": (n - 1) / n,
            "reduce_scatter": (n - 1) / n, "all_to_all": (n - 1) / n}.get(op, 1.0)


def call(op, send, recv, rank, n):
    if op == "all_reduce":
        dist.all_reduce(send)
    elif op == "all_gather":
        dist.all_gather_into_tensor(recv, send[: recv.numel() // n])
    elif op == "reduce_scatter":
        dist.reduce_scatter_tensor(recv[: send.numel() // n], send)
    elif op == "broadcast":
        dist.broadcast(send, 0)
    elif op == "reduce":
        dist.reduce(send, 0)
    elif op == "all_to_all":
        dist.all_to_all_single(recv, send)
    else:
        ops = [dist.P2POp(dist.isend, send, (rank + 1) % n),
               dist.P2POp(dist.irecv, recv, (rank - 1) % n)]
        for r in dist.batch_isend_irecv(ops):
            r.wait()


def worker(rank, n, top, out):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT="29533", NCCL_NVLS_ENABLE="0")
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", rank=rank, world_size=n)
    send = torch.ones(top // 4, device="cuda")
    recv = torch.empty(top // 4, device="cuda")
    rows = {}
    size = 1 << 20
    while size <= top:
        floats = size // 4 // n * n
        s, r = send[:floats], recv[:floats]
        for op in OPS:
            iters = max(1, min(20, (80 << 20) // size))
            for _ in range(5):
                call(op, s, r, rank, n)
            torch.cuda.synchronize()
            dist.barrier()
            t0 = time.perf_counter()
            for _ in range(iters):
                call(op, s, r, rank, n)
            torch.cuda.synchronize()
            t = torch.tensor([time.perf_counter() - t0], device="cuda")
            dist.all_reduce(t, op=dist.ReduceOp.MAX)
            rows[(size, op)] = size / (t.item() / iters) * 1e-9 * factor(op, n)
        size *= 2
    if rank == 0:
        out.update(rows)
    dist.destroy_process_group()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--max", type=int, default=1 << 30)
    ap.add_argument("--gpus", type=int, default=torch.cuda.device_count())
    a = ap.parse_args()
    out = mp.Manager().dict()
    mp.spawn(worker, args=(a.gpus, a.max, out), nprocs=a.gpus)
    print(f"torch {torch.__version__}, NCCL {torch.cuda.nccl.version()}, {a.gpus} GPUs: busbw GB/s")
    print(f"{'bytes':>12s}" + "".join(f" {op:>14s}" for op in OPS))
    for size in sorted({k[0] for k in out.keys()}):
        print(f"{size:12d}" + "".join(f" {out[(size, op)]:14.2f}" for op in OPS))


if __name__ == "__main__":
    main()
