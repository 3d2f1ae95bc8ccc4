#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Drive QEMU's sfab-hca over the qtest protocol, with no guest at all.

Checks the PCIe shell end to end: config space identity, BAR0 access-size
rules, the admin queue through real DMA, firmware download and activation,
trace events and guest-error logging, then thousands of random BAR0/BAR2
writes (the device may go fatal; QEMU must neither crash nor hang) and a
reset that brings the device back.

    qemu-model/tests/sfab-qtest-smoke.py QEMU_BINARY

Prints one "ok <check>" / "not ok <check>" line per check; exits non-zero
on any failure.
"""
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import zlib

BAR0 = 0xE0000000
BAR2 = 0xE0200000  # 2 MiB, 64-bit
BAR4 = 0xE0100000
DEVFN = 5 << 3     # 00:05.0

REG = dict(ID=0x000, VERSION=0x004, CAPS=0x008, DB_LAYOUT=0x00C,
           DEV_CTL=0x010, DEV_STS=0x014, FW_STATE=0x018, MSIX_CFG=0x01C,
           AQ_BASE_LO=0x020, AQ_BASE_HI=0x024, AQ_CFG=0x028, AQ_DB=0x02C,
           ACQ_BASE_LO=0x030, ACQ_BASE_HI=0x034, ACQ_CFG=0x038,
           AENQ_BASE_LO=0x040, AENQ_BASE_HI=0x044, AENQ_CFG=0x048,
           AENQ_HEAD=0x04C, INTR_MASK=0x050, ERR_INFO=0x054)
QCFG_ENABLE = 1 << 31
STS_READY, STS_AQ, STS_FATAL = 1, 2, 1 << 31

AQ, ACQ, RESP, FWBUF = 0x200000, 0x210000, 0x220000, 0x300000
MSI_ADDR = 0x400000
NODE_GUID = 0x0002C90300ABCDE0

failures = 0


def check(name, cond, detail=""):
    global failures
    if cond:
        print("ok qtest/%s" % name)
    else:
        failures += 1
        if detail:
            print("  %s" % detail, file=sys.stderr)
        print("not ok qtest/%s" % name)


class QTest:
    def __init__(self, qemu, extra):
        self.logdir = tempfile.mkdtemp(prefix="sfab-qtest-")
        self.log = os.path.join(self.logdir, "qemu.log")
        args = [qemu, "-M", "q35", "-display", "none", "-nodefaults",
                "-m", "64", "-qtest", "stdio", "-accel", "qtest",
                "-device", "sfab-hca,addr=05.0,node-guid=%d" % NODE_GUID,
                "-d", "guest_errors", "-D", self.log,
                "-trace", "enable=sfab_*,file=%s" % self.log] + extra
        self.p = subprocess.Popen(args, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL,
                                  universal_newlines=True, bufsize=1)

    def cmd(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()
        while True:
            r = self.p.stdout.readline()
            if not r:
                raise RuntimeError("QEMU went away after: " + line)
            if r.startswith("IRQ"):
                continue
            if not r.startswith("OK"):
                raise RuntimeError("qtest: %s -> %s" % (line, r.strip()))
            parts = r.split()
            return int(parts[1], 16) if len(parts) > 1 and parts[1].startswith("0x") else None

    def cfg_addr(self, off):
        return 0x80000000 | (DEVFN << 8) | (off & 0xFC)

    def cfg_read(self, off):
        self.cmd("outl 0xcf8 0x%x" % self.cfg_addr(off))
        return self.cmd("inl 0xcfc")

    def cfg_write(self, off, val):
        self.cmd("outl 0xcf8 0x%x" % self.cfg_addr(off))
        self.cmd("outl 0xcfc 0x%x" % val)

    def rd(self, reg, size=4):
        name = {1: "readb", 2: "readw", 4: "readl", 8: "readq"}[size]
        return self.cmd("%s 0x%x" % (name, BAR0 + reg))

    def wr(self, reg, val, size=4, base=BAR0):
        name = {1: "writeb", 2: "writew", 4: "writel", 8: "writeq"}[size]
        self.cmd("%s 0x%x 0x%x" % (name, base + reg, val))

    def mem_write(self, addr, data):
        if data:
            self.cmd("write 0x%x %d 0x%s" % (addr, len(data), data.hex()))

    def mem_read(self, addr, n):
        self.p.stdin.write("read 0x%x %d\n" % (addr, n))
        self.p.stdin.flush()
        r = self.p.stdout.readline().split()
        return bytes.fromhex(r[1][2:])

    def quit(self):
        """SIGTERM: a healthy QEMU shuts down cleanly with status 0."""
        if self.p.poll() is not None:
            return self.p.returncode
        self.p.terminate()
        try:
            return self.p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
            return "hung"

    def logtext(self):
        try:
            with open(self.log) as f:
                return f.read()
        except OSError:
            return ""


def fw_image(payload=3000, bad_magic=False):
    profile = struct.pack("<BBHIIIIIIIIIII16x", 1, 4, 256, 1024, 4096, 16,
                          2048, 65536, 4096, 256, 128, 8, 256, 1 << 31)
    length = 256 + payload
    magic = 0x12345678 if bad_magic else 0x57464653
    hdr = struct.pack("<IHHII32s16s", magic, 1, 256, length, 0,
                      b"9.8.7", b"QTEST-BOARD") + profile
    hdr += bytes(256 - len(hdr))
    img = bytearray(hdr + bytes((i * 13) & 0xFF for i in range(payload)))
    struct.pack_into("<I", img, 12, zlib.crc32(bytes(img)) & 0xFFFFFFFF)
    return bytes(img)


class Driver:
    """Just enough of a driver: the admin queue over qtest memory."""

    def __init__(self, q, log_depth=3):
        self.q = q
        self.log = log_depth
        self.tail = 0
        self.head = 0
        self.cmd_id = 0
        q.wr(REG["DEV_CTL"], 1)
        q.mem_write(AQ, bytes(64 << log_depth))
        q.mem_write(ACQ, bytes(16 << log_depth))
        q.wr(REG["AQ_BASE_LO"], AQ)
        q.wr(REG["AQ_BASE_HI"], 0)
        q.wr(REG["ACQ_BASE_LO"], ACQ)
        q.wr(REG["ACQ_BASE_HI"], 0)
        q.wr(REG["ACQ_CFG"], log_depth)
        q.wr(REG["AQ_CFG"], log_depth | QCFG_ENABLE)

    def run(self, opcode, payload=b""):
        self.cmd_id = (self.cmd_id + 1) & 0xFFFF
        cmd = struct.pack("<BBHI", opcode, 0, self.cmd_id, 0) + payload
        cmd += bytes(64 - len(cmd))
        slot = self.tail & ((1 << self.log) - 1)
        self.q.mem_write(AQ + 64 * slot, cmd)
        self.tail = (self.tail + 1) & 0xFFFF
        self.q.wr(REG["AQ_DB"], self.tail)
        phase = 0 if (self.head >> self.log) & 1 else 1
        cslot = self.head & ((1 << self.log) - 1)
        for _ in range(200):
            cpl = self.q.mem_read(ACQ + 16 * cslot, 16)
            if (cpl[3] & 1) == phase:
                self.head = (self.head + 1) & 0xFFFF
                cid, status, _flags, r0 = struct.unpack_from("<HBBI", cpl)
                if cid != self.cmd_id:
                    return ("bad-id", cid)
                return status, r0
            self.q.cmd("clock_step 1000")
        return None, None

    def fw_load(self, img):
        self.q.mem_write(FWBUF, img)
        for off in range(0, len(img), 1024):
            n = min(1024, len(img) - off)
            st, _ = self.run(0x03, struct.pack("<QII", FWBUF + off, off, n))
            if st:
                return st
        return self.run(0x04, struct.pack("<II", len(img), 0))[0]


def main():
    qemu = sys.argv[1]
    q = QTest(qemu, [])
    try:
        ident = q.cfg_read(0x00)
        check("pci-id", ident == 0x10F01AF4, "id 0x%08x" % (ident or 0))
        cls = q.cfg_read(0x08)
        check("pci-class-rev", cls == 0x02070001, "class/rev 0x%08x" % (cls or 0))
        # BARs, memory decoding and bus mastering
        q.cfg_write(0x10, BAR0)
        q.cfg_write(0x18, BAR2)
        q.cfg_write(0x1C, 0)
        q.cfg_write(0x20, BAR4)
        q.cfg_write(0x04, 0x6)
        check("bar0-id", q.rd(REG["ID"]) == 0x53464142)
        check("bar0-version", q.rd(REG["VERSION"]) == 0x00010000)
        check("msix-vectors", q.rd(REG["MSIX_CFG"]) == 34)
        check("ready", q.rd(REG["DEV_STS"]) == STS_READY)
        # access sizes: only aligned 32-bit counts
        check("read-size-1", q.rd(REG["ID"], 1) == 0xFF)
        check("read-size-2", q.rd(REG["ID"], 2) == 0xFFFF)
        check("read-size-8", q.rd(REG["ID"], 8) == 0xFFFFFFFFFFFFFFFF)
        check("read-unaligned", q.cmd("readl 0x%x" % (BAR0 + 2)) == 0xFFFFFFFF)
        q.wr(REG["INTR_MASK"], 0xFF, size=2)
        check("write-size-2-ignored", q.rd(REG["INTR_MASK"]) == 0)

        d = Driver(q)
        check("aq-enabled", q.rd(REG["DEV_STS"]) == STS_READY | STS_AQ)
        st, _ = d.run(0x01, struct.pack("<QII", RESP, 256, 0))
        attr = q.mem_read(RESP, 256)
        check("query-device", st == 0 and attr[0] == 0 and
              struct.unpack_from(">Q", attr, 48)[0] == NODE_GUID,
              "status %r attr %s" % (st, attr[:64].hex()))
        st, _ = d.run(0x02, struct.pack("<QIB3x", RESP, 64, 1))
        check("query-port-no-fw", st == 0x06, "status %r" % (st,))
        st = d.fw_load(fw_image(bad_magic=True))
        fws = q.rd(REG["FW_STATE"])
        check("fw-bad-magic", st == 0x10 and fws == (3 | 0x10 << 8),
              "status %r fw_state 0x%x" % (st, fws))
        st = d.fw_load(fw_image())
        check("fw-good", st == 0 and q.rd(REG["FW_STATE"]) == 2, "status %r" % (st,))
        st, _ = d.run(0x01, struct.pack("<QII", RESP, 256, 0))
        attr = q.mem_read(RESP, 256)
        check("fw-version", st == 0 and attr[:6] == b"9.8.7\0")
        st, _ = d.run(0x02, struct.pack("<QIB3x", RESP, 64, 1))
        port = q.mem_read(RESP, 64)
        check("query-port", st == 0 and port[24] == 1 and port[25] == 2 and
              struct.unpack_from(">Q", port, 8)[0] == NODE_GUID + 1,
              "status %r port %s" % (st, port[:32].hex()))
        # MSI-X: vector 0 aimed at guest RAM, so a notification is a
        # write we can see; INTR_MASK holds it back until unmasked
        cap = q.cfg_read(0x34) & 0xFF
        while cap and (q.cfg_read(cap) & 0xFF) != 0x11:
            cap = (q.cfg_read(cap) >> 8) & 0xFF
        check("msix-capability", cap != 0)
        if cap:
            q.cfg_write(cap, q.cfg_read(cap) | (1 << 31))
            q.cmd("writel 0x%x 0x%x" % (BAR4 + 0, MSI_ADDR))
            q.cmd("writel 0x%x 0" % (BAR4 + 4))
            q.cmd("writel 0x%x 0xa0" % (BAR4 + 8))
            q.cmd("writel 0x%x 0" % (BAR4 + 12))
            q.mem_write(MSI_ADDR, bytes(4))
            d.run(0x01, struct.pack("<QII", RESP, 256, 0))
            check("msix-notify", q.mem_read(MSI_ADDR, 4) == b"\xa0\0\0\0")
            q.mem_write(MSI_ADDR, bytes(4))
            q.wr(REG["INTR_MASK"], 1)
            d.run(0x01, struct.pack("<QII", RESP, 256, 0))
            held = q.mem_read(MSI_ADDR, 4) == bytes(4)
            q.wr(REG["INTR_MASK"], 0)
            check("intr-mask", held and q.mem_read(MSI_ADDR, 4) == b"\xa0\0\0\0")
        # phase wrap over several passes of the 8-entry ring
        ok = all(d.run(0x01, struct.pack("<QII", RESP, 256, 0))[0] == 0
                 for _ in range(40))
        check("phase-wrap", ok)
        # the admin queue pointed at the device's own BAR: fatal, no hang
        q.wr(REG["AQ_CFG"], 3)
        q.wr(REG["AQ_BASE_LO"], BAR0)
        q.wr(REG["AQ_CFG"], 3 | QCFG_ENABLE)
        q.wr(REG["AQ_DB"], 1)
        q.cmd("clock_step 1000")
        sts = q.rd(REG["DEV_STS"])
        check("dma-to-own-bar-fatal", sts & STS_FATAL and q.rd(REG["ERR_INFO"]) == 2,
              "dev_sts 0x%x err %d" % (sts, q.rd(REG["ERR_INFO"])))

        # random writes everywhere
        rnd = random.Random(0x5FAB)
        regs = list(REG.values())
        for i in range(20000):
            size = rnd.choice((1, 2, 4, 4, 4, 8))
            if rnd.random() < 0.7:
                off = rnd.choice(regs) if rnd.random() < 0.8 else rnd.randrange(0x4000)
                val = rnd.getrandbits(size * 8)
                if off == REG["AQ_DB"] and rnd.random() < 0.5:
                    val = rnd.randrange(16)
                q.wr(off, val, size=size)
            else:
                q.wr(rnd.randrange(0x200000 - 8), rnd.getrandbits(size * 8),
                     size=size, base=BAR2)
            if i % 1000 == 0:
                q.cmd("clock_step 100000")
        check("random-writes-alive", q.rd(REG["ID"]) == 0x53464142)
        d = Driver(q)
        st, _ = d.run(0x01, struct.pack("<QII", RESP, 256, 0))
        check("reset-recovers", st == 0 and q.rd(REG["DEV_STS"]) == STS_READY | STS_AQ,
              "status %r dev_sts 0x%x" % (st, q.rd(REG["DEV_STS"])))
    except RuntimeError as e:
        check("qemu-alive", False, str(e))
    rc = q.quit()
    check("qemu-exit", rc == 0, "exit status %r" % rc)
    log = q.logtext()
    check("trace-events", "sfab_admin_cmd" in log and "sfab_fw_state" in log and
          "sfab_reset" in log)
    check("guest-error-log", "sfab-hca: 2-byte read" in log and
          "firmware image rejected" in log)
    if failures:
        print("QEMU log and trace: %s" % q.log, file=sys.stderr)
        return 1
    shutil.rmtree(q.logdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
