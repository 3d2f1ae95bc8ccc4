#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Drive QEMU's sfab-hca over the qtest protocol, with no guest at all.

Checks the PCIe shell end to end: config space identity, BAR0 access-size
rules, the admin queue through real DMA, firmware download and activation,
trace events and guest-error logging, then thousands of random BAR0/BAR2
writes (the device may go fatal; QEMU must neither crash nor hang) and a
reset that brings the device back.  Then the port's cable backend
(-object sfab-cable) against a socket this script listens on: connect,
reconnect after the peer closed and after a framing error, and the
configurations QEMU must refuse.  Last the sfab-accel test accelerator
next to an sfab-hca: a program on its ring writes its device memory and
host memory, stores into the HCA's BAR0 (a peer write), polls host memory
until the test writes it, completes with an MSI-X write; a bad command
stops the ring with its error code and index, and a reset recovers.

    qemu-model/tests/sfab-qtest-smoke.py QEMU_BINARY

Nothing here restates the hardware contract.  At start-up the script
  - reads every constant from include/sfab/{sfab_regs,sfab_admin,sfab_fw,
    sfab_accel}.h
    (and the PCI standard ones from <linux/pci_regs.h>) with a small
    #define/enum parser,
  - compiles a tiny C program against those headers that prints offsetof/
    sizeof of every structure field it packs or reads, and the compiler's
    value of every constant the parser evaluated (they must agree),
  - takes each field's byte order from its declared type in the header,
  - builds firmware images with the project's packer (make fwpack,
    sfab-fwpack --corrupt=KIND for broken ones),
  - encodes sfab-accel commands with the contract's own encoders
    (sfab_accel_cmd_*()), in a second small C program.

