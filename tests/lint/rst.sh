#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# lint/rst: every page of Documentation/sfab parses as reStructuredText
# with no warning or error from docutils (Debian's python3-docutils):
# malformed tables, short title underlines, bad markup.  Sphinx's own
# :doc: role and toctree directive, which plain docutils does not know,
# are the only messages let through.
set -u
. "$(dirname "$0")/../build/common.bash"

/usr/bin/python3 -c 'import docutils' 2>/dev/null ||
	sfab_fail "python3-docutils is not installed (tools/setup/host-deps.sh installs it)"
/usr/bin/python3 - "$SFAB_TOP"/Documentation/sfab/*.rst <<'PY'
import io
import re
import sys

import docutils.core

SPHINX = re.compile(r'"doc"|"toctree"|Unknown interpreted text role|No role entry')
bad = 0
for path in sys.argv[1:]:
    err = io.StringIO()
    with open(path) as f:
        docutils.core.publish_doctree(f.read(), source_path=path, settings_overrides={
            "warning_stream": err, "report_level": 2, "halt_level": 5})
    msgs = [m for m in re.split(r"\n(?=\S+:\d+: \()", err.getvalue().strip()) if m]
    msgs = [m for m in msgs if not SPHINX.search(m.splitlines()[0])]
    for m in msgs:
        print(m.splitlines()[0])
    bad += len(msgs)
    print(f"{path}: {len(msgs)} problems")
sys.exit(1 if bad else 0)
PY
