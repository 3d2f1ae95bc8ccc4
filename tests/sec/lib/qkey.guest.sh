# SPDX-License-Identifier: GPL-2.0-only
# Guest half of sec/qkey: lib/pyscript.guest.bash running lib/qkey.py.
name=qkey
script=qkey.py
. "$SFAB_TOP/tests/sec/lib/pyscript.guest.bash"
