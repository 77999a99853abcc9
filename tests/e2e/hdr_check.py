#!/usr/bin/env python3
"""An independent reading of shb's histogram export (HdrHistogram V2
compressed, base64): Python's own base64 and zlib, the V2 header and the
ZigZag LEB128 counts decoded here. Used by tests/e2e/merge.sh.

  hdr_check.py merged.json part.json...
checks that the merged report holds the sum of the parts' requests and
statuses, that its histogram is the bucket-for-bucket sum of theirs, and
that each of its percentiles is the one of that summed histogram (shb's
rule: the rank ceil(p * count), reported as the bucket's highest value
and never above max). Prints what it compared; exits 1 on a difference."""
import base64
import json
import math
import struct
import sys
import zlib

HALF_MAG = 10  # 3 significant digits: 2048 sub-buckets, the upper half stored
HALF = 1 << HALF_MAG


def decode(b64):
    raw = base64.b64decode(b64)
    cookie, zlen = struct.unpack('>II', raw[:8])
    assert cookie & ~0xf0 == 0x1c849304, hex(cookie)
    v2 = zlib.decompress(raw[8:8 + zlen])
    cookie, plen, offset, digits, lowest, highest, ratio = \
        struct.unpack('>IIIIqqd', v2[:40])
    assert cookie & ~0xf0 == 0x1c849303, hex(cookie)
    assert (offset, digits, lowest, highest, ratio) == \
        (0, 3, 1, 3600000000000, 1.0), (offset, digits, lowest, highest)
    counts = {}
    p, idx, end = 40, 0, 40 + plen
    while p < end:
        v, shift = 0, 0
        for k in range(9):
            b = v2[p]
            p += 1
            if k == 8:
                v |= b << 56
                break
            v |= (b & 0x7f) << shift
            shift += 7
            if not b & 0x80:
                break
        v = (v >> 1) ^ -(v & 1)
        if v < 0:
            idx += -v
        else:
            if v:
                counts[idx] = v
            idx += 1
    return counts


def bounds(i):
    b = (i >> HALF_MAG) - 1
    sub = (i & (HALF - 1)) + HALF
    if b < 0:
        sub -= HALF
        b = 0
    lo = sub << b
    return lo, lo + (1 << b) - 1


def value_at(counts, total, vmax, ppm):
    if ppm >= 1000000:
        return vmax
    rank = max(1, -(-ppm * total // 1000000))
    seen = 0
    for i in sorted(counts):
        seen += counts[i]
        if seen >= rank:
            return min(bounds(i)[1], vmax)
    raise AssertionError('ranks beyond the counts')


def ppm_of(label):
    whole, _, frac = label[1:].partition('.')
    return int(whole) * 10000 + int((frac + '0000')[:4])


def ns(sec):
    return round(sec * 1e9)


def main():
    docs = [json.load(open(f)) for f in sys.argv[1:]]
    merged, parts = docs[0], docs[1:]
    bad = []

    def same(what, got, want):
        print(f'{what}: {got} (want {want})')
        if got != want:
            bad.append(what)

    same('requests.ok', merged['requests']['ok'],
         sum(d['requests']['ok'] for d in parts))
    same('requests.total', merged['requests']['total'],
         sum(d['requests']['total'] for d in parts))
    same('statusCodes.200', merged['statusCodes'].get('200'),
         sum(d['statusCodes'].get('200', 0) for d in parts))
    want = {}
    for d in parts:
        for i, n in decode(d['latencyHistogram']).items():
            want[i] = want.get(i, 0) + n
    got = decode(merged['latencyHistogram'])
    same('buckets', len(got), len(want))
    same('histogram equal bucket for bucket', got == want, True)
    total = sum(want.values())
    same('histogram count', total, merged['requests']['ok'])
    lat = merged['latencySeconds']
    vmax = max(ns(d['latencySeconds']['max']) for d in parts)
    vmin = min(ns(d['latencySeconds']['min']) for d in parts)
    same('max', ns(lat['max']), vmax)
    same('min', ns(lat['min']), vmin)
    for label, sec in lat['percentiles'].items():
        same(label, ns(sec), value_at(want, total, vmax, ppm_of(label)))
    if bad:
        print('differ: ' + ', '.join(bad))
        sys.exit(1)


if __name__ == '__main__':
    main()
