#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Turn the benchmark's raw output (tools/bench/sfab-vs-rxe.sh: perftest
and ibverbs ping-pong in DIR/<case>.<tag>.txt, fio's DIR/nvme_*.<tag>.json,
DIR/gds.txt) into the results: sfab_0 against rxe at MTU 1500 and at MTU
9000, side by side, each ratio taken against rxe's better figure; the
targets of issue 16; latency percentiles; then GPU-direct storage against
the bounce through host RAM.  With --plot PREFIX, also PREFIX.svg and
PREFIX.png (gnuplot): latency and bandwidth against message size.

usage: report.py DIR [--plot PREFIX]
"""
import json
import math
import os
import re
import shutil
import subprocess
import sys

TAGS = ("sfab_0", "rxe1500", "rxe9000")
RXE = ("rxe1500", "rxe9000")

LAT_SIZES = (2, 64, 1024, 4096, 65536, 1048576)
BW_SIZES = (64, 4096, 65536, 1048576)
PP_SIZES = (1, 4096, 65536, 1048576)

# the targets: case, what, metric, better ("low"/"high"), ratio target,
# absolute target for sfab_0 (or None)
TARGETS = [
    ("send_lat_2", "ib_send_lat 2 B, p50", "p50", "us", "low", 0.05, None),
    ("write_lat_2", "ib_write_lat 2 B, p50", "p50", "us", "low", 0.05, None),
    ("read_lat_2", "ib_read_lat 2 B, p50", "p50", "us", "low", 0.05, None),
    ("rc_pp_1", "ibv_rc_pingpong 1 B, per iter", "usec", "us", "low", 0.05, None),
    ("write_bw_64", "ib_write_bw 64 B, message rate", "mpps", "Mmsg/s", "high", 20, None),
    ("write_bw_65536", "ib_write_bw 64 KiB, bandwidth", "bw", "MiB/s", "high", 50, 1024),
    ("read_bw_65536", "ib_read_bw 64 KiB, bandwidth", "bw", "MiB/s", "high", 50, 1024),
    ("nvme_qd1", "NVMe-oF 4 KiB randread QD1, mean", "lat", "us", "low", 1, None),
    ("nvme_qd32", "NVMe-oF 4 KiB randread QD32", "kiops", "kIOPS", "high", 1, None),
]


def num(s):
    """A finite positive float from perftest's text, or None."""
    try:
        v = float(s)
    except ValueError:
        return None
    return v if math.isfinite(v) and v > 0 else None


def parse_perftest(text, lat):
    """The first result row of a perftest report: for a latency test its
    t_typical (perftest's median), average, 99% and 99.9% percentiles;
    for a bandwidth test its average bandwidth and message rate."""
    for line in text.splitlines():
        f = line.split()
        if len(f) < 5 or not f[0].isdigit() or not f[1].isdigit():
            continue
        if lat:
            if len(f) < 9:
                continue
            r = {"p50": num(f[4]), "avg": num(f[5]), "p99": num(f[7]),
                 "p999": num(f[8])}
        else:
            r = {"bw": num(f[3]), "mpps": num(f[4])}
        return r if all(v is not None for v in r.values()) else None
    return None


def parse_pingpong(text):
    """The ibverbs examples' "N iters in T seconds = U usec/iter"."""
    m = re.search(r"iters in [0-9.]+ seconds = ([0-9.]+) usec/iter", text)
    v = num(m.group(1)) if m else None
    return {"usec": v} if v else None


def parse_fio(path, case):
    """fio's JSON: the mean completion latency (QD1) or the IOPS (QD32)."""
    try:
        with open(path) as f:
            job = json.load(f)["jobs"][0]["read"]
    except (OSError, ValueError, KeyError, IndexError):
        return None
    if case == "nvme_qd1":
        v = num(str(job.get("clat_ns", {}).get("mean", 0) / 1000.0))
        return {"lat": v} if v else None
    v = num(str(job.get("iops", 0) / 1000.0))
    return {"kiops": v} if v else None


def load(d, case, tag):
    """What one case reported on one device, or None (failed, not run)."""
    if case.startswith("nvme_"):
        return parse_fio(os.path.join(d, f"{case}.{tag}.json"), case)
    try:
        with open(os.path.join(d, f"{case}.{tag}.txt")) as f:
            text = f.read()
    except OSError:
        return None
    if "_pp_" in case:
        return parse_pingpong(text)
    return parse_perftest(text, "_lat_" in case)


