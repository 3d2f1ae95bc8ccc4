# SPDX-License-Identifier: GPL-2.0-only
"""sim/live-crosscheck: what crossed one switch port, from the switch's
capture (sfab-switchd --pcap-dir, sfab-sim --pcap-dir: the same code,
qemu-model/switch/sfab_sw_pcap.c, writes both).  A port's capture holds
every frame in and out of it but flow control; a frame whose SLID is the
node's LID came in from the node, one whose DLID is, went out to it.

port_counts(path, lid) -> dict:
  data_in, data_out     RC SEND/RDMA WRITE packets (opcodes 0x00-0x0b)
  msgs_in, msgs_out     of them, the last (or only) of a message
  ackreq_in, ackreq_out of them, those with the AckReq bit
  ackreq_breaks         data packets whose AckReq is not the live HCA's
                        rule (qemu-model/engine/sfab_engine_rc.c,
                        ack_wanted()): set on every PSN that ends in 15
                        (PSN & 15 == 15) and on a message's last packet,
                        and on no other here (ibv_rc_pingpong posts its next
                        send only after the last one completed)
  first_psn             {(SLID, DLID, QP): the first data PSN seen}
  ack_in, ack_out       RC ACKNOWLEDGE packets with an ACK syndrome
  nak                   RC ACKNOWLEDGE packets with an RNR NAK or NAK
  rc_other              any other RC packet (READ, atomics)
  mgmt                  everything else (UD: the SM's and the PMA's MADs)
  psn_breaks            data packets whose PSN is not the one after the
                        last of their connection (SLID, DLID, QP): a
                        retransmission, a duplicate or a gap
"""
import struct

MAGICS = {0xa1b2c3d4: "<", 0xa1b23c4d: "<", 0xd4c3b2a1: ">", 0x4d3cb2a1: ">"}
DATA_OPS = set(range(0x00, 0x0c))
LAST_OPS = {0x02, 0x03, 0x04, 0x05, 0x08, 0x09, 0x0a, 0x0b}
OP_ACK = 0x11


def frames(path):
    with open(path, "rb") as f:
        h = f.read(24)
        if len(h) < 24:
            raise ValueError(f"{path}: not a pcap file")
        m = struct.unpack("<I", h[:4])[0]
        if m not in MAGICS:
            raise ValueError(f"{path}: not a pcap file (magic 0x{m:08x})")
        end = MAGICS[m]
        while True:
            r = f.read(16)
            if len(r) < 16:
                return
            n = struct.unpack(end + "IIII", r)[2]
            yield f.read(n)


def port_counts(path, lid):
    c = dict.fromkeys(("data_in", "data_out", "msgs_in", "msgs_out", "ackreq_in",
                       "ackreq_out", "ackreq_breaks", "ack_in",
                       "ack_out", "nak", "rc_other", "mgmt", "psn_breaks"), 0)
    nxt = {}
    c["first_psn"] = {}
    for d in frames(path):
        if len(d) < 20:
            c["mgmt"] += 1
            continue
        lnh = d[1] & 3
        dlid = (d[2] << 8) | d[3]
        slid = (d[6] << 8) | d[7]
        bth = 8 if lnh == 2 else 48 if lnh == 3 else None
        if bth is None or len(d) < bth + 12 or d[bth] >= 0x20:
            c["mgmt"] += 1
            continue
        op = d[bth]
        qp = int.from_bytes(d[bth + 5:bth + 8], "big")
        psn = int.from_bytes(d[bth + 9:bth + 12], "big")
        way = "in" if slid == lid else "out" if dlid == lid else None
        if way is None:
            raise ValueError(f"{path}: an RC packet {slid} -> {dlid} that is not LID {lid}'s")
        if op in DATA_OPS:
            c["data_" + way] += 1
            c["msgs_" + way] += op in LAST_OPS
            c["ackreq_" + way] += d[bth + 8] >> 7
            c["ackreq_breaks"] += (d[bth + 8] >> 7) != ((psn & 15) == 15 or op in LAST_OPS)
            k = (slid, dlid, qp)
            c["first_psn"].setdefault(k, psn)
            if k in nxt and psn != nxt[k]:
                c["psn_breaks"] += 1
            nxt[k] = (psn + 1) & 0xffffff
        elif op == OP_ACK:
            if d[bth + 12] >> 5:
                c["nak"] += 1
            else:
                c["ack_" + way] += 1
        else:
            c["rc_other"] += 1
    return c
