#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""The scaling benchmark's table (tools/bench/scale.sh): for each fabric,
from DIR/<topo>/<phase>.<client>.txt (perftest) and DIR/<topo>/cpu.txt
(scale.host.sh): one pair's 64 KiB RDMA WRITE bandwidth alone, every
pair's at once (aggregate, and the slowest and fastest pair), 2-byte
WRITE latency idle and under the other pairs' streams (p50/p99), and the
host's CPUs busy in each phase.

usage: scale-report.py DIR TOPO...
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report import parse_perftest  # noqa: E402


def results(d, phase, lat):
    """{client: parsed} for one phase"""
    out = {}
    for f in sorted(os.listdir(d)) if os.path.isdir(d) else []:
        if f.startswith(phase + ".") and f.endswith(".txt"):
            with open(os.path.join(d, f), errors="replace") as fh:
                r = parse_perftest(fh.read(), lat)
            if r:
                out[f[len(phase) + 1:-4]] = r
    return out


def cpu(d):
    c = {}
    try:
        with open(os.path.join(d, "cpu.txt")) as f:
            for line in f:
                p, v = line.split()
                c[p] = v + "%"
    except (OSError, ValueError):
        pass
    return c


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    base, topos = sys.argv[1], sys.argv[2:]
    print("Scaling on this host: pairs n<k> -> n<k+N/2>, perftest over sfab_0; "
          "bandwidth 64 KiB RDMA WRITE (MiB/s), latency 2 B RDMA WRITE p50/p99 (us);")
    print("host CPU: the share of all host CPU time busy during the phase")
    print()
    hdr = (f"{'fabric':<16} {'pairs':>5} {'1 pair':>8} {'all pairs':>9} "
           f"{'min-max pair':>13} {'lat idle':>15} {'lat loaded':>15} "
           f"{'CPU 1/all/load':>15}")
    print(hdr)
    print("-" * len(hdr))
    for t in topos:
        d = os.path.join(base, t)
        one = results(d, "bw1", False)
        allp = results(d, "bwall", False)
        lat0 = results(d, "lat0", True)
        latl = results(d, "latload", True)
        c = cpu(d)
        # clients of the all-pairs phase: bwall.<client>.txt or .failed
        pairs = len({f.split(".")[1] for f in os.listdir(d)
                     if f.startswith("bwall.")}) if os.path.isdir(d) else 0
        bw1 = f"{next(iter(one.values()))['bw']:.0f}" if one else "-"
        agg = f"{sum(r['bw'] for r in allp.values()):.0f}" if allp else "-"
        mm = (f"{min(r['bw'] for r in allp.values()):.0f}-"
              f"{max(r['bw'] for r in allp.values()):.0f}") if allp else "-"
        if allp and len(allp) < pairs:
            agg += f" ({len(allp)}/{pairs})"

        def lat(r):
            if not r:
                return "-"
            v = next(iter(r.values()))
            return f"{v['p50']:.0f}/{v['p99']:.0f}"
        cp = "/".join(c.get(p, "-") for p in ("bw1", "bwall", "latload"))
        print(f"{t:<16} {pairs:>5} {bw1:>8} {agg:>9} {mm:>13} {lat(lat0):>15} "
              f"{lat(latl):>15} {cp:>15}")


if __name__ == "__main__":
    main()
