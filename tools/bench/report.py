#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Turn the benchmark's raw perftest output (tools/bench/sfab-vs-rxe.sh,
DIR/<case>.<dev>.txt, fio's DIR/nvme_*.<dev>.json) into the results table:
sfab_0 against rxe0, side by side, with the ratio and the target of each
line; then GPU-direct storage against the bounce through host RAM
(DIR/gds.txt)."""
import json
import math
import os
import re
import sys

# case, what, unit, better ("low"/"high"), target ratio sfab/rxe
ROWS = [
    ("send_lat_2", "ib_send_lat 2 B, t_typical", "us", "low", 0.05),
    ("send_lat_64", "ib_send_lat 64 B, t_typical", "us", "low", 0.05),
    ("write_lat_2", "ib_write_lat 2 B, t_typical", "us", "low", 0.05),
    ("write_lat_64", "ib_write_lat 64 B, t_typical", "us", "low", 0.05),
    ("write_bw_64", "ib_write_bw 64 B, message rate", "Mmsg/s", "high", 20),
    ("write_bw_64k", "ib_write_bw 64 KiB, bandwidth", "MiB/s", "high", 50),
    ("read_bw_64k", "ib_read_bw 64 KiB, bandwidth", "MiB/s", "high", 50),
    ("nvme_qd1", "NVMe-oF 4 KiB randread QD1, mean lat", "us", "low", 1),
    ("nvme_qd32", "NVMe-oF 4 KiB randread QD32", "kIOPS", "high", 1),
]


def parse_fio(path, case):
    """fio's JSON: the mean completion latency (QD1) or the IOPS (QD32)."""
    try:
        job = json.load(open(path))["jobs"][0]["read"]
    except (OSError, ValueError, KeyError, IndexError):
        return None
    if case == "nvme_qd1":
        v = job.get("clat_ns", {}).get("mean", 0) / 1000.0
    else:
        v = job.get("iops", 0) / 1000.0
    return v if math.isfinite(v) and v > 0 else None


def parse(path, case):
    """The number a case reports, or None."""
    if case.startswith("nvme_"):
        return parse_fio(path[:-4] + ".json", case)
    try:
        text = open(path).read()
    except OSError:
        return None
    for line in text.splitlines():
        f = line.split()
        if len(f) < 5 or not re.fullmatch(r"\d+", f[0]) or not re.fullmatch(r"\d+", f[1]):
            continue
        try:
            if "lat" in case:
                v = float(f[4])             # t_typical[usec]
            elif case == "write_bw_64":
                v = float(f[4])             # MsgRate[Mpps]
            else:
                v = float(f[3])             # BW average[MB/sec]
        except ValueError:
            continue
        # perftest prints inf/nan when it timed nothing usable
        return v if math.isfinite(v) and v > 0 else None
    return None


def median(v):
    v = sorted(v)
    n = len(v)
    return (v[n // 2] + v[(n - 1) // 2]) / 2 if n else None


def gds(d):
    """DIR/gds.txt ("gds BYTES USEC COPY_USEC", "bounce ..." lines) as
    report lines: the medians, their ratio, and the copies alone."""
    runs = {"gds": [], "bounce": [], "copy": []}
    size = None
    try:
        lines = open(os.path.join(d, "gds.txt")).read().splitlines()
    except OSError:
        return ["GPU-direct storage: no figures (see the bench's skip: lines)"]
    for line in lines:
        f = line.split()
        if len(f) != 4 or f[0] not in ("gds", "bounce"):
            continue
        try:
            b, us, cp = int(f[1]), float(f[2]), float(f[3])
        except ValueError:
            continue
        if b <= 0 or not (math.isfinite(us) and us > 0 and math.isfinite(cp)):
            continue
        size = b
        runs[f[0]].append(us)
        if f[0] == "bounce":
            runs["copy"].append(cp)
    g, b, c = median(runs["gds"]), median(runs["bounce"]), median(runs["copy"])
    out = [f"GPU-direct storage over sfab_0: {size or 0} bytes in 128 KiB O_DIRECT reads, "
           f"median of {len(runs['gds'])} and {len(runs['bounce'])} runs"]
    hdr = f"{'path':52} {'ms':>10}"
    out += [hdr, "-" * len(hdr)]
    out.append(f"{'gds: accelerator memory at both ends':52} "
               f"{g / 1000 if g else float('nan'):>10.1f}")
    out.append(f"{'bounce: host RAM at both ends, then memcpy':52} "
               f"{b / 1000 if b else float('nan'):>10.1f}")
    out.append(f"{'  of which the memcpy into accelerator memory':52} "
               f"{c / 1000 if c is not None else float('nan'):>10.1f}")
    out.append(f"{'gds / bounce (lower: gds faster)':52} {g / b if g and b else float('nan'):>10.3f}")
    return out


def main(d):
    out = ["sfab against rdma_rxe, same two guests, one run",
           f"(raw perftest output: {d})", ""]
    hdr = f"{'case':40} {'sfab_0':>12} {'rxe0':>12} {'sfab/rxe':>10} {'target':>8}  met"
    out += [hdr, "-" * len(hdr)]
    for case, what, unit, better, target in ROWS:
        s = parse(os.path.join(d, f"{case}.sfab_0.txt"), case)
        r = parse(os.path.join(d, f"{case}.rxe0.txt"), case)
        fs = f"{s:.3f}" if s is not None else "failed"
        fr = f"{r:.3f}" if r is not None else "failed"
        if s and r:
            ratio = s / r
            met = ratio <= target if better == "low" else ratio >= target
            rs, ms = f"{ratio:.3f}", "yes" if met else "no"
        else:
            rs, ms = "-", "-"
        tgt = f"{'<=' if better == 'low' else '>='}{target:g}"
        out.append(f"{what + ' [' + unit + ']':40} {fs:>12} {fr:>12} {rs:>10} {tgt:>8}  {ms}")
    out += [""] + gds(d)
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
