#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Carry one TCP connection between two guests through a shared directory.

The guests of a lab have no network, but the rdma-core example programs
(ibv_*_pingpong) exchange their queue pair numbers over TCP.  On the
client's guest, `relay.py listen PORT DIR` accepts the program's
connection on 127.0.0.1:PORT; on the server's guest, `relay.py connect
PORT DIR` connects to the program listening there.  Bytes travel as
numbered chunk files in DIR (the lab share): a2b.N from the listening side,
b2a.N from the connecting side, each written under a temporary name and
renamed, so a reader never sees half a chunk; A2B.eof / B2A.eof mark the
end of a direction.  Exits 0 when both directions have ended, 1 on a
timeout or an error (the message says which).
"""
import os
import socket
import sys
import threading
import time

POLL = 0.01


def put(d, name, data):
    tmp = os.path.join(d, "." + name + ".tmp")
    with open(tmp, "wb") as f:
        f.write(data)
    os.rename(tmp, os.path.join(d, name))


def sock_to_files(sock, d, out, errors):
    n = 0
    try:
        while True:
            data = sock.recv(65536)
            if not data:
                break
            put(d, "%s.%d" % (out, n), data)
            n += 1
    except OSError as e:
        errors.append("receive: %s" % e)
    put(d, out.upper() + ".eof", str(n).encode())


def files_to_sock(sock, d, inp, deadline, errors):
    n = 0
    while True:
        f = os.path.join(d, "%s.%d" % (inp, n))
        if os.path.exists(f):
            with open(f, "rb") as fh:
                data = fh.read()
            try:
                sock.sendall(data)
            except OSError as e:
                errors.append("send: %s" % e)
                return
            n += 1
            continue
        eof = os.path.join(d, inp.upper() + ".eof")
        if os.path.exists(eof):
            with open(eof) as fh:
                total = int(fh.read() or 0)
            if n >= total:
                try:
                    sock.shutdown(socket.SHUT_WR)
                except OSError:
                    pass
                return
            continue
        if time.time() > deadline:
            errors.append("no data from the other side")
            return
        time.sleep(POLL)


def main():
    if len(sys.argv) < 4 or sys.argv[1] not in ("listen", "connect"):
        print("usage: relay.py listen|connect PORT DIR [TIMEOUT]", file=sys.stderr)
        return 2
    mode, port, d = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    deadline = time.time() + (float(sys.argv[4]) if len(sys.argv) > 4 else 120)
    os.makedirs(d, exist_ok=True)
    if mode == "listen":
        ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        ls.bind(("127.0.0.1", port))
        ls.listen(1)
        put(d, "listening", b"")
        ls.settimeout(max(deadline - time.time(), 1))
        try:
            sock, _ = ls.accept()
        except OSError as e:
            print("relay: no connection on port %d: %s" % (port, e), file=sys.stderr)
            return 1
        ls.close()
        out, inp = "a2b", "b2a"
    else:
        while True:
            try:
                sock = socket.create_connection(("127.0.0.1", port), timeout=5)
                break
            except OSError as e:
                if time.time() > deadline:
                    print("relay: cannot connect to port %d: %s" % (port, e),
                          file=sys.stderr)
                    return 1
                time.sleep(0.1)
        sock.settimeout(None)
        out, inp = "b2a", "a2b"
    errors = []
    t = threading.Thread(target=sock_to_files, args=(sock, d, out, errors))
    t.start()
    files_to_sock(sock, d, inp, deadline, errors)
    t.join(max(deadline - time.time(), 1))
    sock.close()
    if errors or t.is_alive():
        print("relay (%s %d): %s" % (mode, port, "; ".join(errors) or "receive did not end"),
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
