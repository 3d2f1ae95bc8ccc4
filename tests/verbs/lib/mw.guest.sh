# SPDX-License-Identifier: GPL-2.0-only
# Guest half of verbs/mw: lib/resize-rereg.guest.bash running lib/mw.py.
mode=mw
script=mw.py
. "$SFAB_TOP/tests/verbs/lib/resize-rereg.guest.bash"
