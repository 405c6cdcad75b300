#!/bin/bash
# Checks that the workspace's rust-version (the MSRV) is true for the
# lockfile: no locked dependency declares a newer rust-version. Together
# with clippy's `incompatible_msrv` lint (which flags standard-library APIs
# newer than the MSRV, run by `cargo clippy` in .ci/run) this stands in for
# `cargo +MSRV check`: rustup cannot install an older toolchain here.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo metadata --format-version 1 --locked | python3 -c '
import json, sys
m = json.load(sys.stdin)
ws = set(m["workspace_members"])
def v(s): return tuple(int(x) for x in (s or "0").split("."))
msrv = max(v(p["rust_version"]) for p in m["packages"] if p["id"] in ws)
bad = [(p["name"], p["version"], p["rust_version"]) for p in m["packages"]
       if p["id"] not in ws and v(p.get("rust_version")) > msrv]
print("MSRV %s; locked dependencies needing more: %s" % (".".join(map(str, msrv)), bad or "none"))
sys.exit(1 if bad else 0)
'
