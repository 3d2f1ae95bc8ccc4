#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""The pass/skip/fail table of an rdma-core run_tests.py -v log: counts,
then every skip reason with how many tests gave it, then the tests that
failed or ended in error, then what verbs/pyverbs does not accept.

    pyverbs-table.py LOG [--skips FILE] [--min-ok N]

With --skips, every skip reason must match one of FILE's lines (see
tests/verbs/lib/pyverbs-skips; a line "TEST_RE | REASON_RE" allows the
reason only for tests whose "name (module.Class)" matches TEST_RE); with
--min-ok, at least N tests must pass.  The exit status is 1 when the
suite did not finish, a test failed or ended in error, a skip is not
allowed, or fewer than N passed; else 0."""
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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("log")
    ap.add_argument("--skips")
    ap.add_argument("--min-ok", type=int, default=0)
    a = ap.parse_args()
    text = open(a.log, errors="replace").read()
    allowed = load_skips(a.skips) if a.skips else None
    counts = collections.Counter()
    skips = collections.Counter()
    bad, refused = [], []
    for m in RESULT.finditer(text):
        res = m.group(3)
        test = f"{m.group(1)} ({m.group(2)})"
        if res.startswith("skipped"):
            counts["skipped"] += 1
            reason = m.group(4).strip("'\"")
            skips[reason] += 1
            if allowed is not None and not any(
                    t.search(test) and r.search(reason) for t, r in allowed):
                refused.append(f"{test}: {reason}")
        else:
            counts[res] += 1
            if res in ("ERROR", "FAIL", "unexpected success"):
                bad.append(f"{res}: {test}")
    ran = re.search(r"^Ran (\d+) tests in ([\d.]+)s", text, re.M)
    print(f"rdma-core run_tests.py --dev sfab_0: "
          f"{ran.group(1) + ' tests in ' + ran.group(2) + ' s' if ran else 'did not finish'}")
    print("  " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    print()
    print("skipped, by the reason the suite gives:")
    for reason, n in skips.most_common():
        print(f"  {n:4d}  {reason}")
    if bad:
        print()
        print("failed or in error:")
        for b in bad:
            print(f"  {b}")
    if refused:
        print()
        print(f"skipped for a reason {a.skips} does not allow:")
        for r in refused:
            print(f"  {r}")
    short = counts["ok"] < a.min_ok
    if short:
        print()
        print(f"only {counts['ok']} tests passed, fewer than {a.min_ok}")
    return 1 if (not ran or bad or refused or short) else 0


if __name__ == "__main__":
    sys.exit(main())
