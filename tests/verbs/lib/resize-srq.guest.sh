# SPDX-License-Identifier: GPL-2.0-only
# Guest half of verbs/resize-srq: lib/resize-rereg.guest.bash.
mode=resize-srq
. "$SFAB_TOP/tests/verbs/lib/resize-rereg.guest.bash"
