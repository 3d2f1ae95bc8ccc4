# SPDX-License-Identifier: GPL-2.0-only
# Host half of verbs/mw: lib/resize-rereg.host.bash.
mode=mw
. "$SFAB_TOP/tests/verbs/lib/resize-rereg.host.bash"