Prints one "ok <check>" / "not ok <check>" line per check; exits non-zero
on any failure.
"""
import os
import random
import re
import shutil
import socket
import struct
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
CONTRACT = [os.path.join(TOP, "include", "sfab", h)
            for h in ("sfab_wire.h", "sfab_regs.h", "sfab_admin.h", "sfab_fw.h",
                      "sfab_accel.h")]
PCI_REGS = "/usr/include/linux/pci_regs.h"
FWCONF = os.path.join(TOP, "firmware", "sfab-hca.fwconf")

# struct fields the script packs or reads; offsets, sizes and byte order
# come from the compiler and the headers
FIELDS = {
    "sfab_aq_cmd": ["opcode", "cmd_id",
                    "u.query_device.resp_addr", "u.query_device.resp_len",
                    "u.query_port.resp_addr", "u.query_port.resp_len",
                    "u.query_port.port_num",
                    "u.fw_download.addr", "u.fw_download.offset",
                    "u.fw_download.length",
                    "u.fw_activate.image_len"],
    "sfab_acq_entry": ["cmd_id", "status", "flags", "result0"],
    "sfab_dev_attr": ["fw_version", "board_id", "node_guid"],
    "sfab_port_attr": ["port_guid", "state", "phys_state"],
    "sfab_fw_header": ["fw_version", "board_id"],
}

# test choices, not contract: where the BARs and rings live in the guest
BAR_ADDR = {"SFAB_BAR_REGS": 0xE0000000, "SFAB_BAR_MSIX": 0xE0100000,
            "SFAB_BAR_DB": 0xE0200000}
DEVFN = 5 << 3     # 00:05.0
AQ, ACQ, RESP, FWBUF = 0x200000, 0x210000, 0x220000, 0x300000
MSI_ADDR = 0x400000
MSI_DATA = 0xA0
NODE_GUID = 0x0002C90300ABCDE0
FW_PAYLOAD = bytes((i * 13) & 0xFF for i in range(3000))
FW_CHUNK = 1024

failures = 0


class ContractError(Exception):
    pass


def check(name, cond, detail=""):
    global failures
    if cond:
        print("ok qtest/%s" % name)
    else:
        failures += 1
        if detail:
            print("  %s" % detail, file=sys.stderr)
        print("not ok qtest/%s" % name)


# ---------------------------------------------------------------------------
# constants: #define NAME value and enum members, evaluated like C does

def strip_comments(text):
    """Join continued lines; replace comments by a space, keep literals."""
    text = text.replace("\\\n", " ")
    pat = re.compile(r'("(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\')'
                     r'|/\*.*?\*/|//[^\n]*', re.S)
    return pat.sub(lambda m: m.group(1) or " ", text)


TOKEN = re.compile(r"\s*(?:(0[xX][0-9a-fA-F]+|[0-9]+)([uUlL]*)"
                   r"|([A-Za-z_]\w*)|(<<|>>|[-+*/%&|^~(),]))")


class Val:
    """An integer constant with its C type: width in bits, signedness."""

    def __init__(self, v, bits=32, unsigned=False):
        m = 1 << bits
        v %= m
        if not unsigned and v >= m >> 1:
            v -= m
        self.v, self.bits, self.unsigned = v, bits, unsigned


def literal(digits, suffix):
    s = suffix.lower()
    if s not in ("", "u", "l", "ul", "lu", "ll", "ull", "llu"):
        raise ValueError("bad suffix %r" % suffix)
    if digits[:2].lower() == "0x":
        v = int(digits, 16)
    elif digits != "0" and digits.startswith("0"):
        v = int(digits, 8)
    else:
        v = int(digits)
    decimal = not digits.startswith("0") or digits == "0"
    if "u" in s:
        cands = [(32, True), (64, True)]
    elif decimal:
        cands = [(32, False), (64, False)]
    else:
        cands = [(32, False), (32, True), (64, False), (64, True)]
    if "l" in s:
        cands = [c for c in cands if c[0] == 64]
    for bits, uns in cands:
        if v < (1 << bits if uns else 1 << (bits - 1)):
            return Val(v, bits, uns)
    raise ValueError("literal %s does not fit" % digits)


def common(a, b):
    if a.unsigned == b.unsigned:
        return max(a.bits, b.bits), a.unsigned
    u, s = (a, b) if a.unsigned else (b, a)
    if u.bits >= s.bits:
        return u.bits, True
    return s.bits, False


def tokenize(text):
    """(digits, suffix, name, operator) tuples, one set per token."""
    toks, pos = [], 0
    text = text.strip()
    while pos < len(text):
        m = TOKEN.match(text, pos)
        if not m:
            raise ValueError("cannot read %r" % text[pos:])
        toks.append(m.groups())
        pos = m.end()
        while pos < len(text) and text[pos].isspace():
            pos += 1
    return toks


class Expr:
    """Recursive descent over C's integer operators on macro-expanded
    tokens; names left (enum members) are looked up, SFAB_GENMASK(h, l) is
    the 32-bit mask of bits h..l as sfab_types.h defines it.  Anything
    else (strings, casts, sizeof, unknown names) is not a constant."""

    def __init__(self, toks, lookup):
        self.toks = toks
        self.i = 0
        self.lookup = lookup

    def peek(self):
        return self.toks[self.i][3] if self.i < len(self.toks) else None

    def take(self, op):
        if self.peek() != op:
            raise ValueError("expected %r" % op)
        self.i += 1

    def value(self):
        v = self.binary(0)
        if self.i != len(self.toks):
            raise ValueError("trailing tokens")
        return v

    LEVELS = [("|",), ("^",), ("&",), ("<<", ">>"), ("+", "-"),
              ("*", "/", "%")]

    def binary(self, level):
        if level == len(self.LEVELS):
            return self.unary()
        a = self.binary(level + 1)
        while self.peek() in self.LEVELS[level]:
            op = self.peek()
            self.i += 1
            b = self.binary(level + 1)
            a = self.apply(op, a, b)
        return a

    @staticmethod
    def apply(op, a, b):
        if op in ("<<", ">>"):
            if b.v < 0 or b.v >= a.bits:
                raise ValueError("shift out of range")
            return Val(a.v << b.v if op == "<<" else a.v >> b.v,
                       a.bits, a.unsigned)
        bits, uns = common(a, b)
        x, y = Val(a.v, bits, uns).v, Val(b.v, bits, uns).v
        if op in ("/", "%"):
            if y == 0:
                raise ValueError("division by zero")
            q = abs(x) // abs(y) * (1 if (x < 0) == (y < 0) else -1)
            r = q if op == "/" else x - y * q
        else:
            r = {"|": x | y, "^": x ^ y, "&": x & y, "+": x + y,
                 "-": x - y, "*": x * y}[op]
        return Val(r, bits, uns)

    def unary(self):
        op = self.peek()
        if op in ("~", "-", "+"):
            self.i += 1
            a = self.unary()
            r = {"~": ~a.v, "-": -a.v, "+": a.v}[op]
            return Val(r, a.bits, a.unsigned)
        if op == "(":
            self.i += 1
            v = self.binary(0)
            self.take(")")
            return v
        if self.i >= len(self.toks):
            raise ValueError("unexpected end")
        digits, suffix, name, _ = self.toks[self.i]
        self.i += 1
        if digits is not None:
            return literal(digits, suffix)
        if name == "SFAB_GENMASK":
            self.take("(")
            h = self.binary(0)
            self.take(",")
            lo = self.binary(0)
            self.take(")")
            if not 0 <= lo.v <= h.v <= 31:
                raise ValueError("SFAB_GENMASK(%d, %d)" % (h.v, lo.v))
            return Val((1 << (h.v + 1)) - (1 << lo.v), 32, True)
        if name is None:
            raise ValueError("unexpected %r" % op)
        return self.lookup(name)


class Constants:
    """Object-like #defines and enum members of some headers.
    C["NAME"] is the value; a name that is missing or not an integer
    constant is a ContractError naming the headers looked at."""

    def __init__(self, paths):
        self.paths = paths
        self.raw = {}       # name -> (expression text, is_enum, where)
        self.vals = {}      # name -> Val
        self.bad = {}       # name -> why it is not a constant
        self.dups = {}      # name -> where it is defined differently
        for path in paths:
            try:
                with open(path) as f:
                    text = strip_comments(f.read())
            except OSError as e:
                raise ContractError("cannot read %s: %s" % (path, e))
            where = os.path.relpath(path, TOP) if path.startswith(TOP) else path
            for m in re.finditer(r"^[ \t]*#[ \t]*define[ \t]+(\w+)(\()?(.*)$",
                                 text, re.M):
                if m.group(2):
                    continue            # function-like macro
                self.add(m.group(1), m.group(3).strip(), False, where)
            for m in re.finditer(r"\benum\s*\w*\s*\{([^}]*)\}", text):
                prev = None
                for member in m.group(1).split(","):
                    member = member.strip()
                    if not member:
                        continue
                    name, eq, expr = member.partition("=")
                    name = name.strip()
                    if not re.fullmatch(r"[A-Za-z_]\w*", name):
                        raise ContractError("%s: cannot read enum member %r"
                                            % (where, member))
                    if not eq:
                        expr = "(%s) + 1" % prev if prev else "0"
                    self.add(name, expr.strip(), True, where)
                    prev = name
        for name in list(self.raw):
            try:
                self.eval(name, ())
            except ContractError:
                pass

    def add(self, name, expr, is_enum, where):
        old = self.raw.get(name)
        if old and (old[0] != expr or old[1] != is_enum):
            self.dups[name] = "defined twice (%s, %s)" % (old[2], where)
        self.raw[name] = (expr, is_enum, where)

    def expand(self, text, active):
        """Tokens of text with object-like macros replaced by their
        tokens, as the preprocessor does (not re-expanding one inside
        its own expansion)."""
        out = []
        for tok in tokenize(text):
            name = tok[2]
            if name in self.dups:
                raise ValueError("%s is %s" % (name, self.dups[name]))
            if (name in self.raw and not self.raw[name][1] and
                    name not in active):
                out += self.expand(self.raw[name][0], active | {name})
            else:
                out.append(tok)
        return out

    def eval(self, name, stack):
        if name in self.vals:
            return self.vals[name]
        if name in self.dups:
            raise ContractError("%s: %s" % (name, self.dups[name]))
        if name in self.bad:
            raise ContractError("%s: %s" % (name, self.bad[name]))
        if name not in self.raw:
            raise ContractError("%s is not defined in %s" % (
                name, ", ".join(os.path.relpath(p, TOP) if p.startswith(TOP)
                                else p for p in self.paths)))
        if name in stack:
            raise ContractError("%s refers to itself" % name)
        expr, is_enum, where = self.raw[name]

        def lookup(n):
            if n in self.raw and self.raw[n][1]:
                return self.eval(n, stack + (name,))
            if n in self.raw:
                raise ValueError("%s refers to itself" % n)
            raise ValueError("%s is not an integer constant" % n)

        try:
            toks = self.expand(expr, set() if is_enum else {name})
            v = Expr(toks, lookup).value()
        except (ValueError, ContractError) as e:
            self.bad[name] = "%s: not an integer constant (%r: %s)" % (
                where, expr, e)
            raise ContractError("%s: %s" % (name, self.bad[name]))
        if is_enum:
            v = Val(v.v, 32, False)     # enumeration constants are int
        self.vals[name] = v
        return v

    def __getitem__(self, name):
        return self.eval(name, ()).v

    def names(self, prefix):
        return sorted(n for n in self.vals if n.startswith(prefix))


def field_prep(mask, v):
    shift = (mask & -mask).bit_length() - 1
    if (v << shift) & ~mask:
        raise ContractError("value 0x%x does not fit mask 0x%x" % (v, mask))
    return v << shift


# ---------------------------------------------------------------------------
# structures: members (and their declared types) from the header text,
# offsets and sizes from the compiler

def parse_structs(paths):
    """struct NAME { ... } -> {member: (type, is_array, nested members)}."""
    structs = {}

    def members(body):
        out, depth, start, decls = {}, 0, 0, []
        for i, ch in enumerate(body):
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
            elif ch == ";" and depth == 0:
                decls.append(body[start:i])
                start = i + 1
        for decl in decls:
            decl = " ".join(decl.split())
            inner = None
            if "{" in decl:
                a, b = decl.index("{"), decl.rindex("}")
                inner = members(decl[a + 1:b])
                decl = decl[:a] + "{}" + decl[b + 1:]
            m = re.fullmatch(r"(.*?)\s*\b(\w+)\s*((?:\[[^\]]*\]\s*)*)", decl)
            if not m or not m.group(1):
                raise ContractError("cannot read member %r" % decl)
            out[m.group(2)] = (m.group(1), bool(m.group(3)), inner)
        return out

    for path in paths:
        with open(path) as f:
            text = strip_comments(f.read())
        for m in re.finditer(r"\bstruct\s+(\w+)\s*\{", text):
            depth, i = 1, m.end()
            while depth:
                if i >= len(text):
                    raise ContractError("%s: struct %s never closes"
                                        % (path, m.group(1)))
                depth += {"{": 1, "}": -1}.get(text[i], 0)
                i += 1
            structs[m.group(1)] = members(text[m.end():i - 1])
    return structs


SCALARS = {"__u8": (1, "little"), "__le16": (2, "little"),
           "__le32": (4, "little"), "__le64": (8, "little"),
           "__be16": (2, "big"), "__be32": (4, "big"), "__be64": (8, "big")}


class Layout:
    def __init__(self, structs, offsets, sizes):
        self.structs, self.offsets, self.sizes = structs, offsets, sizes
        self.kinds = {}
        for (s, path), (_off, size) in offsets.items():
            self.kinds[s, path] = self.kind(s, path, size)

    def kind(self, s, path, size):
        """'bytes' for char/__u8 arrays, else (width, byteorder)."""
        if s not in self.structs:
            raise ContractError("struct %s is not in the contract" % s)
        mem = self.structs[s]
        parts = path.split(".")
        for i, part in enumerate(parts):
            if part not in mem:
                raise ContractError("struct %s has no member %s" % (s, path))
            typ, array, inner = mem[part]
            if i == len(parts) - 1:
                break
            if inner is not None:
                mem = inner
            elif typ.startswith("struct ") and typ[7:] in self.structs:
                mem = self.structs[typ[7:]]
            else:
                raise ContractError("%s.%s: %s is not a structure" %
                                    (s, path, part))
        if array and typ in ("char", "__u8"):
            return "bytes"
        if array or typ not in SCALARS or SCALARS[typ][0] != size:
            raise ContractError("%s.%s: type %s%s, size %d: not a field "
                                "this script knows how to pack" %
                                (s, path, typ, "[]" if array else "", size))
        return SCALARS[typ]

    def size(self, s):
        return self.sizes[s]

    def where(self, s, path):
        if (s, path) not in self.offsets:
            raise ContractError("%s.%s is not in FIELDS" % (s, path))
        return self.offsets[s, path]

    def put(self, buf, s, path, value):
        off, size = self.where(s, path)
        kind = self.kinds[s, path]
        if kind == "bytes":
            if len(value) > size:
                raise ContractError("%s.%s: %d bytes do not fit in %d" %
                                    (s, path, len(value), size))
            buf[off:off + size] = value + bytes(size - len(value))
        else:
            buf[off:off + size] = value.to_bytes(size, kind[1])

    def get(self, buf, s, path):
        off, size = self.where(s, path)
        kind = self.kinds[s, path]
        raw = bytes(buf[off:off + size])
        return raw if kind == "bytes" else int.from_bytes(raw, kind[1])


def compile_layout(consts, tmp):
    """Offsets/sizes of FIELDS and the compiler's value of every constant
    the parser evaluated, from one small C program."""
    lines = ["#include <stdio.h>", "#include <stddef.h>",
             "#include <linux/pci_regs.h>",
             '#include "sfab/sfab_regs.h"', '#include "sfab/sfab_admin.h"',
             '#include "sfab/sfab_fw.h"', '#include "sfab/sfab_accel.h"',
             '#define SZ(s) printf("size %s 0 %zu\\n", #s, sizeof(struct s))',
             '#define F(s, m) printf("field %s %s %zu %zu\\n", #s, #m, '
             "offsetof(struct s, m), sizeof(((struct s *)0)->m))",
             '#define K(n) printf("const %s %llu\\n", #n, '
             "(unsigned long long)(n))",
             "int main(void)", "{"]
    for s, paths in FIELDS.items():
        lines.append("\tSZ(%s);" % s)
        lines += ["\tF(%s, %s);" % (s, p) for p in paths]
    lines += ["\tK(%s);" % n for n in sorted(consts.vals)]
    lines += ["\treturn 0;", "}"]
    src = os.path.join(tmp, "layout.c")
    exe = os.path.join(tmp, "layout")
    with open(src, "w") as f:
        f.write("\n".join(lines) + "\n")
    cc = os.environ.get("CC", "gcc")
    r = subprocess.run([cc, "-std=gnu11", "-Wall", "-Werror",
                        "-I", os.path.join(TOP, "include"), "-o", exe, src],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    if r.returncode:
        raise ContractError("%s %s failed:\n%s" % (cc, src, r.stdout))
    out = subprocess.run([exe], stdout=subprocess.PIPE, check=True,
                         universal_newlines=True).stdout
    offsets, sizes = {}, {}
    for line in out.splitlines():
        what, a, *rest = line.split()
        if what == "size":
            sizes[a] = int(rest[1])
        elif what == "field":
            offsets[a, rest[0]] = (int(rest[1]), int(rest[2]))
        else:
            b = rest[0]
            mine = consts.vals[a].v & ((1 << 64) - 1)
            if mine != int(b):
                raise ContractError("constant %s: parsed 0x%x, compiler "
                                    "says 0x%x" % (a, mine, int(b)))
    return offsets, sizes


ACCEL_ENCODER = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sfab/sfab_accel.h"

/* one command per input line: OP [hex args]; one line of hex out */
int main(void)
{
	char line[512], op[16], hex[2 * SFAB_ACCEL_IMM_MAX + 1];
	unsigned long long a, b, c, d;
	unsigned char data[SFAB_ACCEL_IMM_MAX];
	struct sfab_accel_cmd cmd;
	unsigned int i, n;
	int r;

	while (fgets(line, sizeof(line), stdin)) {
		a = b = c = d = 0;
		hex[0] = 0;
		if (sscanf(line, "%15s", op) != 1)
			continue;
		r = 0;
		if (!strcmp(op, "imm")) {
			sscanf(line, "%*s %llx %96s", &a, hex);
			n = strlen(hex) / 2;
			for (i = 0; i < n && i < sizeof(data); i++)
				sscanf(hex + 2 * i, "%2hhx", &data[i]);
			r = sfab_accel_cmd_write_imm(&cmd, a, data, n);
		} else {
			sscanf(line, "%*s %llx %llx %llx %llx", &a, &b, &c, &d);
			if (!strcmp(op, "nop"))
				sfab_accel_cmd_nop(&cmd);
			else if (!strcmp(op, "fence"))
				sfab_accel_cmd_fence(&cmd);
			else if (!strcmp(op, "copy"))
				r = sfab_accel_cmd_copy(&cmd, a, b, c);
			else if (!strcmp(op, "store32"))
				r = sfab_accel_cmd_store32(&cmd, a, b);
			else if (!strcmp(op, "store64"))
				r = sfab_accel_cmd_store64(&cmd, a, b);
			else if (!strcmp(op, "poll32"))
				r = sfab_accel_cmd_poll32(&cmd, a, b, c, d);
			else if (!strcmp(op, "complete"))
				r = sfab_accel_cmd_complete(&cmd, a, b, c);
			else if (!strcmp(op, "opcode")) {
				/* a command the encoders would refuse */
				memset(&cmd, 0, sizeof(cmd));
				cmd.opcode = a;
			} else
				r = -1;
		}
		if (r) {
			printf("error %s\n", op);
			continue;
		}
		for (i = 0; i < sizeof(cmd); i++)
			printf("%02x", ((unsigned char *)&cmd)[i]);
		printf("\n");
	}
	return 0;
}
"""


