# SPDX-License-Identifier: GPL-2.0-only
# Host half of verbs/rereg-mr: lib/resize-rereg.host.bash.
mode=rereg-mr
. "$SFAB_TOP/tests/verbs/lib/resize-rereg.host.bash"
