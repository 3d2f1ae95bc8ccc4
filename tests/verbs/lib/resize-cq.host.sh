# SPDX-License-Identifier: GPL-2.0-only
# Host half of verbs/resize-cq: lib/resize-rereg.host.bash.
mode=resize-cq
. "$SFAB_TOP/tests/verbs/lib/resize-rereg.host.bash"
