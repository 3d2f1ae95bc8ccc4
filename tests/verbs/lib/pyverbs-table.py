#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""The pass/skip/fail table of an rdma-core run_tests.py -v log: counts,
then every skip reason with how many tests gave it, then the tests that
failed or ended in error, then what verbs/pyverbs does not accept.

    pyverbs-table.py LOG [--dev NAME] [--skips FILE] [--min-ok N]
                     [--versus LOG2 --versus-dev NAME2]

With --skips, every skip reason must match one of FILE's lines (see
tests/verbs/lib/pyverbs-skips; a line "TEST_RE | REASON_RE" allows the
reason only for tests whose "name (module.Class)" matches TEST_RE); with
--min-ok, at least N tests must pass.  With --versus, the same table of
LOG2 (another device's run of the same suite, on the same guest) follows,
then the tests each passes and the other does not, and LOG must have
passed at least as many tests as LOG2.  The exit status is 1 when the
suite did not finish, a test failed or ended in error, a skip is not
allowed, fewer than N passed, or fewer than LOG2 passed; else 0.  (LOG2's
own failures are listed, not held against LOG.)"""
import argparse
import collections
import re
import sys

RESULT = re.compile(r"^(test\w+) \(([\w.]+)\)(?:\n.*?)?\s\.\.\.\s(ok|skipped (.*)|ERROR|FAIL|expected failure|unexpected success)$",
                    re.M)


def load_skips(path):
    allowed = []
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            test, sep, reason = line.partition(" | ")
            if not sep:
                test, reason = "", line
            allowed.append((re.compile(test), re.compile(reason)))
    return allowed


class Run:
    """one run_tests.py -v log: counts, skip reasons, each test's result"""

    def __init__(self, path, allowed=None):
        text = open(path, errors="replace").read()
        self.counts = collections.Counter()
        self.skips = collections.Counter()
        self.result = {}
        self.bad, self.refused = [], []
        for m in RESULT.finditer(text):
            res = m.group(3)
            test = f"{m.group(1)} ({m.group(2)})"
            self.result[test] = "skipped" if res.startswith("skipped") else res
            if res.startswith("skipped"):
                self.counts["skipped"] += 1
                reason = m.group(4).strip("'\"")
                self.skips[reason] += 1
                if allowed is not None and not any(
                        t.search(test) and r.search(reason) for t, r in allowed):
                    self.refused.append(f"{test}: {reason}")
            else:
                self.counts[res] += 1
                if res in ("ERROR", "FAIL", "unexpected success"):
                    self.bad.append(f"{res}: {test}")
        self.ran = re.search(r"^Ran (\d+) tests in ([\d.]+)s", text, re.M)

    def table(self, dev):
        ran = self.ran
        print(f"rdma-core run_tests.py --dev {dev}: "
              f"{ran.group(1) + ' tests in ' + ran.group(2) + ' s' if ran else 'did not finish'}")
        print("  " + ", ".join(f"{k} {v}" for k, v in sorted(self.counts.items())))
        print()
        print("skipped, by the reason the suite gives:")
        for reason, n in self.skips.most_common():
            print(f"  {n:4d}  {reason}")
        if self.bad:
            print()
            print("failed or in error:")
            for b in self.bad:
                print(f"  {b}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("log")
    ap.add_argument("--dev", default="sfab_0")
    ap.add_argument("--skips")
    ap.add_argument("--min-ok", type=int, default=0)
    ap.add_argument("--versus")
    ap.add_argument("--versus-dev", default="rxe0")
    a = ap.parse_args()
    run = Run(a.log, load_skips(a.skips) if a.skips else None)
    run.table(a.dev)
    if run.refused:
        print()
        print(f"skipped for a reason {a.skips} does not allow:")
        for r in run.refused:
            print(f"  {r}")
    short = run.counts["ok"] < a.min_ok
    if short:
        print()
        print(f"only {run.counts['ok']} tests passed, fewer than {a.min_ok}")
    behind = False
    if a.versus:
        other = Run(a.versus)
        print()
        other.table(a.versus_dev)
        for x, xd, y, yd in ((run, a.dev, other, a.versus_dev),
                             (other, a.versus_dev, run, a.dev)):
            only = sorted(t for t, r in x.result.items()
                          if r == "ok" and y.result.get(t) != "ok")
            print()
            print(f"passed on {xd}, not on {yd}: {len(only)}")
            for t in only:
                print(f"  {t} ({yd}: {y.result.get(t, 'not run')})")
        behind = not other.ran or run.counts["ok"] < other.counts["ok"]
        print()
        print(f"{a.dev} passed {run.counts['ok']}, {a.versus_dev} passed "
              f"{other.counts['ok']}{': fewer' if behind else ''}")
    return 1 if (not run.ran or run.bad or run.refused or short or behind) else 0


if __name__ == "__main__":
    sys.exit(main())