def ran(d, case, tag):
    """The run took CASE on TAG: its output, or its .failed mark, is there."""
    return any(os.path.exists(os.path.join(d, f"{case}.{tag}.{x}"))
               for x in ("txt", "json", "failed"))


def best_rxe(res, metric, better):
    """rxe's better figure of its two MTUs, and which it was."""
    got = [(r[metric], t) for t in RXE if (r := res.get(t)) and r.get(metric)]
    if not got:
        return None, None
    return (min if better == "low" else max)(got)


def fmt(v, digits=3):
    return f"{v:.{digits}f}" if v is not None else "-"


def ratio_str(s, r):
    return f"{s / r:.3f}" if s and r else "-"


def table(title, hdr, rows):
    widths = [max(len(str(x)) for x in col) for col in zip(hdr, *rows)]
    line = lambda r: "  ".join(str(x).rjust(w) if i else str(x).ljust(w)
                               for i, (x, w) in enumerate(zip(r, widths)))
    return [title, line(hdr), "-" * len(line(hdr))] + [line(r) for r in rows] + [""]


def targets(d):
    rows = []
    for case, what, metric, unit, better, tgt, absolute in TARGETS:
        res = {t: load(d, case, t) for t in TAGS}
        vals = [res[t][metric] if res[t] else None for t in TAGS]
        b, btag = best_rxe(res, metric, better)
        s = vals[0]
        met = "-"
        if s and b:
            rt = s / b
            met = rt <= tgt if better == "low" else rt >= tgt
            if absolute is not None:
                met = met and s >= absolute
            met = "yes" if met else "no"
        t = f"{'<=' if better == 'low' else '>='}{tgt:g}"
        if absolute is not None:
            t += f", >={absolute}"
        rows.append((f"{what} [{unit}]", fmt(vals[0]), fmt(vals[1]), fmt(vals[2]),
                     btag or "-", ratio_str(s, b), t, met))
    return table("Targets (issue 16): sfab_0 against rxe's better MTU",
                 ("case", "sfab_0", "rxe1500", "rxe9000", "best rxe", "sfab/rxe",
                  "target", "met"), rows)


def latencies(d):
    rows = []
    for tool in ("send", "write", "read"):
        for size in LAT_SIZES:
            rows.append(lat_row(d, f"{tool}_lat_{size}", f"ib_{tool}_lat {size} B"))
    rows.append(lat_row(d, "atomic_lat_8", "ib_atomic_lat 8 B"))
    return table("perftest latency, us: p50 (t_typical) / p99 / p99.9",
                 ("case", "sfab_0", "rxe1500", "rxe9000", "p50 sfab/rxe"), rows)


def compare_row(d, case, what, metric, better, cell, missing):
    """One row: WHAT, each device's CELL(result) (MISSING where it has
    none), and sfab_0's METRIC against rxe's better figure."""
    res = {t: load(d, case, t) for t in TAGS}
    # a case the run did not take (BENCH_CASES, BENCH_DEVS) is "-"
    cells = [cell(r) if (r := res[t]) else
             missing if ran(d, case, t) else "-" for t in TAGS]
    b, _ = best_rxe(res, metric, better)
    s = res["sfab_0"][metric] if res["sfab_0"] else None
    return (what, *cells, ratio_str(s, b))


def lat_row(d, case, what):
    return compare_row(d, case, what, "p50", "low",
                       lambda r: f"{r['p50']:.2f}/{r['p99']:.2f}/{r['p999']:.2f}", "failed")


def bandwidths(d):
    rows = []
    cases = [(f"{tool}_bw_{size}", f"ib_{tool}_bw {size} B")
             for tool in ("send", "write", "read") for size in BW_SIZES]
    cases += [("atomic_bw_8", "ib_atomic_bw 8 B"),
              ("write_bw_65536_q4", "ib_write_bw 64 KiB, 4 QPs"),
              ("read_bw_65536_q4", "ib_read_bw 64 KiB, 4 QPs")]
    for case, what in cases:
        rows.append(compare_row(d, case, what, "bw", "high",
                                lambda r: f"{r['bw']:.1f} ({r['mpps']:.4f})", "failed"))
    return table("perftest bandwidth, MiB/s (message rate, Mmsg/s)",
                 ("case", "sfab_0", "rxe1500", "rxe9000", "sfab/rxe"), rows)


