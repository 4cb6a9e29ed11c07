#!/usr/bin/env python3
"""Two MPI ranks (mpi4py): rank 0 sends buffers of 1 B to 4 MiB with a
pattern that changes per message, rank 1 receives each and sends it back,
rank 0 checks every byte of the echo; then an allreduce. Rank 0 prints one
line per size, the allreduce's result and a SHA-256 of everything echoed,
so the output is the same on any libraries that deliver the bytes intact.
Exit 1 on the first echo that differs."""
import hashlib
import sys

from mpi4py import MPI

SIZES = [1, 64, 4096, 65536, 1 << 20, 4 << 20]


def pattern(size, i):
    return bytearray((j * 131 + i * 7 + size) & 0xFF for j in range(size))


def main():
    comm = MPI.COMM_WORLD
    rank = comm.Get_rank()
    if comm.Get_size() != 2:
        print("mpi_pingpong: run with -np 2", file=sys.stderr)
        return 2
    digest = hashlib.sha256()
    for i, size in enumerate(SIZES):
        if rank == 0:
            data = pattern(size, i)
            comm.Send([data, MPI.BYTE], dest=1, tag=i)
            back = bytearray(size)
            comm.Recv([back, MPI.BYTE], source=1, tag=i)
            same = back == data
            digest.update(back)
            print(f"size {size}: echo {'matches' if same else 'DIFFERS'}", flush=True)
            if not same:
                comm.Abort(1)
        else:
            buf = bytearray(size)
            comm.Recv([buf, MPI.BYTE], source=0, tag=i)
            comm.Send([buf, MPI.BYTE], dest=0, tag=i)
    total = comm.allreduce(rank + 1, op=MPI.SUM)
    if rank == 0:
        print(f"allreduce {total}; sha256 {digest.hexdigest()}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
