#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""make sim-scale: the fabric simulation at growing sizes, one process each.

    tools/sim/scale.py [OUT_DIR]        (default build/sim/scale)

Three-level fat trees of 16, 64, 256, 1024, 4096, 8192, 16384 and 32768
HCAs (sfab-sim --topo=fat3, full bisection: HCAs per leaf = aggregation
switches per pod, leaves per pod = core switches per aggregation index)
under a random permutation of 8 messages of 64 KiB per HCA, then a
dragonfly of 1056 HCAs under the same traffic, each run only while the
time budget allows it (SFAB_SIM_SCALE_S seconds, default 720: a size is
skipped when the last run's wall time, scaled by the growth in events,
would pass what is left).  Writes, under OUT_DIR:

  results.txt           the table: HCAs, switches, events, events/s, wall
                        s, RSS MiB, KiB per HCA, throughput per HCA, p50
                        and p99 latency, drops
  run-N.out             each run's key=value output
  lat-N.txt, series-N.txt   each run's per-message latencies and
                        received payload every microsecond of virtual time
  latency-cdf.png       the latency CDFs, one line per size
  throughput.png        the received throughput per HCA over time
  scaling.png           events per second and memory per HCA against HCAs
  failover-on.txt, failover-off.txt   the fast failover scenario (8
                        leaves, 4 spines, 8 HCAs a leaf, leaf 0's up-link to
                        spine 0 pulled 10 us in) with and without fast
                        failover: received payload every microsecond
  failover.png          their throughput over time

