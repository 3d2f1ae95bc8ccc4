#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""ibnet-compare.py CHECK_OUTPUT IBNETDISCOVER_OUTPUT

Compare ibnetdiscover's topology (infiniband-diags' default output) with
the fabric a topology file describes (`tools/sfab-lab check TOPO`):
the same switches (node GUID, port count), the same HCAs (node GUID; port
GUID = node GUID + 1), and the same cables, port to port, seen from both
ends.  Prints what differs; exit 0 when nothing does.
"""
import re
import sys


def expected(text):
    switches, cas, names, cables = {}, {}, {}, set()
    links = []
    cur = None
    for line in text.splitlines():
        m = re.match(r'switch (\S+): (\d+) ports, guid 0x([0-9a-f]+)', line)
        if m:
            cur = m.group(1)
            names[cur] = int(m.group(3), 16)
            switches[names[cur]] = int(m.group(2))
            continue
        m = re.match(r'\s+port (\d+) <- node (\S+)', line)
        if m:
            links.append((cur, int(m.group(1)), m.group(2), 1))
            continue
        m = re.match(r'\s+port (\d+) (?:->|<-) switch (\S+) port (\d+)', line)
        if m:
            links.append((cur, int(m.group(1)), m.group(2), int(m.group(3))))
            continue
        m = re.match(r'node (\S+): guid 0x([0-9a-f]+)', line)
        if m:
            names[m.group(1)] = int(m.group(2), 16)
            cas[names[m.group(1)]] = 1
    for a, pa, b, pb in links:
        ea, eb = (names[a], pa), (names[b], pb)
        cables.add(frozenset((ea, eb)))
    return switches, cas, cables


def discovered(text):
    """ibnetdiscover: blocks 'Switch N "S-guid"' / 'Ca N "H-guid"', then
    '[p] "X-guid"[q]' (a switch's ports) or '[p](portguid) "X-guid"[q]'"""
    switches, cas, cables, bad = {}, {}, set(), []
    cur = None
    for line in text.splitlines():
        m = re.match(r'(Switch|Ca)\s+(\d+)\s+"[SH]-([0-9a-f]+)"', line)
        if m:
            cur = int(m.group(3), 16)
            (switches if m.group(1) == "Switch" else cas)[cur] = int(m.group(2))
            continue
        m = re.match(r'\[(\d+)\](?:\(([0-9a-f]+)\))?\s+"[SH]-([0-9a-f]+)"\[(\d+)\]', line)
        if m and cur is not None:
            if m.group(2) and cur in cas and int(m.group(2), 16) != cur + 1:
                bad.append(f"HCA {cur:#x} port GUID {m.group(2)}, want {cur + 1:#x}")
            cables.add(frozenset(((cur, int(m.group(1))),
                                  (int(m.group(3), 16), int(m.group(4))))))
    return switches, cas, cables, bad


def end(e):
    return f"{e[0]:#018x}[{e[1]}]"


def main():
    want = expected(open(sys.argv[1]).read())
    got = discovered(open(sys.argv[2]).read())
    diffs = list(got[3])
    for what, w, g in (("switch", want[0], got[0]), ("HCA", want[1], got[1])):
        for guid in sorted(set(w) | set(g)):
            if guid not in g:
                diffs.append(f"{what} {guid:#018x} is not discovered")
            elif guid not in w:
                diffs.append(f"{what} {guid:#018x} is not in the topology")
            elif w[guid] != g[guid]:
                diffs.append(f"{what} {guid:#018x}: {g[guid]} ports, want {w[guid]}")
    for c in want[2] - got[2]:
        diffs.append("missing cable " + " - ".join(sorted(map(end, c))))
    for c in got[2] - want[2]:
        diffs.append("extra cable " + " - ".join(sorted(map(end, c))))
    for d in diffs:
        print("ibnetdiscover: " + d)
    if not diffs:
        print(f"ibnetdiscover matches the topology: {len(want[0])} switches, "
              f"{len(want[1])} HCAs, {len(want[2])} cables")
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
