#!/usr/bin/env python3
"""Reads the log of a verbose gtlsserver (ngtcp2's example server without
--quiet) and prints the HTTP/3 frames each connection's client control
stream (stream 0x2) carried, rebuilt from the in-order stream data the
server dumps in hex: one line per frame,
  CONN TYPE [ELEMENT_ID VALUE]
with TYPE in hex and, for PRIORITY_UPDATE (0xf0700), the prioritized
stream ID in decimal and the field value. With --settings (before the
log) it prints instead one line per SETTINGS frame,
  CONN ID:VALUE;...
ids and values in decimal, a reserved (GREASE) one as GREASE: the HTTP/3
fingerprint a server reads. A control stream that does
not start with type 0x00 or ends inside a frame makes it exit 1."""
import re
import sys

def varint(b, i):
    if i >= len(b):
        return None, i
    n = 1 << (b[i] >> 6)
    if i + n > len(b):
        return None, i
    v = b[i] & 0x3F
    for k in range(1, n):
        v = (v << 8) | b[i + k]
    return v, i + n

settings_only = sys.argv[1] == "--settings"
if settings_only:
    sys.argv.pop(1)


def settings_text(p):
    out, i = [], 0
    while i < len(p):
        sid, i = varint(p, i)
        v, i = varint(p, i)
        if sid is None or v is None:
            return "truncated"
        out.append("GREASE" if sid >= 0x21 and (sid - 0x21) % 0x1F == 0
                   else "%d:%d" % (sid, v))
    return ";".join(out)


streams = {}
order = []
conn = None
cur = None
for line in open(sys.argv[1], errors="replace"):
    m = re.match(r"I\d+ (0x[0-9a-f]+) frm rx", line)
    if m:
        conn = m[1]
        continue
    m = re.match(r"Ordered STREAM data stream_id=(0x[0-9a-f]+)", line)
    if m:
        cur = None
        if m[1] == "0x2" and conn:
            if conn not in streams:
                streams[conn] = bytearray()
                order.append(conn)
            cur = streams[conn]
        continue
    if cur is not None:
        m = re.match(r"([0-9a-f]{8})  (.*?)\s*(\|.*)?$", line.rstrip("\n"))
        if m:
            cur.extend(bytes.fromhex(m[2].replace(" ", "")))
            continue
        cur = None

bad = 0
for n, c in enumerate(order, 1):
    b = bytes(streams[c])
    if not b or b[0] != 0:
        print("%d stream-type-not-control" % n)
        bad = 1
        continue
    i = 1
    while i < len(b):
        t, j = varint(b, i)
        ln, j = varint(b, j) if t is not None else (None, j)
        if t is None or ln is None or j + ln > len(b):
            print("%d truncated" % n)
            bad = 1
            break
        payload = b[j:j + ln]
        if settings_only:
            if t == 4:
                print("%d %s" % (n, settings_text(payload)))
        elif t == 0xF0700:
            eid, k = varint(payload, 0)
            print("%d %x %d %s" % (n, t, eid, payload[k:].decode("ascii", "replace")))
        else:
            print("%d %x" % (n, t))
        i = j + ln
sys.exit(bad)
