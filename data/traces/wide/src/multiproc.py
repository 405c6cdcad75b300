"""The workload of data/traces/wide/python-multiprocessing-sig.

A multiprocessing Pool (fork start method), subprocess.run from 8 threads
at once, then 32 forked multiprocessing.Processes joined in reverse order
of their start. Record it with the interpreter binary itself (see
data/traces/wide/record.sh).
"""
import multiprocessing as mp
import os
import subprocess
import threading


def square(x):
    return x * x


def child(i):
    # some exit with a code, the rest with 0
    if i % 5 == 0:
        os._exit(i % 7)


def run_in_thread(i, out):
    r = subprocess.run(["/bin/sh", "-c", f"exit {i % 3}"])
    out[i] = r.returncode


def main():
    mp.set_start_method("fork")
    with mp.Pool(4) as pool:
        assert pool.map(square, range(64)) == [x * x for x in range(64)]

    out = [None] * 8
    threads = [threading.Thread(target=run_in_thread, args=(i, out)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert out == [i % 3 for i in range(8)], out

    procs = [mp.Process(target=child, args=(i,)) for i in range(32)]
    for p in procs:
        p.start()
    for p in reversed(procs):
        p.join()
    codes = [p.exitcode for p in procs]
    assert codes == [(i % 7 if i % 5 == 0 else 0) for i in range(32)], codes
    print("ok", sum(codes))


if __name__ == "__main__":
    main()
