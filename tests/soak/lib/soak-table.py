#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""The table of a soak (tests/soak/run-soak) from its lab share's soak/
directory: each end's PAIR.ROLE.result.json (lib/soak.py), each node's
NODE.json (lib/soak.guest.sh: restrack before and after, kmemleak) and
faults.json (lib/soak.host.sh).  Exit status 1 when a file is missing,
on any data error or leak, when no round completed, or when rounds were
hit and none recovered."""
import json
import os
import sys

PAIRS = {"a": ("n1", "n3"), "b": ("n4", "n2")}


def load(d, name, problems):
    try:
        with open(os.path.join(d, name)) as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        problems.append(f"{name}: {e}")
        return None


def main():
    d = sys.argv[1]
    problems = []
    res = {}
    for p in PAIRS:
        for role in ("requester", "responder"):
            res[p, role] = load(d, f"{p}.{role}.result.json", problems) or {}
    nodes = {n: load(d, f"{n}.json", problems) or {} for p in PAIRS for n in PAIRS[p]}
    faults = load(d, "faults.json", problems) or {}

    def g(p, role, k):
        return res[p, role].get(k, 0)

    rows = [
        ("rounds (requester)", lambda p: g(p, "requester", "rounds")),
        ("  completed", lambda p: g(p, "requester", "ok")),
        ("  hit by a fault", lambda p: g(p, "requester", "hit")),
        ("  recovered (next round ok)", lambda p: g(p, "requester", "recovered")),
        ("QPs created, both ends", lambda p: g(p, "requester", "qps") + g(p, "responder", "qps")),
        ("MRs registered, both ends", lambda p: g(p, "requester", "mrs") + g(p, "responder", "mrs")),
        ("CQs and PDs, both ends", lambda p: sum(g(p, r, k) for r in ("requester", "responder")
                                                  for k in ("cqs", "pds"))),
        ("RC SENDs received, checked", lambda p: g(p, "responder", "sends")),
        ("RDMA WRITEs read back", lambda p: g(p, "requester", "writes")),
        ("RDMA READs compared", lambda p: g(p, "requester", "reads")),
        ("atomics (fetch-add, cmp-swap)", lambda p: g(p, "requester", "atomics")),
        ("UD SENDs", lambda p: g(p, "requester", "ud_sent")),
        ("  received intact", lambda p: g(p, "responder", "ud_received")),
        ("  lost (counted)", lambda p: g(p, "responder", "ud_lost")),
        ("bytes checked", lambda p: g(p, "requester", "bytes_checked") +
         g(p, "responder", "bytes_checked")),
        ("data errors", lambda p: g(p, "requester", "data_errors") +
         g(p, "responder", "data_errors")),
    ]
    secs = max((g(p, "requester", "seconds") for p in PAIRS), default=0)
    hdr = ["", *(f"pair {p} ({a}->{b})" for p, (a, b) in PAIRS.items()), "total"]
    w0 = max(len(r[0]) for r in rows) + 2
    print(f"soak: {secs:.0f} s of traffic")
    print(hdr[0].ljust(w0) + "".join(h.rjust(18) for h in hdr[1:]))
    total = {}
    for name, fn in rows:
        vals = [fn(p) for p in PAIRS]
        total[name] = sum(vals)
        print(name.ljust(w0) + "".join(str(v).rjust(18) for v in vals + [sum(vals)]))
    cnt = {}
    for j in nodes.values():
        for k, v in (j or {}).get("counters", {}).items():
            cnt[k] = cnt.get(k, 0) + v
    if cnt:
        print("the HCAs' counters over the soak, all nodes: " +
              ", ".join(f"{k} {v}" for k, v in cnt.items()))
    else:
        problems.append("no node's port counters")
    served = sum(n.get("sm_restarts", 0) for n in nodes.values())
    print(f"faults injected: bit errors {faults.get('ber', 0)}, drops {faults.get('drop', 0)}, "
          f"flaps {faults.get('flap', 0)}, opensm restarts {faults.get('sm-restart', 0)} "
          f"({served} done)")
    leaks = []
    seen = 0
    for n, j in sorted(nodes.items()):
        if not j:
            continue
        seen += 1
        if j.get("restrack_before") != j.get("restrack_after"):
            leaks.append(f"{n}: restrack {j.get('restrack_after')!r}, "
                         f"before {j.get('restrack_before')!r}")
        if j.get("kmemleak") != "clean":
            leaks.append(f"{n}: kmemleak: {j.get('kmemleak')}")
    print(f"leaks: {len(leaks)} (restrack back to its count and kmemleak clean on "
          f"{seen - len({line.split(':')[0] for line in leaks})} of {len(nodes)} nodes)")
    for line in leaks:
        print(f"  {line}")
    derr = total["data errors"]
    for p in PAIRS:
        for role in ("requester", "responder"):
            for line in res[p, role].get("errors", []):
                print(f"  data error, pair {p} {role}: {line}")
            for line in res[p, role].get("hits", [])[-3:]:
                print(f"  hit, pair {p} {role}: {line}")
    for line in problems:
        print(f"missing: {line}")
    bad = bool(problems) or derr or leaks
    if total["  completed"] == 0:
        print("FAIL: no round completed")
        bad = True
    if total["  hit by a fault"] and not total["  recovered (next round ok)"]:
        print("FAIL: rounds were hit and none recovered")
        bad = True
    print(f"data errors {derr} (must be 0), leaks {len(leaks)} (must be 0): "
          f"{'FAIL' if bad else 'ok'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