def pingpongs(d):
    rows = []
    cases = []
    for size in PP_SIZES:
        cases += [(f"rc_pp_{size}", f"rc {size} B"), (f"rc_pp_e_{size}", f"rc -e {size} B"),
                  (f"uc_pp_{size}", f"uc {size} B"), (f"srq_pp_{size}", f"srq {size} B")]
    for size in (1, 1024, 4096):
        cases += [(f"ud_pp_{size}", f"ud {size} B"), (f"ud_pp_e_{size}", f"ud -e {size} B")]
    for m in (256, 512, 1024, 2048, 4096):
        cases.append((f"rc_pp_mtu{m}_65536", f"rc 64 KiB, path MTU {m}"))
    for case, what in cases:
        rows.append(compare_row(d, case, what, "usec", "low",
                                lambda r: fmt(r["usec"], 1), "-"))
    return table("ibverbs ping-pong, us per round trip (- : failed, or beyond rxe1500's MTU)",
                 ("case", "sfab_0", "rxe1500", "rxe9000", "sfab/rxe"), rows)


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
        with open(os.path.join(d, "gds.txt")) as f:
            lines = f.read().splitlines()
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


# the plot's panels: title, y label, case pattern, sizes, metric, log y
PANELS = [
    ("ib_write_lat, p50", "us", "write_lat_{}", LAT_SIZES, "p50"),
    ("ib_write_bw", "MiB/s", "write_bw_{}", BW_SIZES, "bw"),
    ("ib_read_bw", "MiB/s", "read_bw_{}", BW_SIZES, "bw"),
    ("ibv_rc_pingpong, polling", "us per round trip", "rc_pp_{}", PP_SIZES, "usec"),
]


def plot(d, prefix):
    """PREFIX.svg and PREFIX.png: the panels above, sfab_0 against both
    rxe MTUs, message size on a log axis.  Lines saying what was made."""
    gp = shutil.which("gnuplot")
    if not gp:
        return ["plot: no gnuplot (tools/setup/host-deps.sh installs gnuplot-nox)"]
    series = {}
    for i, (_, _, pat, sizes, metric) in enumerate(PANELS):
        for tag in TAGS:
            pts = [(size, r[metric]) for size in sizes
                   if (r := load(d, pat.format(size), tag)) and r.get(metric)]
            if pts:
                path = f"{prefix}.{i}.{tag}.dat"
                with open(path, "w") as f:
                    f.writelines(f"{x} {y}\n" for x, y in pts)
                series[(i, tag)] = path
    script = [
        "set termoption noenhanced",
        "set multiplot layout 2,2 title 'sfab_0 against rdma_rxe, same two guests, one run'",
        "set logscale xy", "set grid", "set key top left", "set xrange [1:2097152]",
        "set xtics ('1' 1, '64' 64, '1K' 1024, '4K' 4096, '64K' 65536, '1M' 1048576)",
        "set xlabel 'message size (bytes)'",
    ]
    for i, (title, ylab, _, _, _) in enumerate(PANELS):
        script += [f"set title '{title}'", f"set ylabel '{ylab}'"]
        plots = [f"'{series[(i, tag)]}' with linespoints title '{tag}'"
                 for tag in TAGS if (i, tag) in series]
        script.append("plot " + (", ".join(plots) if plots else "1/0 title 'no data'"))
    script.append("unset multiplot")
    made = []
    for term, ext in (("svg size 1200,900 dynamic", "svg"),
                      ("pngcairo size 1200,900", "png")):
        out = f"{prefix}.{ext}"
        p = subprocess.run([gp], input="\n".join([f"set terminal {term}", f"set output '{out}'"] +
                                                 script) + "\n",
                           capture_output=True, text=True)
        if p.returncode == 0 and os.path.getsize(out) > 0:
            made.append(out)
        else:
            return [f"plot: gnuplot failed: {p.stderr.strip()[-300:]}"]
    return [f"plot: {' '.join(made)}"]


def main(argv):
    if len(argv) not in (2, 4) or (len(argv) == 4 and argv[2] != "--plot"):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    d = argv[1]
    out = ["sfab against rdma_rxe, same two guests, one run; rxe1500: eth0 at MTU 1500",
           "(RoCE MTU 1024), rxe9000: at MTU 9000 (RoCE MTU 4096); ratios against rxe's",
           f"better figure (raw output: {d})", ""]
    out += targets(d) + latencies(d) + bandwidths(d) + pingpongs(d) + gds(d)
    if len(argv) == 4:
        out += [""] + plot(d, argv[3])
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
