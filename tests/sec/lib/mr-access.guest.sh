# SPDX-License-Identifier: GPL-2.0-only
# Guest half of sec/mr-access: lib/pyscript.guest.bash running
# lib/mr_access.py.
name=mr-access
script=mr_access.py
. "$SFAB_TOP/tests/sec/lib/pyscript.guest.bash"
