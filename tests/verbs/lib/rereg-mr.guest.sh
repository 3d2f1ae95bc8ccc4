# SPDX-License-Identifier: GPL-2.0-only
# Guest half of verbs/rereg-mr: lib/resize-rereg.guest.bash.
mode=rereg-mr
. "$SFAB_TOP/tests/verbs/lib/resize-rereg.guest.bash"
