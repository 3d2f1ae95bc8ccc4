#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""The pass/skip/fail table of an rdma-core run_tests.py -v log: counts,
then every skip reason with how many tests gave it, then the tests that
failed or ended in error."""
import collections
import re
import sys

RESULT = re.compile(r"^(test\w+) \(([\w.]+)\)(?:\n.*?)?\s\.\.\.\s(ok|skipped (.*)|ERROR|FAIL|expected failure|unexpected success)$",
                    re.M)


def main(path):
    text = open(path, errors="replace").read()
    counts = collections.Counter()
    skips = collections.Counter()
    bad = []
    for m in RESULT.finditer(text):
        res = m.group(3)
        if res.startswith("skipped"):
            counts["skipped"] += 1
            skips[m.group(4).strip("'\"")] += 1
        else:
            counts[res] += 1
            if res in ("ERROR", "FAIL", "unexpected success"):
                bad.append(f"{res}: {m.group(2)}")
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
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
