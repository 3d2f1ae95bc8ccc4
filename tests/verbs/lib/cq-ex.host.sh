# SPDX-License-Identifier: GPL-2.0-only
# Host half of verbs/cq-ex: lib/resize-rereg.host.bash.
mode=cq-ex
. "$SFAB_TOP/tests/verbs/lib/resize-rereg.host.bash"
