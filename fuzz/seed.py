#!/usr/bin/env python3
"""Seeds fuzz/corpus/TARGET from the repository's data: slices of the real
traces (strace, replay), the real maps files (maps), and fixed byte
patterns (core_api, mm, procfs). Run from the repository root."""
import glob, gzip, hashlib, os, random

random.seed(1)
root = os.path.dirname(os.path.abspath(__file__))
data = os.path.join(root, "..", "data")

def put(target, blob):
    d = os.path.join(root, "corpus", target)
    os.makedirs(d, exist_ok=True)
    name = hashlib.sha1(blob).hexdigest()
    with open(os.path.join(d, name), "wb") as f:
        f.write(blob)

traces = sorted(glob.glob(os.path.join(data, "traces", "**", "*.strace.gz"), recursive=True))
for path in traces:
    text = gzip.open(path).read()
    lines = text.split(b"\n")
    for _ in range(3):
        start = random.randrange(max(1, len(lines) - 40))
        chunk = b"\n".join(lines[start:start + 30])[:4000]
        put("strace", chunk)
        put("replay", b"\x00" + chunk)
for i in range(16):
    put("replay", bytes([1]) + bytes(random.randrange(256) for _ in range(64)))
for path in sorted(glob.glob(os.path.join(data, "maps", "*.maps"))):
    text = open(path, "rb").read()
    for off in range(0, min(len(text), 12000), 4000):
        put("maps", text[off:off + 4000])
for target in ["core_api", "mm", "procfs"]:
    for n in [16, 64, 256, 1024]:
        put(target, bytes(random.randrange(256) for _ in range(n)))
