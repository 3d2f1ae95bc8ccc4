# SPDX-License-Identifier: GPL-2.0-only
"""Shared by the guest programs that check every byte they receive
(tests/link/lib/link_stream.py, tests/soak/lib/soak.py): messages derived
from a tag and their number alone, so that a receiver checks each on its
own, and JSON files written whole into the lab share."""
import hashlib
import json
import os
import struct


def message(tag, i, size):
    """message @i of stream @tag: its number (8 bytes, little endian),
    then bytes from sha256 of the tag and the number"""
    out = struct.pack("<Q", i)
    seed = f"{tag}.{i}".encode()
    n = 0
    while len(out) < size:
        out += hashlib.sha256(seed + struct.pack("<I", n)).digest()
        n += 1
    return out[:size]


def put(path, data):
    """@data as JSON in @path, which readers see whole or not at all"""
    with open(path + ".tmp", "w") as f:
        json.dump(data, f)
    os.rename(path + ".tmp", path)
