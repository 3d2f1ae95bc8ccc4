#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# fabric/link-up-socket: fabric/link-up with the switch refusing the HCAs'
# ring pairs (SFAB_CABLE=socket, sfab-switchd --cable socket): the cables'
# sockets carry the frames, the fallback for a peer without rings.
export SFAB_CABLE=socket
exec "$(dirname "$0")/link-up.sh"