def accel_encoder(tmp):
    """The path of a program that encodes sfab-accel commands with the
    contract's encoders (ACCEL_ENCODER)."""
    src = os.path.join(tmp, "accelcmd.c")
    exe = os.path.join(tmp, "accelcmd")
    with open(src, "w") as f:
        f.write(ACCEL_ENCODER)
    cc = os.environ.get("CC", "gcc")
    r = subprocess.run([cc, "-std=gnu11", "-Wall", "-Werror",
                        "-I", os.path.join(TOP, "include"), "-o", exe, src],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    if r.returncode:
        raise ContractError("%s %s failed:\n%s" % (cc, src, r.stdout))
    return exe


def accel_program(exe, lines):
    """The commands of LINES, encoded, as one bytes object."""
    out = subprocess.run([exe], input="\n".join(lines) + "\n",
                         stdout=subprocess.PIPE, check=True,
                         universal_newlines=True).stdout.splitlines()
    if len(out) != len(lines) or any(o.startswith("error") for o in out):
        raise ContractError("accel encoder refused: %r -> %r" % (lines, out))
    return b"".join(bytes.fromhex(o) for o in out)


def firmware_images(tmp):
    """(good, bad-magic) images from the project's packer: the shipped
    profile with a payload, so the download takes several chunks."""
    build = os.environ.get("SFAB_BUILD") or os.path.join(TOP, "build")
    r = subprocess.run(["make", "-C", TOP, "-s", "O=" + build, "fwpack"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    if r.returncode:
        raise ContractError("make fwpack failed:\n" + r.stdout)
    fwpack = os.path.join(build, "firmware", "sfab-fwpack")
    payload = os.path.join(tmp, "payload.bin")
    with open(payload, "wb") as f:
        f.write(FW_PAYLOAD)
    images = []
    for corrupt in ([], ["--corrupt=magic"]):
        out = os.path.join(tmp, "fw%d.bin" % len(images))
        r = subprocess.run([fwpack, "-p", payload, "-o", out] + corrupt +
                           [FWCONF], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, universal_newlines=True)
        if r.returncode:
            raise ContractError("%s %s failed:\n%s" %
                                (fwpack, " ".join(corrupt), r.stdout))
        with open(out, "rb") as f:
            images.append(f.read())
    return images


# ---------------------------------------------------------------------------

class QTest:
    def __init__(self, qemu, extra, hca_props=""):
        self.logdir = tempfile.mkdtemp(prefix="sfab-qtest-")
        self.log = os.path.join(self.logdir, "qemu.log")
        args = [qemu, "-M", "q35", "-display", "none", "-nodefaults",
                "-m", "64", "-qtest", "stdio", "-accel", "qtest",
                "-device", "sfab-hca,addr=05.0,node-guid=%d%s" % (NODE_GUID,
                                                                  hca_props),
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

    def wr(self, reg, val, size=4, base=None):
        name = {1: "writeb", 2: "writew", 4: "writel", 8: "writeq"}[size]
        self.cmd("%s 0x%x 0x%x" % (name, (BAR0 if base is None else base) + reg, val))

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


class Driver:
    """Just enough of a driver: the admin queue over qtest memory."""

    def __init__(self, q, log_depth=3):
        self.q = q
        self.log = log_depth
        self.tail = 0
        self.head = 0
        self.cmd_id = 0
        self.cmd_size = L.size("sfab_aq_cmd")
        self.cpl_size = L.size("sfab_acq_entry")
        q.wr(C["SFAB_REG_DEV_CTL"], C["SFAB_DEV_CTL_RESET"])
        q.mem_write(AQ, bytes(self.cmd_size << log_depth))
        q.mem_write(ACQ, bytes(self.cpl_size << log_depth))
        q.wr(C["SFAB_REG_AQ_BASE_LO"], AQ)
        q.wr(C["SFAB_REG_AQ_BASE_HI"], 0)
        q.wr(C["SFAB_REG_ACQ_BASE_LO"], ACQ)
        q.wr(C["SFAB_REG_ACQ_BASE_HI"], 0)
        q.wr(C["SFAB_REG_ACQ_CFG"],
             field_prep(C["SFAB_QCFG_LOG_DEPTH_MASK"], log_depth) |
             field_prep(C["SFAB_QCFG_VECTOR_MASK"], C["SFAB_MSIX_ADMIN"]))
        q.wr(C["SFAB_REG_AQ_CFG"],
             field_prep(C["SFAB_QCFG_LOG_DEPTH_MASK"], log_depth) |
             C["SFAB_QCFG_ENABLE"])

    def run(self, opcode, member=None, **fields):
        """One command; fields of the union member `member`.
        Returns (status, result0), (None, None) on timeout."""
        qidx = C["SFAB_QIDX_MASK"]
        self.cmd_id = (self.cmd_id + 1) & qidx
        cmd = bytearray(self.cmd_size)
        L.put(cmd, "sfab_aq_cmd", "opcode", opcode)
        L.put(cmd, "sfab_aq_cmd", "cmd_id", self.cmd_id)
        for k, v in fields.items():
            L.put(cmd, "sfab_aq_cmd", "u.%s.%s" % (member, k), v)
        slot = self.tail & ((1 << self.log) - 1)
        self.q.mem_write(AQ + self.cmd_size * slot, bytes(cmd))
        self.tail = (self.tail + 1) & qidx
        self.q.wr(C["SFAB_REG_AQ_DB"], self.tail)
        phase = 0 if (self.head >> self.log) & 1 else 1
        cslot = self.head & ((1 << self.log) - 1)
        for _ in range(200):
            cpl = self.q.mem_read(ACQ + self.cpl_size * cslot, self.cpl_size)
            flags = L.get(cpl, "sfab_acq_entry", "flags")
            if bool(flags & C["SFAB_ACQ_FLAGS_PHASE"]) == bool(phase):
                self.head = (self.head + 1) & qidx
                cid = L.get(cpl, "sfab_acq_entry", "cmd_id")
                if cid != self.cmd_id:
                    return ("bad-id", cid)
                return (L.get(cpl, "sfab_acq_entry", "status"),
                        L.get(cpl, "sfab_acq_entry", "result0"))
            self.q.cmd("clock_step 1000")
        return None, None

    def query_device(self):
        st, _ = self.run(C["SFAB_AQ_QUERY_DEVICE"], "query_device",
                         resp_addr=RESP, resp_len=L.size("sfab_dev_attr"))
        return st, self.q.mem_read(RESP, L.size("sfab_dev_attr"))

    def query_port(self, port):
        st, _ = self.run(C["SFAB_AQ_QUERY_PORT"], "query_port",
                         resp_addr=RESP, resp_len=L.size("sfab_port_attr"),
                         port_num=port)
        return st, self.q.mem_read(RESP, L.size("sfab_port_attr"))

    def fw_load(self, img):
        self.q.mem_write(FWBUF, img)
        for off in range(0, len(img), FW_CHUNK):
            n = min(FW_CHUNK, len(img) - off)
            st, _ = self.run(C["SFAB_AQ_FW_DOWNLOAD"], "fw_download",
                             addr=FWBUF + off, offset=off, length=n)
            if st:
                return st
        return self.run(C["SFAB_AQ_FW_ACTIVATE"], "fw_activate",
                        image_len=len(img))[0]


def setup(tmp):
    global C, L, BAR0, BAR2, BAR4
    C = Constants(CONTRACT + [PCI_REGS])
    offsets, sizes = compile_layout(C, tmp)
    L = Layout(parse_structs(CONTRACT), offsets, sizes)
    BAR0 = BAR_ADDR["SFAB_BAR_REGS"]
    BAR2 = BAR_ADDR["SFAB_BAR_DB"]
    BAR4 = BAR_ADDR["SFAB_BAR_MSIX"]
    return firmware_images(tmp)


def cstr_ok(field):
    return field[:1] not in (b"", b"\0") and b"\0" in field


def exercise(q, good_fw, bad_magic_fw):
    ones = lambda size: (1 << (8 * size)) - 1
    sts_ready = C["SFAB_DEV_STS_READY"]
    sts_aq = C["SFAB_DEV_STS_AQ_ENABLED"]

    ident = q.cfg_read(C["PCI_VENDOR_ID"])
    check("pci-id", ident == (C["SFAB_PCI_DEVICE_ID"] << 16 |
                              C["SFAB_PCI_VENDOR_ID"]),
          "id 0x%08x" % (ident or 0))
    cls = q.cfg_read(C["PCI_CLASS_REVISION"])
    check("pci-class-rev", cls == (C["SFAB_PCI_CLASS"] << 16 |
                                   C["SFAB_PCI_REVISION"]),
          "class/rev 0x%08x" % (cls or 0))
    # BARs, memory decoding and bus mastering
    bar = lambda n: C["PCI_BASE_ADDRESS_0"] + 4 * C[n]
    for name, addr in BAR_ADDR.items():
        q.cfg_write(bar(name), addr)
    q.cfg_write(bar("SFAB_BAR_DB") + 4, 0)          # 64-bit BAR, high half
    q.cfg_write(C["PCI_COMMAND"],
                C["PCI_COMMAND_MEMORY"] | C["PCI_COMMAND_MASTER"])
    check("bar0-id", q.rd(C["SFAB_REG_ID"]) == C["SFAB_ID_MAGIC"])
    check("bar0-version", q.rd(C["SFAB_REG_VERSION"]) == (
        field_prep(C["SFAB_VERSION_MAJOR_MASK"], C["SFAB_IF_VERSION_MAJOR"]) |
        field_prep(C["SFAB_VERSION_MINOR_MASK"], C["SFAB_IF_VERSION_MINOR"])))
    check("msix-vectors",
          q.rd(C["SFAB_REG_MSIX_CFG"]) == C["SFAB_MSIX_MAX_VECTORS"])
    check("ready", q.rd(C["SFAB_REG_DEV_STS"]) == sts_ready)
    # access sizes: only aligned 32-bit counts
    check("read-size-1", q.rd(C["SFAB_REG_ID"], 1) == ones(1))
    check("read-size-2", q.rd(C["SFAB_REG_ID"], 2) == ones(2))
    check("read-size-8", q.rd(C["SFAB_REG_ID"], 8) == ones(8))
    check("read-unaligned",
          q.cmd("readl 0x%x" % (BAR0 + C["SFAB_REG_ID"] + 2)) == ones(4))
    q.wr(C["SFAB_REG_INTR_MASK"], 0xFF, size=2)
    check("write-size-2-ignored", q.rd(C["SFAB_REG_INTR_MASK"]) == 0)

    d = Driver(q)
    check("aq-enabled", q.rd(C["SFAB_REG_DEV_STS"]) == sts_ready | sts_aq)
    st, attr = d.query_device()
    check("query-device", st == C["SFAB_AQ_STS_OK"] and
          L.get(attr, "sfab_dev_attr", "fw_version")[0] == 0 and
          L.get(attr, "sfab_dev_attr", "node_guid") == NODE_GUID,
          "status %r attr %s" % (st, attr[:64].hex()))
    st, _ = d.query_port(1)
    check("query-port-no-fw", st == C["SFAB_AQ_STS_NO_FW"], "status %r" % (st,))
    st = d.fw_load(bad_magic_fw)
    fws = q.rd(C["SFAB_REG_FW_STATE"])
    want = (field_prep(C["SFAB_FW_STATE_MASK"], C["SFAB_FW_STATE_FAILED"]) |
            field_prep(C["SFAB_FW_STATE_ERR_MASK"],
                       C["SFAB_AQ_STS_FW_BAD_MAGIC"]))
    check("fw-bad-magic", st == C["SFAB_AQ_STS_FW_BAD_MAGIC"] and fws == want,
          "status %r fw_state 0x%x" % (st, fws))
    st = d.fw_load(good_fw)
    check("fw-good", st == C["SFAB_AQ_STS_OK"] and
          q.rd(C["SFAB_REG_FW_STATE"]) == field_prep(
              C["SFAB_FW_STATE_MASK"], C["SFAB_FW_STATE_ACTIVE"]),
          "status %r" % (st,))
    st, attr = d.query_device()
    fwv = L.get(good_fw, "sfab_fw_header", "fw_version")
    board = L.get(good_fw, "sfab_fw_header", "board_id")
    check("fw-version", st == C["SFAB_AQ_STS_OK"] and cstr_ok(fwv) and
          L.get(attr, "sfab_dev_attr", "fw_version") == fwv and
          L.get(attr, "sfab_dev_attr", "board_id") == board,
          "status %r attr %s image %s %s" % (st, attr[:48], fwv, board))
    st, port = d.query_port(1)
    check("query-port", st == C["SFAB_AQ_STS_OK"] and
          L.get(port, "sfab_port_attr", "state") == C["SFAB_PORT_DOWN"] and
          L.get(port, "sfab_port_attr", "phys_state") ==
          C["SFAB_PHYS_POLLING"] and
          L.get(port, "sfab_port_attr", "port_guid") == NODE_GUID + 1,
          "status %r port %s" % (st, port[:32].hex()))
    # MSI-X: the admin vector aimed at guest RAM, so a notification is a
    # write we can see; INTR_MASK holds it back until unmasked
    cap = q.cfg_read(C["PCI_CAPABILITY_LIST"]) & 0xFF
    while cap and (q.cfg_read(cap) >> 8 * C["PCI_CAP_LIST_ID"]) & 0xFF != \
            C["PCI_CAP_ID_MSIX"]:
        cap = (q.cfg_read(cap) >> 8 * C["PCI_CAP_LIST_NEXT"]) & 0xFF
    table = q.cfg_read(cap + C["PCI_MSIX_TABLE"]) if cap else 0
    bir = table & C["PCI_MSIX_TABLE_BIR"]
    check("msix-capability", cap != 0 and bir == C["SFAB_BAR_MSIX"],
          "capability at 0x%x, table 0x%x" % (cap, table))
    if cap:
        flags = cap + C["PCI_MSIX_FLAGS"]
        q.cfg_write(flags, q.cfg_read(flags) |
                    C["PCI_MSIX_FLAGS_ENABLE"] << 8 * (flags & 3))
        entry = (BAR4 + (table & C["PCI_MSIX_TABLE_OFFSET"]) +
                 C["PCI_MSIX_ENTRY_SIZE"] * C["SFAB_MSIX_ADMIN"])
        for reg, val in (("LOWER_ADDR", MSI_ADDR), ("UPPER_ADDR", 0),
                         ("DATA", MSI_DATA), ("VECTOR_CTRL", 0)):
            q.cmd("writel 0x%x 0x%x" % (entry + C["PCI_MSIX_ENTRY_" + reg],
                                        val))
        msi = MSI_DATA.to_bytes(4, "little")
        q.mem_write(MSI_ADDR, bytes(4))
        d.query_device()
        check("msix-notify", q.mem_read(MSI_ADDR, 4) == msi)
        q.mem_write(MSI_ADDR, bytes(4))
        q.wr(C["SFAB_REG_INTR_MASK"], 1 << C["SFAB_MSIX_ADMIN"])
        d.query_device()
        held = q.mem_read(MSI_ADDR, 4) == bytes(4)
        q.wr(C["SFAB_REG_INTR_MASK"], 0)
        check("intr-mask", held and q.mem_read(MSI_ADDR, 4) == msi)
    # phase wrap over several passes of the 8-entry ring
    ok = all(d.query_device()[0] == C["SFAB_AQ_STS_OK"] for _ in range(40))
    check("phase-wrap", ok)
    # the admin queue pointed at the device's own BAR: fatal, no hang
    depth = field_prep(C["SFAB_QCFG_LOG_DEPTH_MASK"], d.log)
    q.wr(C["SFAB_REG_AQ_CFG"], depth)
    q.wr(C["SFAB_REG_AQ_BASE_LO"], BAR0)
    q.wr(C["SFAB_REG_AQ_CFG"], depth | C["SFAB_QCFG_ENABLE"])
    q.wr(C["SFAB_REG_AQ_DB"], 1)
    q.cmd("clock_step 1000")
    sts = q.rd(C["SFAB_REG_DEV_STS"])
    err = q.rd(C["SFAB_REG_ERR_INFO"])
    check("dma-to-own-bar-fatal", sts & C["SFAB_DEV_STS_FATAL"] and
          err == C["SFAB_ERR_AQ_DMA"], "dev_sts 0x%x err %d" % (sts, err))

    # random writes everywhere
    rnd = random.Random(0x5FAB)
    regs = sorted(C[n] for n in C.names("SFAB_REG_"))
    for i in range(20000):
        size = rnd.choice((1, 2, 4, 4, 4, 8))
        if rnd.random() < 0.7:
            off = (rnd.choice(regs) if rnd.random() < 0.8 else
                   rnd.randrange(C["SFAB_BAR_REGS_SIZE"]))
            val = rnd.getrandbits(size * 8)
            if off == C["SFAB_REG_AQ_DB"] and rnd.random() < 0.5:
                val = rnd.randrange(16)
            q.wr(off, val, size=size)
        else:
            q.wr(rnd.randrange(C["SFAB_DB_BAR_SIZE"] - 8),
                 rnd.getrandbits(size * 8), size=size, base=BAR2)
        if i % 1000 == 0:
            q.cmd("clock_step 100000")
    check("random-writes-alive", q.rd(C["SFAB_REG_ID"]) == C["SFAB_ID_MAGIC"])
    d = Driver(q)
    st, _ = d.query_device()
    sts = q.rd(C["SFAB_REG_DEV_STS"])
    check("reset-recovers", st == C["SFAB_AQ_STS_OK"] and
          sts == sts_ready | sts_aq, "status %r dev_sts 0x%x" % (st, sts))


def cable_accept(lsock):
    """The HCA's cable connecting to our "switch port": (conn, error)."""
    try:
        return lsock.accept()[0], ""
    except OSError as e:
        return None, "no connection from QEMU: %s" % e


def cable_closed_by_peer(conn):
    """QEMU closed its end: EOF within the timeout (what it sent before,
    a ring offer, is read and dropped)."""
    conn.settimeout(10)
    try:
        while conn.recv(4096) != b"":
            pass
        return True
    except OSError:
        return False


def cable_offer(conn, wait=10):
    """What QEMU sent first on a new cable: "offer" for a ring offer with
    its three descriptors (closed here), "none" for nothing within WAIT
    seconds, else what it was."""
    conn.settimeout(wait)
    try:
        data, fds, _, _ = socket.recv_fds(conn, 12, 4)
    except socket.timeout:
        return "none"
    except OSError as e:
        return "error %s" % e
    for fd in fds:
        os.close(fd)
    # a control message's header, then struct sfab_wire_cable_ctl (8 bytes)
    offer = struct.pack(">IHH", C["SFAB_WIRE_CABLE_CTL"] | 8,
                        C["SFAB_CABLE_CTL_RING_OFFER"], 0)
    if data[:8] == offer and len(fds) == 3:
        return "offer"
    return "%r with %d descriptors" % (data, len(fds))


def exercise_cable(qemu):
    """The cable backend object, against a socket we listen on."""
    tmp = tempfile.mkdtemp(prefix="sfab-qtest-cable-")
    path = os.path.join(tmp, "port1.sock")
    lsock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    lsock.bind(path)
    lsock.listen(4)
    lsock.settimeout(10)
    q = QTest(qemu, ["-object", "sfab-cable,id=cab0,path=%s,reconnect-ms=100"
                     % path], hca_props=",cable=cab0")
    conn = None
    try:
        conn, err = cable_accept(lsock)
        check("cable-connect", conn is not None, err)
        if conn:
            # the cable offers its ring pair first
            got = cable_offer(conn)
            check("cable-ring-offer", got == "offer", got)
            # the peer goes away, the offer unanswered (as a switch that
            # does not know rings would): the cable redials after
            # reconnect-ms, and offers nothing this time
            conn.close()
            conn, err = cable_accept(lsock)
            check("cable-reconnect", conn is not None, err)
        if conn:
            got = cable_offer(conn, 1)
            check("cable-no-offer-after-hangup", got == "none", got)
            # a frame of length 0: framing error, the HCA hangs up, redials
            conn.sendall(bytes(4))
            check("cable-framing-error-closes", cable_closed_by_peer(conn))
            conn.close()
            conn, err = cable_accept(lsock)
            check("cable-framing-error-reconnect", conn is not None, err)
        if conn:
            # that hang-up was not on an offer: this connection offers
            got = cable_offer(conn)
            check("cable-ring-offer-again", got == "offer", got)
        ident = q.cfg_read(C["PCI_VENDOR_ID"])
        check("cable-device-alive", ident == (C["SFAB_PCI_DEVICE_ID"] << 16 |
                                              C["SFAB_PCI_VENDOR_ID"]),
              "id 0x%08x" % (ident or 0))
    except (RuntimeError, OSError) as e:
        check("cable-qemu-alive", False, str(e))
    # our end stays open until QEMU is gone: no fourth connection
    rc = q.quit()
    check("cable-qemu-exit", rc == 0, "exit status %r" % rc)
    if conn:
        conn.close()
    lsock.close()
    log = q.logtext()
    check("cable-trace",
          log.count("sfab_cable_connect ") == 3 and
          "disconnected: peer closed" in log and
          "disconnected: framing error" in log, log[-2000:])

    # what QEMU must refuse, before it runs anything
    long_path = os.path.join(tmp, "x" * 120)
    base = [qemu, "-M", "q35", "-display", "none", "-nodefaults", "-m", "64",
            "-accel", "qtest", "-qtest", "stdio"]
    dev = "sfab-hca,addr=05.0,cable="
    obj = "sfab-cable,id=cab0,path=" + path
    for name, args, want in (
            ("cable-no-such-object", ["-device", dev + "nosuch"], "nosuch"),
            ("cable-in-use", ["-object", obj, "-device", dev + "cab0",
                              "-device", "sfab-hca,addr=06.0,cable=cab0"],
             "already in use"),
            ("cable-no-path", ["-object", "sfab-cable,id=cab0,path="],
             "is required"),
            ("cable-path-too-long",
             ["-object", "sfab-cable,id=cab0,path=" + long_path],
             "too long"),
            ("cable-reconnect-ms-0", ["-object", obj + ",reconnect-ms=0"],
             "reconnect-ms must be at least 1")):
        try:
            r = subprocess.run(base + args, stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT,
                               universal_newlines=True, timeout=60)
            ok = r.returncode != 0 and want in r.stdout
            detail = "exit status %d: %s" % (r.returncode, r.stdout.strip())
        except subprocess.TimeoutExpired:
            ok, detail = False, "QEMU started instead of refusing"
        check(name, ok, detail)
    if not failures:
        shutil.rmtree(q.logdir, ignore_errors=True)
    shutil.rmtree(tmp, ignore_errors=True)


# sfab-accel, next to the HCA: test choices, not contract
ACCEL_DEVFN = 6 << 3                            # 00:06.0
ACCEL_BAR0, ACCEL_BAR4 = 0xE1000000, 0xE1100000
ACCEL_BAR2 = 0xE8000000                         # 16 MiB, aligned
ACCEL_RING, ACCEL_HOST, ACCEL_MSI = 0x500000, 0x510000, 0x520000
ACCEL_MSI_DATA = 0xB0


def exercise_accel(qemu, exe):
    """sfab-accel runs a program that acts as a GPU kernel would."""
    q = QTest(qemu, ["-device", "sfab-accel,addr=06.0,mem-size=16M"])
    A = lambda n: C["SFAB_ACCEL_" + n]

    def cfg(off):
        return 0x80000000 | (ACCEL_DEVFN << 8) | (off & 0xFC)

    def cfg_rd(off):
        q.cmd("outl 0xcf8 0x%x" % cfg(off))
        return q.cmd("inl 0xcfc")

    def cfg_wr(off, val):
        q.cmd("outl 0xcf8 0x%x" % cfg(off))
        q.cmd("outl 0xcfc 0x%x" % val)

    def rd(reg):
        return q.cmd("readl 0x%x" % (ACCEL_BAR0 + A("REG_" + reg)))

    def wr(reg, val):
        q.cmd("writel 0x%x 0x%x" % (ACCEL_BAR0 + A("REG_" + reg), val))

    def run_until(cond, steps=200):
        """let the bottom half and the POLL timer run (virtual time)"""
        for _ in range(steps):
            if cond():
                return True
            q.cmd("clock_step 10000")
        return cond()

    try:
        ident = cfg_rd(C["PCI_VENDOR_ID"])
        check("accel-pci-id", ident == (A("PCI_DEVICE_ID") << 16 |
                                        A("PCI_VENDOR_ID")),
              "id 0x%08x" % (ident or 0))
        bar = lambda n: C["PCI_BASE_ADDRESS_0"] + 4 * n
        cfg_wr(bar(A("BAR_REGS")), ACCEL_BAR0)
        cfg_wr(bar(A("BAR_MEM")), ACCEL_BAR2)
        cfg_wr(bar(A("BAR_MEM")) + 4, 0)
        cfg_wr(bar(A("BAR_MSIX")), ACCEL_BAR4)
        cmd = C["PCI_COMMAND_MEMORY"] | C["PCI_COMMAND_MASTER"]
        cfg_wr(C["PCI_COMMAND"], cmd)
        # the HCA's BAR0 is where the peer store goes
        q.cfg_write(bar(C["SFAB_BAR_REGS"]), BAR0)
        q.cfg_write(C["PCI_COMMAND"], cmd)
        check("accel-id", rd("ID") == A("ID_MAGIC") and rd("MEM_SIZE") == 24,
              "id 0x%x mem_size %r" % (rd("ID"), rd("MEM_SIZE")))
        # MSI-X vector 0 (completions) aimed at guest RAM
        cap = cfg_rd(C["PCI_CAPABILITY_LIST"]) & 0xFF
        while cap and (cfg_rd(cap) >> 8 * C["PCI_CAP_LIST_ID"]) & 0xFF != \
                C["PCI_CAP_ID_MSIX"]:
            cap = (cfg_rd(cap) >> 8 * C["PCI_CAP_LIST_NEXT"]) & 0xFF
        table = cfg_rd(cap + C["PCI_MSIX_TABLE"]) if cap else 0
        check("accel-msix-capability",
              cap != 0 and table & C["PCI_MSIX_TABLE_BIR"] == A("BAR_MSIX"))
        if cap:
            flags = cap + C["PCI_MSIX_FLAGS"]
            cfg_wr(flags, cfg_rd(flags) |
                   C["PCI_MSIX_FLAGS_ENABLE"] << 8 * (flags & 3))
            entry = (ACCEL_BAR4 + (table & C["PCI_MSIX_TABLE_OFFSET"]) +
                     C["PCI_MSIX_ENTRY_SIZE"] * A("MSIX_CPL"))
            for reg, val in (("LOWER_ADDR", ACCEL_MSI), ("UPPER_ADDR", 0),
                             ("DATA", ACCEL_MSI_DATA), ("VECTOR_CTRL", 0)):
                q.cmd("writel 0x%x 0x%x" % (entry + C["PCI_MSIX_ENTRY_" + reg],
                                            val))

        # a ring of 8; the program: immediate bytes into device memory,
        # a fence, a copy of them to host memory, a 64-bit store to host
        # memory, a 32-bit store into the HCA's AQ_BASE_LO (peer write),
        # a poll of host memory, a completion with an interrupt
        wr("RING_CFG", 3)
        wr("RING_BASE_LO", ACCEL_RING)
        wr("RING_BASE_HI", 0)
        wr("CTL", A("CTL_ENABLE"))
        check("accel-enabled", rd("STATUS") == A("STS_ENABLED"),
              "status 0x%x" % rd("STATUS"))
        pattern = bytes(range(0x31, 0x31 + 40))
        peer = BAR0 + C["SFAB_REG_AQ_BASE_LO"]
        prog = accel_program(exe, [
            "imm %x %s" % (ACCEL_BAR2 + 0x1000, pattern.hex()),
            "fence",
            "copy %x %x %x" % (ACCEL_HOST, ACCEL_BAR2 + 0x1000, len(pattern)),
            "store64 %x 1122334455667788" % (ACCEL_HOST + 0x40),
            "store32 %x abc000" % peer,
            "poll32 %x ff 5a 3b9aca00" % (ACCEL_HOST + 0x80),
            "complete %x 7 1" % (ACCEL_HOST + 0xc0)])
        q.mem_write(ACCEL_RING, prog)
        q.mem_write(ACCEL_HOST, bytes(0x100))
        q.mem_write(ACCEL_MSI, bytes(4))
        wr("RING_PI", 7)
        polling = run_until(lambda: rd("RING_CI") == 5 and
                            rd("STATUS") & A("STS_POLLING"))
        check("accel-runs-to-poll", polling,
              "CI %r status 0x%x" % (rd("RING_CI"), rd("STATUS")))
        check("accel-write-imm", q.mem_read(ACCEL_BAR2 + 0x1000,
                                            len(pattern)) == pattern)
        check("accel-copy", q.mem_read(ACCEL_HOST, len(pattern)) == pattern)
        check("accel-store64", q.mem_read(ACCEL_HOST + 0x40, 8) ==
              (0x1122334455667788).to_bytes(8, "little"))
        got = q.cmd("readl 0x%x" % peer)
        check("accel-peer-store", got == 0xABC000, "HCA AQ_BASE_LO 0x%x" % got)
        check("accel-poll-waits", q.mem_read(ACCEL_HOST + 0xc0, 8) == bytes(8)
              and q.mem_read(ACCEL_MSI, 4) == bytes(4))
        # the host writes what the poll waits for
        q.mem_write(ACCEL_HOST + 0x80, b"\x5a\x01\x00\x00")
        done = run_until(lambda: rd("RING_CI") == 7)
        check("accel-poll-matched", done and rd("STATUS") == A("STS_ENABLED"),
              "CI %r status 0x%x" % (rd("RING_CI"), rd("STATUS")))
        check("accel-complete",
              q.mem_read(ACCEL_HOST + 0xc0, 8) == (7).to_bytes(8, "little")
              and rd("SEQ_LO") == 7 and rd("SEQ_HI") == 0)
        check("accel-msix-notify", q.mem_read(ACCEL_MSI, 4) ==
              ACCEL_MSI_DATA.to_bytes(4, "little"))

        # a command with no such opcode, at index 7: the ring stops there
        q.mem_write(ACCEL_RING + 7 * A("CMD_SIZE"),
                    accel_program(exe, ["opcode 7f"]))
        wr("RING_PI", 8)
        stopped = run_until(lambda: rd("STATUS") & A("STS_ERROR"))
        check("accel-bad-opcode", stopped and
              rd("ERR_CODE") == C["SFAB_ACCEL_ERR_OPCODE"] and
              rd("ERR_INDEX") == 7 and rd("RING_CI") == 7,
              "status 0x%x err %r index %r" % (rd("STATUS"), rd("ERR_CODE"),
                                               rd("ERR_INDEX")))
        wr("CTL", A("CTL_RESET"))
        check("accel-reset", rd("STATUS") == 0 and rd("ERR_CODE") == 0 and
              rd("RING_CI") == 0 and rd("RING_PI") == 0)
        # a POLL of 1 ms that never matches: poll-timeout at index 0
        wr("RING_CFG", 3)
        wr("RING_BASE_LO", ACCEL_RING)
        wr("CTL", A("CTL_ENABLE"))
        q.mem_write(ACCEL_RING, accel_program(
            exe, ["poll32 %x ff 5b f4240" % (ACCEL_HOST + 0x80)]))
        wr("RING_PI", 1)
        stopped = run_until(lambda: rd("STATUS") & A("STS_ERROR"))
        check("accel-poll-timeout", stopped and
              rd("ERR_CODE") == C["SFAB_ACCEL_ERR_POLL_TIMEOUT"] and
              rd("ERR_INDEX") == 0,
              "status 0x%x err %r" % (rd("STATUS"), rd("ERR_CODE")))
    except (RuntimeError, ContractError) as e:
        check("accel-qemu-alive", False, str(e))
    rc = q.quit()
    check("accel-qemu-exit", rc == 0, "exit status %r" % rc)
    log = q.logtext()
    check("accel-trace", "sfab_accel_enable" in log and
          "sfab_accel_poll_wait" in log and "sfab_accel_complete" in log and
          "sfab_accel_error" in log, log[-2000:])
    check("accel-guest-error-log", "sfab-accel: " in log, log[-2000:])
    # device memory must be a power of two in range
    base = [qemu, "-M", "q35", "-display", "none", "-nodefaults", "-m", "64",
            "-accel", "qtest", "-qtest", "stdio"]
    for size in ("3M", "512K"):
        try:
            r = subprocess.run(base + ["-device", "sfab-accel,mem-size=" + size],
                               stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT,
                               universal_newlines=True, timeout=60)
            ok = r.returncode != 0 and "mem-size" in r.stdout
            detail = "exit status %d: %s" % (r.returncode, r.stdout.strip())
        except subprocess.TimeoutExpired:
            ok, detail = False, "QEMU started instead of refusing"
        check("accel-mem-size-" + size, ok, detail)
    if not failures:
        shutil.rmtree(q.logdir, ignore_errors=True)


def exercise_flash(qemu, tmp, good_fw, bad_magic_fw):
    """the "fw" property: the image runs from reset with no download and
    again after the reset bit; a bad or missing file stops QEMU with a
    message naming it and the reason"""
    good = os.path.join(tmp, "flash-good.fw")
    bad = os.path.join(tmp, "flash-bad.fw")
    with open(good, "wb") as f:
        f.write(good_fw)
    with open(bad, "wb") as f:
        f.write(bad_magic_fw)
    q = QTest(qemu, [], ",fw=" + good)
    try:
        bar = lambda n: C["PCI_BASE_ADDRESS_0"] + 4 * C[n]
        for name, addr in BAR_ADDR.items():
            q.cfg_write(bar(name), addr)
        q.cfg_write(bar("SFAB_BAR_DB") + 4, 0)
        q.cfg_write(C["PCI_COMMAND"],
                    C["PCI_COMMAND_MEMORY"] | C["PCI_COMMAND_MASTER"])
        active = C["SFAB_FW_STATE_ACTIVE"]
        state = lambda: q.rd(C["SFAB_REG_FW_STATE"]) & C["SFAB_FW_STATE_MASK"]
        check("flash-active-at-start", state() == active,
              "FW_STATE 0x%x" % q.rd(C["SFAB_REG_FW_STATE"]))
        d = Driver(q)
        st, _ = d.query_port(1)
        check("flash-query-port", st == C["SFAB_AQ_STS_OK"], "status %r" % (st,))
        q.wr(C["SFAB_REG_DEV_CTL"], C["SFAB_DEV_CTL_RESET"])
        check("flash-active-after-reset", state() == active,
              "FW_STATE 0x%x" % q.rd(C["SFAB_REG_FW_STATE"]))
    except RuntimeError as e:
        check("flash-qemu-alive", False, str(e))
    check("flash-qemu-exit", q.quit() == 0)
    shutil.rmtree(q.logdir, ignore_errors=True)
    for path, want in ((bad, "image rejected: bad magic"),
                       (os.path.join(tmp, "no-such.fw"), "no-such.fw")):
        r = subprocess.run([qemu, "-M", "q35", "-display", "none", "-nodefaults",
                            "-accel", "qtest", "-device", "sfab-hca,fw=" + path],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           universal_newlines=True, timeout=60)
        check("flash-refused-" + os.path.basename(path),
              r.returncode != 0 and "sfab-hca: fw " + path in r.stdout and
              want in r.stdout, "exit %d: %s" % (r.returncode, r.stdout.strip()))


def main():
    qemu = sys.argv[1]
    tmp = tempfile.mkdtemp(prefix="sfab-qtest-build-")
    try:
        good_fw, bad_magic_fw = setup(tmp)
        accel_exe = accel_encoder(tmp)
    except ContractError as e:
        shutil.rmtree(tmp, ignore_errors=True)
        check("setup", False, str(e))
        return 1

    q = QTest(qemu, [])
    try:
        exercise(q, good_fw, bad_magic_fw)
    except RuntimeError as e:
        check("qemu-alive", False, str(e))
    except ContractError as e:
        check("contract", False, str(e))
    rc = q.quit()
    check("qemu-exit", rc == 0, "exit status %r" % rc)
    log = q.logtext()
    check("trace-events", "sfab_admin_cmd" in log and "sfab_fw_state" in log and
          "sfab_reset" in log)
    check("guest-error-log", "sfab-hca: 2-byte read" in log and
          "firmware image rejected" in log)
    # the one guest-error trace event names the site, shell's and engine's
    check("guest-error-trace", "sfab_guest_error site" in log and
          "(reg-read)" in log and "(fw-image)" in log)
    if failures:
        print("QEMU log and trace: %s" % q.log, file=sys.stderr)
    else:
        shutil.rmtree(q.logdir, ignore_errors=True)
    exercise_flash(qemu, tmp, good_fw, bad_magic_fw)
    exercise_cable(qemu)
    exercise_accel(qemu, accel_exe)
    shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
