#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""fuzz/topo: the lab's topology parser (tools/sfab-lab, class Topology).

The parser is Python, which libFuzzer cannot drive (Debian has no atheris),
so this is a small coverage-guided mutation fuzzer of the same shape: line
coverage of the parser (sys.settrace, edges between consecutive lines)
decides which inputs join the corpus; inputs are mutated byte-wise and with
the format's own tokens, and spliced.  It takes libFuzzer's options and
prints its final statistics, so tests/fuzz/run treats it as the C targets:

  fuzz_topo.py [-max_total_time=S] [-runs=N] [-seed=N] [-artifact_prefix=P]
               [-timeout=S] [-rss_limit_mb=M] [-print_final_stats=1]
               CORPUS_DIR [SEED_DIR...]
  fuzz_topo.py FILE...          run these inputs once (a reproducer)
  SFAB_FUZZ_SEEDS=DIR fuzz_topo.py   write the seeds into DIR

Invariants, whatever the file holds (a topology is what a user, or a
script built from user input, hands to `sfab-lab run`): the parser either
refuses it with TopoError, whose message names the file (and line), or
returns a topology that holds together: valid unique names, every node
cabled once to a switch port that exists, cables recorded at both ends,
unique non-zero 64-bit GUIDs, opensm on a node, and describe() works.
Any other exception is a crash: the input is written as an artifact.
"""
import hashlib
import importlib.machinery
import importlib.util
import os
import random
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
LAB = os.path.join(TOP, "tools", "sfab-lab")

TOKENS = [
    b"switch", b"node", b"link", b"opensm", b"default", b"ethernet",
    b"ports=", b"guid=", b"desc=", b"vls=", b"vl-blocks=", b"rate-mbps=",
    b"hop-ns=", b"fc-period-us=", b"pcap=", b"mem=", b"accel=", b"accel-mem=",
    b"pcie=", b"nvme=", b"on", b"off", b"root", b"switch", b"sw1", b"n1",
    b"n2", b":", b":1", b":0", b":255", b"=", b"#", b"\"", b"'", b"\\", b" ",
    b"\n", b"\t", b"0x", b"0", b"1", b"-1", b"254", b"255", b"128", b"65536",
    b"0xffffffffffffffff", b"0x10000000000000000", b"1_000", b"0b1", b"0o7",
    b"9" * 40, b"shared", b"host", b"\xff", b"\x00", b"\xc3\xa9",
]


def load_topology():
    loader = importlib.machinery.SourceFileLoader("sfab_lab", LAB)
    spec = importlib.util.spec_from_loader("sfab_lab", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


LABMOD = load_topology()


class Crash(Exception):
    pass


def check(cond, what):
    if not cond:
        raise Crash("invariant: " + what)


def invariants(t, path):
    names = set()
    for name in t.order:
        check(LABMOD.NAME_RE.match(name) and name not in LABMOD.RESERVED,
              f"bad name {name!r} accepted")
        check(name not in names, f"{name} declared twice")
        names.add(name)
    check(t.switches, "no switch accepted")
    guids = set()
    for x in list(t.switches.values()) + list(t.nodes.values()):
        check(isinstance(x.guid, int) and 0 < x.guid < 2**64,
              f"{x.name}: guid {x.guid!r}")
        check(x.guid not in guids, f"{x.name}: guid 0x{x.guid:x} twice")
        guids.add(x.guid)
    for s, sw in t.switches.items():
        check(1 <= sw.ports <= 254, f"{s}: {sw.ports} ports")
        for p, ln in sw.links.items():
            check(1 <= p <= sw.ports, f"{s}: cable on port {p}")
            if ln[0] == "node":
                check(t.nodes[ln[1]].link == (s, p), f"{s}:{p} one-sided")
            else:
                other = t.switches[ln[1]].links.get(ln[2])
                check(other is not None and other[:3] == ("switch", s, p)
                      and other[3] != ln[3], f"{s}:{p} switch cable one-sided")
    for n, nd in t.nodes.items():
        check(nd.link is not None, f"node {n} uncabled")
        sw, p = nd.link
        check(t.switches[sw].links.get(p) == ("node", n),
              f"node {n} cable one-sided")
        check(128 <= nd.mem <= 65536, f"node {n}: mem {nd.mem}")
    if t.opensm:
        check(t.opensm[1] in t.nodes, "opensm not on a node")
    check(isinstance(t.describe(), str), "describe()")


def run_one(data, path):
    """True: the input covered something; raises Crash on a bug"""
    with open(path, "wb") as f:
        f.write(data)
    try:
        t = LABMOD.Topology(path)
    except LABMOD.TopoError as e:
        check(str(e).startswith(path), f"error without the file: {e}")
        return
    except Crash:
        raise
    except Exception:
        raise Crash("exception:\n" + traceback.format_exc())
    try:
        invariants(t, path)
    except Crash:
        raise
    except Exception:
        raise Crash("exception in a checked topology:\n" +
                    traceback.format_exc())


class Coverage:
    """edges between consecutive lines run in tools/sfab-lab"""

    def __init__(self):
        self.seen = set()
        self.new = 0
        self.prev = None

    def tracer(self, frame, event, arg):
        if frame.f_code.co_filename != LAB:
            return None
        if event == "line":
            edge = (self.prev, frame.f_lineno)
            self.prev = frame.f_lineno
            if edge not in self.seen:
                self.seen.add(edge)
                self.new += 1
        return self.tracer

    def run(self, fn, *args):
        self.new = 0
        self.prev = None
        sys.settrace(self.tracer)
        try:
            fn(*args)
        finally:
            sys.settrace(None)
        return self.new


def mutate(rng, data, corpus):
    b = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(7)
        at = rng.randint(0, len(b))
        if op == 0 and b:
            b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
        elif op == 1:
            b[at:at] = rng.choice(TOKENS)
        elif op == 2 and b:
            n = rng.randint(1, min(16, len(b)))
            del b[at:at + n]
        elif op == 3 and b:
            i = rng.randrange(len(b))
            n = rng.randint(1, min(64, len(b) - i))
            b[at:at] = b[i:i + n]
        elif op == 4 and corpus:
            other = rng.choice(corpus)
            i = rng.randint(0, len(other))
            b = b[:at] + other[i:]
        elif op == 5:
            b[at:at] = bytes([rng.randrange(256)])
        elif op == 6 and b:
            lines = bytes(b).split(b"\n")
            i = rng.randrange(len(lines))
            lines.insert(rng.randrange(len(lines) + 1), lines[i])
            b = bytearray(b"\n".join(lines))
    return bytes(b[:8192])


def write_seeds(d):
    os.makedirs(d, exist_ok=True)
    tdir = os.path.join(TOP, "tests", "configs", "topologies")
    for f in sorted(os.listdir(tdir)):
        if f.endswith(".topo"):
            with open(os.path.join(tdir, f), "rb") as src, \
                    open(os.path.join(d, f), "wb") as dst:
                dst.write(src.read())
    extra = {
        "options.topo": b"default mem=256\nswitch sw1 ports=4 guid=0x10 "
                        b"desc='a b' vls=4 pcap=off\nnode n1 mem=512 accel=on "
                        b"accel-mem=64 pcie=switch nvme=16\nnode n2 pcie=root\n"
                        b"link n1 sw1:1\nlink n2:1 sw1:2\nethernet n1 n2\n"
                        b"opensm n2\n",
        "two-switches.topo": b"switch a ports=2\nswitch b ports=2\nnode x\n"
                             b"node y\nlink a:1 b:1\nlink x a:2\nlink y b:2\n",
    }
    for name, text in extra.items():
        with open(os.path.join(d, name), "wb") as f:
            f.write(text)


def main(argv):
    seeds = os.environ.get("SFAB_FUZZ_SEEDS")
    if seeds:
        write_seeds(seeds)
        return 0
    opts, dirs = {}, []
    for a in argv:
        if a.startswith("-") and "=" in a:
            k, _, v = a[1:].partition("=")
            opts[k] = v
        else:
            dirs.append(a)
    tmp = tempfile.mkdtemp(prefix="fuzz-topo.")
    path = os.path.join(tmp, "input.topo")
    prefix = opts.get("artifact_prefix", "./")
    execs = new_units = 0
    t0 = time.time()
    try:
        # reproducers: files given by name
        if dirs and all(os.path.isfile(d) for d in dirs):
            for d in dirs:
                with open(d, "rb") as f:
                    run_one(f.read(), path)
                print(f"Executed {d}")
            return 0
        rng = random.Random(int(opts.get("seed", "0")) or None)
        limit = float(opts.get("max_total_time", "0")) or None
        runs = int(opts.get("runs", "-1"))
        cov = Coverage()
        corpus = []
        out_dir = dirs[0] if dirs else None
        if out_dir:
            os.makedirs(out_dir, exist_ok=True)
        for d in dirs:
            for f in sorted(os.listdir(d)):
                p = os.path.join(d, f)
                if os.path.isfile(p):
                    with open(p, "rb") as fh:
                        data = fh.read()
                    execs += 1
                    cur = data
                    if cov.run(run_one, data, path):
                        corpus.append(data)
        if not corpus:
            corpus.append(b"switch sw1\nnode n1\nlink n1 sw1:1\n")
        print(f"#{execs} INITED cov: {len(cov.seen)} corp: {len(corpus)}")
        while runs < 0 or execs < runs:
            if limit and time.time() - t0 >= limit:
                break
            cur = mutate(rng, rng.choice(corpus), corpus)
            execs += 1
            if cov.run(run_one, cur, path):
                corpus.append(cur)
                new_units += 1
                if out_dir:
                    name = hashlib.sha1(cur).hexdigest()
                    with open(os.path.join(out_dir, name), "wb") as f:
                        f.write(cur)
        print(f"Done {execs} runs in {time.time() - t0:.0f} second(s)")
        return 0
    except Crash as e:
        print(f"==ERROR: fuzz/topo: {e}")
        if "cur" in locals():
            name = prefix + "crash-" + hashlib.sha1(cur).hexdigest()
            with open(name, "wb") as f:
                f.write(cur)
            print(f"Test unit written to {name}")
            print("input: " + repr(cur[:400]))
        return 1
    finally:
        print(f"stat::number_of_executed_units: {execs}")
        print(f"stat::new_units_added: {new_units}")
        for f in os.listdir(tmp):
            os.unlink(os.path.join(tmp, f))
        os.rmdir(tmp)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
