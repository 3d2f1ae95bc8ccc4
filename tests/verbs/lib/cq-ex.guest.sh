# SPDX-License-Identifier: GPL-2.0-only
# Guest half of verbs/cq-ex: lib/resize-rereg.guest.bash running lib/cq_ex.py.
mode=cq-ex
script=cq_ex.py
. "$SFAB_TOP/tests/verbs/lib/resize-rereg.guest.bash"
