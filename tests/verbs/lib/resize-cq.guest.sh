# SPDX-License-Identifier: GPL-2.0-only
# Guest half of verbs/resize-cq: lib/resize-rereg.guest.bash.
mode=resize-cq
. "$SFAB_TOP/tests/verbs/lib/resize-rereg.guest.bash"
