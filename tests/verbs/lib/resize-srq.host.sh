# SPDX-License-Identifier: GPL-2.0-only
# Host half of verbs/resize-srq: lib/resize-rereg.host.bash.
mode=resize-srq
. "$SFAB_TOP/tests/verbs/lib/resize-rereg.host.bash"
