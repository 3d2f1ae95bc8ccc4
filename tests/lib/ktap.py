#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Check KUnit results (KTAP) against the suites' sources.

    ktap.py [--prefix kunit/] [--allow-skip SUITE.CASE=REGEX]...
            (--suite SUITE [--suite SUITE]... | --all) SOURCE_DIR KTAP_FILE...

SOURCE_DIR holds the KUnit sources (drivers/infiniband/hw/sfab/tests):
each `static struct kunit_suite` there names its cases' array, and the
KUNIT_CASE entries of that array are the cases the suite has.  The KTAP
files are what the kernel printed: one debugfs results file per suite
(/sys/kernel/debug/kunit/<suite>/results) or a whole console log with
every suite in it (kunit.py's test.log); printk timestamps are ignored.

--all checks every suite the sources have.  For each SUITE it prints `ok <prefix><suite>` or, after `# ` lines saying
why, `not ok <prefix><suite>`.  A suite fails when it is missing, when
any result in it (a case, or a parameter of a parameterised case) is
`not ok`, when a result skips and no --allow-skip matches it, when its
plan (1..N) is not the number of cases its source has, or when fewer
cases reported than its plan announced.  Exit status 0 when every suite
passed.
"""
import argparse
import glob
import os
import re
import sys

TIMESTAMP = re.compile(r"^\[\s*\d+\.\d+\]\s?")
RESULT = re.compile(r"^(\s*)(not ok|ok) (\d+)(?: (?:- )?([^#]*?))?\s*(?:#\s*(.*))?$")
SUBTEST = re.compile(r"^(\s*)# Subtest: (\S+)")
PLAN = re.compile(r"^(\s*)1\.\.(\d+)")


def source_cases(src_dir):
    """{suite name: [case names]} from the `kunit_suite` definitions"""
    suites = {}
    for path in sorted(glob.glob(os.path.join(src_dir, "*.c"))):
        with open(path) as f:
            text = f.read()
        arrays = {}
        for m in re.finditer(r"static struct kunit_case (\w+)\[\]\s*=\s*\{(.*?)\n\};",
                             text, re.S):
            arrays[m.group(1)] = re.findall(r"KUNIT_CASE\w*\(\s*(\w+)", m.group(2))
        for m in re.finditer(r"static struct kunit_suite \w+\s*=\s*\{(.*?)\n\};",
                             text, re.S):
            name = re.search(r'\.name\s*=\s*"([^"]+)"', m.group(1))
            cases = re.search(r"\.test_cases\s*=\s*(\w+)", m.group(1))
            if name and cases and cases.group(1) in arrays:
                suites[name.group(1)] = arrays[cases.group(1)]
    return suites


def suite_results(lines, suite):
    """(plan, [(indent, ok, number, name, directive)] of the suite's cases
    and of everything nested in them, the suite's own result line) or None
    when the suite never started"""
    start = None
    for i, l in enumerate(lines):
        m = SUBTEST.match(l)
        if m and m.group(2) == suite:
            start, indent = i, len(m.group(1))
    if start is None:
        return None
    plan, results, own = None, [], None
    for l in lines[start + 1:]:
        m = PLAN.match(l)
        if m and len(m.group(1)) == indent and plan is None:
            plan = int(m.group(2))
            continue
        m = RESULT.match(l)
        if not m:
            continue
        ind = len(m.group(1))
        if ind < indent:
            if (m.group(4) or "").strip() == suite:
                own = (m.group(2) == "ok", m.group(5) or "")
            break
        results.append((ind, m.group(2) == "ok", int(m.group(3)),
                        (m.group(4) or "").strip(), (m.group(5) or "").strip()))
    return plan, indent, results, own


def check_suite(lines, suite, src_cases, allow):
    """the reasons the suite fails ([] when it passed), and a summary"""
    got = suite_results(lines, suite)
    if got is None:
        return [f"{suite}: no results (the suite did not run)"], ""
    plan, indent, results, own = got
    why = []
    cases = [r for r in results if r[0] == indent]
    if src_cases is None:
        why.append(f"{suite}: not a suite of the sources")
    elif plan != len(src_cases):
        why.append(f"{suite}: plan 1..{plan}, but the source has {len(src_cases)} cases")
    if plan is None or len(cases) < plan:
        why.append(f"{suite}: {len(cases)} case results of {plan} planned")
    nskip = 0
    for ind, ok, num, name, directive in results:
        where = f"{suite}.{name}" if ind == indent else f"{suite} (parameter of a case) {name}"
        if not ok:
            why.append(f"not ok: {where} {directive}".rstrip())
        elif directive.upper().startswith("SKIP"):
            reason = directive[4:].strip()
            if not any(re.fullmatch(glob_re(pat), f"{suite}.{name}") and rx.search(reason)
                       for pat, rx in allow):
                why.append(f"skipped: {where}: {reason or 'no reason'}")
            nskip += 1
    if own is None:
        why.append(f"{suite}: no result line for the suite (the kernel stopped?)")
    elif not own[0]:
        why.append(f"{suite}: the suite reports not ok")
    return why, f"{len(cases)}/{plan} cases, {nskip} skipped, {len(results) - len(cases)} parameter results"


def glob_re(pat):
    return re.escape(pat).replace(r"\*", ".*")


def read_lines(paths):
    lines = []
    for p in paths:
        with open(p, errors="replace") as f:
            lines += [TIMESTAMP.sub("", l.rstrip("\r\n")) for l in f]
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--prefix", default="kunit/")
    ap.add_argument("--allow-skip", action="append", default=[],
                    metavar="SUITE.CASE=REGEX")
    ap.add_argument("--suite", action="append", default=[])
    ap.add_argument("--all", action="store_true",
                    help="every suite of SOURCE_DIR")
    ap.add_argument("source_dir")
    ap.add_argument("files", nargs="+", metavar="KTAP_FILE")
    a = ap.parse_args()
    suites, files = a.suite, a.files
    allow = []
    for s in a.allow_skip:
        pat, _, rx = s.partition("=")
        allow.append((pat, re.compile(rx)))
    src = source_cases(a.source_dir)
    if a.all:
        suites = sorted(src)
    if not suites:
        ap.error("no suite to check (--suite or --all)")
    try:
        lines = read_lines(files)
    except OSError as e:
        lines = []
        print(f"# cannot read KTAP: {e}")
    bad = 0
    for s in suites:
        why, summary = check_suite(lines, s, src.get(s), allow)
        for w in why:
            print(f"# {w}")
        if why:
            bad += 1
            print(f"not ok {a.prefix}{s}")
        else:
            print(f"# {a.prefix}{s}: {summary}")
            print(f"ok {a.prefix}{s}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
