#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# Add the apt sources sfab needs (deb-src for bookworm and bookworm-security,
# bookworm-backports, trixie deb-src for rdma-core's tarball).  Idempotent.
set -eu
f=/etc/apt/sources.list.d/sfab.sources
want=$(cat <<'SRC'
# written by sfab tools/setup/apt-sources.sh
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://deb.debian.org/debian
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
)
if [ -f "$f" ] && [ "$(cat "$f")" = "$want" ] && [ -n "$(ls /var/lib/apt/lists/*backports* 2>/dev/null)" ]; then
	exit 0
fi
printf '%s\n' "$want" > "$f"
apt-get update -q