gnuplot (gnuplot-nox, tools/setup/host-deps.sh) draws the plots; without
it the table is still written.  Exit status 1 when a run failed (a message
missing, a drop, a crash), 2 for a bad argument.
"""
import glob
import os
import shutil
import subprocess
import sys
import time

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("SFAB_BUILD", os.path.join(TOP, "build"))
SIM = os.path.join(BUILD, "sim", "sfab-sim")

# (label, sfab-sim options); HCAs = pods x leaves x per
SIZES = [(f"fat3 {p}x{l}x{h}",
          ["--topo=fat3", f"--pods={p}", f"--leaves={l}", f"--spines={h}",
           f"--cores={l}", f"--per={h}"])
         for p, l, h in ((4, 2, 2), (4, 4, 4), (16, 4, 4), (16, 8, 8),
                         (16, 16, 16), (32, 16, 16), (64, 16, 16), (128, 16, 16))]
SIZES.append(("dragonfly 33x8x4",
              ["--topo=dragonfly", "--groups=33", "--routers=8", "--per=4",
               "--globals=4"]))
TRAFFIC = ["--scenario=permutation", "--bytes=65536", "--count=8", "--seed=1",
           "--sample-us=1", "--limit-ms=100"]


def parse(out):
    kv = {}
    for line in out.splitlines():
        k, sep, v = line.partition("=")
        if sep:
            kv[k] = v
    return kv


def gnuplot(script, out):
    gp = shutil.which("gnuplot")
    if not gp:
        return f"{out}: no gnuplot (tools/setup/host-deps.sh installs gnuplot-nox)"
    p = subprocess.run([gp], input="\n".join(
        ["set terminal pngcairo size 1000,700", f"set output '{out}'",
         "set termoption noenhanced", "set grid"] + script) + "\n",
        capture_output=True, text=True)
    if p.returncode or not os.path.getsize(out):
        return f"{out}: gnuplot failed: {p.stderr.strip()[-300:]}"
    return out


def cdf(lat, path):
    """latency_ns column of a --lat-file, as "LAT_US FRACTION" lines"""
    v = []
    with open(lat) as f:
        for line in f:
            if not line.startswith("#"):
                v.append(int(line.split()[3]))
    v.sort()
    step = max(1, len(v) // 2000)
    with open(path, "w") as f:
        for i in range(0, len(v), step):
            f.write(f"{v[i] / 1000.0} {(i + 1) / len(v)}\n")
        if v:
            f.write(f"{v[-1] / 1000.0} 1\n")


def plots(out, runs):
    made = []
    cdfs = []
    for i, (label, kv) in enumerate(runs):
        lat = os.path.join(out, f"lat-{i}.txt")
        if os.path.exists(lat):
            cdf(lat, os.path.join(out, f"cdf-{i}.dat"))
            cdfs.append(f"'{out}/cdf-{i}.dat' with lines title '{label}: {kv['hcas']} HCAs'")
    if cdfs:
        made.append(gnuplot(["set title 'message latency, permutation, 8 x 64 KiB per HCA'",
                             "set xlabel 'latency (us)'", "set ylabel 'fraction of messages'",
                             "set key bottom right", "plot " + ", ".join(cdfs)],
                            os.path.join(out, "latency-cdf.png")))
    series = [f"'{out}/series-{i}.txt' using 1:3 with lines title '{label}: {kv['hcas']} HCAs'"
              for i, (label, kv) in enumerate(runs)
              if os.path.exists(os.path.join(out, f"series-{i}.txt"))]
    if series:
        made.append(gnuplot(["set title 'received payload per HCA, every us of virtual time'",
                             "set xlabel 'virtual time (us)'", "set ylabel 'Gb/s per HCA'",
                             "set key top right", "plot " + ", ".join(series)],
                            os.path.join(out, "throughput.png")))
    fat = [(kv, label) for label, kv in runs if label.startswith("fat3")]
    if fat:
        dat = os.path.join(out, "scaling.dat")
        with open(dat, "w") as f:
            for kv, _ in fat:
                f.write(f"{kv['hcas']} {kv['traffic_events_per_s']} {kv['rss_per_hca_kib']}\n")
        made.append(gnuplot(["set title 'fat3, one process: speed and memory against size'",
                             "set logscale x 2", "set xlabel 'HCAs'",
                             "set ylabel 'ns-3 events per wall second'",
                             "set y2label 'peak RSS per HCA (KiB)'", "set y2tics",
                             "set ytics nomirror", "set yrange [0:*]", "set y2range [0:*]",
                             f"plot '{dat}' using 1:2 with linespoints title 'events/s', "
                             f"'{dat}' using 1:3 axes x1y2 with linespoints title 'KiB per HCA'"],
                            os.path.join(out, "scaling.png")))
    # the fast failover runs' hook: their throughput timelines, if written
    fo = sorted(glob.glob(os.path.join(out, "failover-*.txt")))
    if fo:
        made.append(gnuplot(["set title 'fast failover: leaf 0 up-link to spine 0 pulled "
                             "at 10 us (8 leaves, 4 spines, 64 HCAs, 32 x 64 KiB each)'",
                             "set xlabel 'virtual time since the traffic started (us)'",
                             "set ylabel 'received payload, Gb/s per HCA'",
                             "set arrow from 10, graph 0 to 10, graph 1 nohead dt 2",
                             "plot " + ", ".join(
                                 f"'{p}' using 1:3 with lines title '{os.path.basename(p)}'"
                                 for p in fo)],
                            os.path.join(out, "failover.png")))
    return made


def main(argv):
    if len(argv) > 2 or (len(argv) == 2 and argv[1].startswith("-")):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    out = argv[1] if len(argv) == 2 else os.path.join(BUILD, "sim", "scale")
    try:
        budget = float(os.environ.get("SFAB_SIM_SCALE_S", "720"))
    except ValueError:
        budget = -1
    if budget <= 0:
        print("scale: SFAB_SIM_SCALE_S must be a number of seconds above 0", file=sys.stderr)
        return 2
    b = subprocess.run(["make", "-s", "-C", os.path.join(TOP, "tools", "sim"), f"O={BUILD}"])
    if b.returncode:
        return 1
    os.makedirs(out, exist_ok=True)
    for old in glob.glob(os.path.join(out, "run-*.out")) + \
            glob.glob(os.path.join(out, "lat-*.txt")) + \
            glob.glob(os.path.join(out, "series-*.txt")) + \
            glob.glob(os.path.join(out, "failover-*")) + \
            glob.glob(os.path.join(out, "cdf-*.dat")):
        os.unlink(old)
    t0 = time.monotonic()
    runs, failed, last = [], False, None
    rows = [f"{'fabric':<20} {'HCAs':>6} {'switches':>8} {'events':>11} {'events/s':>9} "
            f"{'wall s':>7} {'RSS MiB':>8} {'KiB/HCA':>8} {'Gb/s/HCA':>8} {'p50 us':>7} "
            f"{'p99 us':>7} {'drops':>5}"]
    skipped = []
    for label, args in SIZES:
        left = budget - (time.monotonic() - t0)
        if last:
            # the next run's wall time: events grow with HCAs, their rate
            # falls as the fabric outgrows the caches
            lkv, lwall = last
            want = lwall * int(args_hcas(args)) / int(lkv["hcas"]) * 1.5
            if want > left:
                skipped.append(f"{label} (about {want:.0f} s, {left:.0f} s left)")
                continue
        i = len(runs)
        cmd = [SIM] + TRAFFIC + args + [f"--lat-file={out}/lat-{i}.txt",
                                        f"--series={out}/series-{i}.txt"]
        start = time.monotonic()
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        wall = time.monotonic() - start
        with open(os.path.join(out, f"run-{i}.out"), "w") as f:
            f.write(" ".join(cmd) + "\n" + p.stdout)
        kv = parse(p.stdout)
        ok = (p.returncode == 0 and kv.get("messages") == kv.get("expected_messages")
              and kv.get("drops") == "0")
        if "hcas" not in kv or "max_rss_kib" not in kv:
            print(f"scale: {label}: the run failed (exit {p.returncode}); {out}/run-{i}.out")
            failed = True
            break
        failed |= not ok
        runs.append((label, kv))
        if label.startswith("fat3"):
            last = (kv, wall)
        rows.append(f"{label:<20} {kv['hcas']:>6} {kv['switches']:>8} "
                    f"{kv['traffic_events']:>11} {kv['traffic_events_per_s']:>9} "
                    f"{wall:>7.1f} {int(kv['max_rss_kib']) / 1024:>8.1f} "
                    f"{float(kv['rss_per_hca_kib']):>8.1f} "
                    f"{float(kv['rx_payload_gbps_per_hca']):>8.1f} "
                    f"{int(kv['lat_p50_ns']) / 1000:>7.1f} {int(kv['lat_p99_ns']) / 1000:>7.1f} "
                    f"{kv['drops']:>5}" + ("" if ok else "  FAILED"))
        print(rows[-1], flush=True)
    rows.append("")
    rows.append("permutation, 8 messages of 64 KiB per HCA (seed 1), 400 Gb/s HCAs, "
                "800 Gb/s switch ports, 260 ns a hop; events and events/s from the "
                "traffic's start, wall s the whole process (building and routing the "
                "fabric too), RSS the process's peak")
    if skipped:
        rows.append("not run for the budget (SFAB_SIM_SCALE_S=%g): %s" % (budget, "; ".join(skipped)))
    # fast failover, with and without: the throughput timeline and the figures
    for name, extra in (("on", []), ("off", ["--failover=0"])):
        cmd = [SIM, "--scenario=failover", "--leaves=8", "--spines=4", "--per=8",
               "--fail-ns=10000", "--sample-us=1", "--limit-ms=0.2",
               f"--series={out}/failover-{name}.txt"] + extra
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        with open(os.path.join(out, f"failover-{name}.out"), "w") as f:
            f.write(" ".join(cmd) + "\n" + p.stdout)
        kv = parse(p.stdout)
        if "lost_pkts" not in kv:
            print(f"scale: failover {name}: the run failed (exit {p.returncode})")
            failed = True
            continue
        rows.append(f"failover {name}: leaf's first packet on an alternate "
                    f"{kv['leaf_first_alt_ns']} ns after the pull, far leaves' routes moved "
                    f"{kv['remote_moved_ns']} ns after; {kv['lost_pkts']} packets lost "
                    f"({kv['lost_on_cable']} on the cable, {kv['spine_discards']} at its "
                    f"spine); {kv['messages']} of {kv['expected_messages']} messages")
    rows.append(f"total {time.monotonic() - t0:.0f} s")
    with open(os.path.join(out, "results.txt"), "w") as f:
        f.write("\n".join(rows) + "\n")
    for m in plots(out, runs):
        print(f"scale: {m}")
    print(f"scale: {out}/results.txt")
    return 1 if failed else 0


def args_hcas(args):
    v = {a.split("=")[0]: a.split("=")[1] for a in args}
    if v["--topo"] == "fat3":
        return int(v["--pods"]) * int(v["--leaves"]) * int(v["--per"])
    return int(v["--groups"]) * int(v["--routers"]) * int(v["--per"])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
