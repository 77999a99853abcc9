#!/usr/bin/env python3
"""Writes the seed corpora of tests/fuzz/corpus/<target>/ from the tests'
vectors: the HTTP/1.1 responses of tests/h1/test_h1_scan.c, the RFC 7541
examples and Huffman code of tests/vectors, the RFC 9001 packets of
tests/h3/wire/wire_vectors.c, the URLs of tests/url_cli/test_url.c and the
argument lists of tests/url_cli/test_cli*.c, plus frames built from them,
and pipelined HTTP/1.1 exchanges for h1_pipe.
Each seed starts with the control bytes its target reads (see the comment
at the top of each fuzz_*.c). Run from anywhere; rewrites the corpus
directories (those named as arguments, or all). The output is committed;
rerun after changing a vector."""
import hashlib
import os
import re
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CORPUS = os.path.join(HERE, 'corpus')
PLAN = b'\x00'  # split plan: no cut (the fuzzer mutates it)


def read(*parts):
    with open(os.path.join(ROOT, *parts), encoding='utf-8') as f:
        return f.read()


def c_string(lit):
    """Decodes the body of one C string literal to bytes."""
    out = bytearray()
    i = 0
    while i < len(lit):
        c = lit[i]
        if c != '\\':
            out += c.encode()
            i += 1
            continue
        e = lit[i + 1]
        i += 2
        if e == 'x':
            m = re.match(r'[0-9a-fA-F]+', lit[i:])
            out.append(int(m.group(0), 16) & 0xff)
            i += len(m.group(0))
        elif e in '01234567':
            m = re.match(r'[0-7]{1,3}', lit[i - 1:])
            out.append(int(m.group(0), 8))
            i += len(m.group(0)) - 1
        else:
            out += {'r': b'\r', 'n': b'\n', 't': b'\t', '0': b'\0',
                    '\\': b'\\', '"': b'"', "'": b"'"}[e]
    return bytes(out)


def literals(text):
    """Adjacent C string literals joined, in order."""
    return [c_string(m) for m in re.findall(r'"((?:[^"\\\n]|\\.)*)"', text)]


# ---- HTTP/1.1 ---------------------------------------------------------------

def h1_seeds():
    src = read('tests', 'h1', 'test_h1_scan.c').replace('\\\n', ' ')
    macros = {}
    for name, body in re.findall(r'#define\s+(\w+)\s+((?:"[^\n]*"\s*)+)\n',
                                 src):
        macros[name] = b''.join(literals(body))
    resp = [v for v in macros.values() if v.startswith(b'HTTP/')]
    seeds = []
    for r in resp:
        seeds.append(b'\x00' + PLAN + r)
        seeds.append(b'\x80' + PLAN + r)  # the peer closes after it
    seeds.append(b'\x01' + PLAN + resp[0] + resp[-1])  # HEAD, pipelined
    return seeds


def h1_pipe_seeds():
    """fuzz_h1_pipe.c: flags (depth - 1, close, cancel, traces), HEAD mask,
    send byte, plan, first segment's length, the server's bytes."""
    hello = b'HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello'
    mixed = [hello, b'HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n',
             b'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n',
             b'HTTP/1.1 304 Not Modified\r\nContent-Length: 7\r\n\r\n',
             b'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n'
             b'3\r\nabc\r\n0\r\n\r\n']
    close = b'HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n'

    def seed(flags, mask, send, first, data):
        return bytes([flags, mask, send]) + PLAN + struct.pack('<H', first) + data
    return [
        seed(3, 0, 0, 4 * len(hello), 8 * hello),       # two full rounds
        seed(4, 0x42, 0, len(b''.join(mixed)), 2 * b''.join(mixed)),
        seed(2, 0, 0, 200, hello + close + hello),        # close mid-pipe
        seed(3 | 8, 0, 0, 2 * len(hello), 2 * hello),     # EOF after two
        seed(3 | 16, 0, 0, len(hello), 3 * hello),        # cancel after one
        seed(1, 0, 0, 3 * len(hello), 3 * hello),         # one extra
        seed(7 | 32, 0x81, 0x30, 9 * len(hello), 16 * hello),  # 1 vec, 21 B
    ]


# ---- HPACK, Huffman, HTTP/2 ---------------------------------------------------

def huffman_table():
    codes = {}
    for line in read('tests', 'vectors', 'hpack-huffman.txt').splitlines():
        if line and not line.startswith('#'):
            sym, bits, _ = line.split()
            codes[int(sym)] = bits
    return codes


HUFF = huffman_table()


def huff(data):
    bits = ''.join(HUFF[b] for b in data)
    bits += '1' * (-len(bits) % 8)
    return bytes(int(bits[i:i + 8], 2) for i in range(0, len(bits), 8))


def hpack_cases():
    cases = []  # (context, max_table, hex block, headers)
    cur = None
    for line in read('tests', 'vectors', 'hpack-appendix-c.txt').splitlines():
        f = line.split('\t')
        if f[0] == 'CASE':
            cur = {'ctx': f[2], 'max': int(f[3]), 'hex': '', 'hdr': []}
        elif f[0] == 'HEADER' and cur:
            cur['hdr'].append((f[1], f[2]))
        elif f[0] == 'HEX' and cur:
            cur['hex'] += f[1]
        elif f[0] == 'END' and cur:
            cases.append(cur)
            cur = None
    return cases


def hpack_seeds():
    by_ctx = {}
    for c in hpack_cases():
        by_ctx.setdefault((c['ctx'], c['max']), []).append(
            bytes.fromhex(c['hex']))
    seeds = []
    for (ctx, mx), blocks in by_ctx.items():
        body = b''.join(struct.pack('<H', len(b)) + b for b in blocks)
        seeds.append(bytes([min(mx // 16, 255)]) + PLAN + body)
    # 0xff: the 65536-octet table of a profile (chrome, firefox)
    seeds.append(b'\xff' + seeds[-1][1:])
    # Response heads repeated as servers send them, for the block memo
    # (an even first byte: nothing collected, so the memo is used).
    for first, heads in ((0x80, REPEATED_H2O), (0xfe, REPEATED_HAPROXY),
                         (0x80, REPEATED_CHANGED)):
        blocks = [bytes.fromhex(h) for h in heads]
        seeds.append(bytes([first]) + PLAN + b''.join(
            struct.pack('<H', len(b)) + b for b in blocks))
    return seeds


# h2o 2.2.5's first head (fields indexed as they go), then its repeats:
# indexed fields and a content-length literal.
_H2O_FIRST = ('8876879c47604b8976ff6196dd6d5f4a01c52f948a080271403d71b66e32053168'
              'df5f87497ca58ae819aa6c96dd6d5f4a01c52f948a080271403d71b05c680a62d1'
              'bf628afe5c8c2d882502d27f3f52848fd24a8f0f0d023133')
REPEATED_H2O = [_H2O_FIRST] + ['88c3c2c1c0bfbe0f0d023133'] * 4
# HAProxy 2.6: the same two literals with incremental indexing each time.
REPEATED_HAPROXY = ['885c0231335f0a746578742f706c61696e'] * 5
# An indexed head whose entry a size update + insert changes between
# repeats (:status 404, then 503, at index 62; the update is to 2048,
# the seed's limit).
REPEATED_CHANGED = ['4803343034', 'be', 'be', '3fe10f4803353033', 'be', 'be']


def huffman_seeds():
    seen = set()
    for c in hpack_cases():
        for n, v in c['hdr']:
            seen.add(v.encode())
            seen.add(n.encode())
    return [PLAN + huff(s) for s in sorted(seen)] + [PLAN + huff(bytes(range(256)))]


def h2_frame(ftype, flags, sid, payload):
    return struct.pack('>I', len(payload))[1:] + bytes([ftype, flags]) + \
        struct.pack('>I', sid) + payload


def h2_server_frames():
    """A server's answer to one GET on stream 1, from the C.5 blocks."""
    blocks = [bytes.fromhex(c['hex']) for c in hpack_cases()
              if c['ctx'] == 'C.5']
    settings = h2_frame(4, 0, 0, struct.pack('>HI', 3, 128) +
                        struct.pack('>HI', 4, 65536))
    return [
        settings,
        h2_frame(4, 1, 0, b''),
        h2_frame(8, 0, 0, struct.pack('>I', 1 << 20)),
        h2_frame(6, 0, 0, b'12345678'),
        h2_frame(1, 4, 1, blocks[0]),
        h2_frame(0, 1, 1, b'hello'),
        h2_frame(1, 0, 1, blocks[1][:5]) + h2_frame(9, 4, 1, blocks[1][5:]),
        h2_frame(3, 0, 1, struct.pack('>I', 7)),
        h2_frame(7, 0, 0, struct.pack('>II', 1, 0) + b'bye'),
    ]


def h2_frame_seeds():
    fr = h2_server_frames()
    return [b'\x00' + PLAN + b''.join(fr), b'\x10' + PLAN + fr[0] + fr[3],
            b'\x20' + PLAN + fr[0] + fr[4] + fr[8]]


def h2_conn_seeds():
    fr = h2_server_frames()

    def recv(b):
        return b'\x00' + bytes([len(b)]) + b

    get = b'\x00' + b'\x01' + b'\x02' + recv(fr[0]) + recv(fr[4]) + \
        recv(fr[5]) + b'\x02'
    post = b'\x13' + b'\x09' + b'\x12' + recv(fr[0] + fr[2]) + \
        recv(fr[4] + fr[5]) + recv(fr[7]) + b'\x1b' + b'\x02'
    closing = b'\x21' + b'\x01\x02' + recv(fr[0]) + b'\x21' + b'\x05' + \
        recv(fr[8]) + b'\x06'
    # flags bit 7: profile=firefox (PRIORITY frames, streams from 15)
    firefox = b'\x80' + get[1:]
    return [get, post, closing, firefox]


# ---- HTTP/3, QPACK ------------------------------------------------------------

def varint(v):
    if v < 64:
        return bytes([v])
    if v < 16384:
        return struct.pack('>H', v | 0x4000)
    if v < 1 << 30:
        return struct.pack('>I', v | 0x80000000)
    return struct.pack('>Q', v | 0xc000000000000000)


def qpack_static():
    idx = {}
    for line in read('tests', 'vectors', 'qpack-static-table.txt').splitlines():
        f = line.split('\t')
        if len(f) >= 3 and f[0].isdigit():
            idx[(f[1], f[2])] = int(f[0])
    return idx


def qpack_sections():
    st = qpack_static()
    s200 = bytes([0xc0 | st[(':status', '200')]])
    ctype = 0xc0 | st[('content-type', 'text/plain;charset=utf-8')]
    # literal with a static name reference (index 24 = :status 103 > 15)
    lit_ref = bytes([0x5f, st[(':status', '103')] - 15, 3]) + b'418'
    lit_name = b'\x27\x00' + b':status' + b'\x03' + b'204'
    hn = huff(b':status')  # literal name, Huffman, 3-bit length prefix
    name_len = bytes([0x28 | len(hn)]) if len(hn) < 7 else \
        bytes([0x2f, len(hn) - 7])
    huff_name = name_len + hn + bytes([0x80 | len(huff(b'302'))]) + \
        huff(b'302')
    return [b'\x00\x00' + s200,
            b'\x00\x00' + s200 + bytes([ctype]),
            b'\x00\x00' + lit_ref,
            b'\x00\x00' + lit_name + b'\x5f\x1d\x04gzip',
            b'\x00\x00' + huff_name,
            b'\x00\x00' + bytes([0xc0 | st[(':status', '103')]])]


# The dynamic table part of the qpack, qpack_fields inputs
# (fuzz_qpack_table.h): limit byte (* 256), encoder length, the cut.
QPACK_NO_TABLE = b'\x00'
# capacity 220, :status 200 and x-a: 1 (literal names), then :status 404
# by dynamic name reference (relative 1)
QPACK_ENC = bytes.fromhex('3fbd01 473a737461747573 03323030 '
                          '43782d61 0131 8103343034'.replace(' ', ''))
# RFC 9204 Appendix B.2 to B.5's encoder stream instructions
QPACK_ENC_B = bytes.fromhex(
    '3fbd01 c00f7777772e6578616d706c652e636f6d c10c2f73616d706c652f70617468 '
    '4a637573746f6d2d6b6579 0c637573746f6d2d76616c7565 02 '
    '810d637573746f6d2d76616c756532'.replace(' ', ''))


def qpack_table(enc, before):
    return b'\x01' + struct.pack('<H', len(enc)) + bytes([before]) + enc


def qpack_dyn_sections():
    """(table part, section): responses from the table, one that blocks
    until the rest of the encoder stream, Appendix B.4's request section."""
    full = qpack_table(QPACK_ENC, len(QPACK_ENC))
    # RIC 3 (encoded 4 with MaxEntries 8), Base 3: entries 2, 1
    # (relative 0, 1); post-base from Base 0
    return [(full, bytes.fromhex('0400 80 81')),
            (full, bytes.fromhex('0482 10 11 12')),
            (qpack_table(QPACK_ENC, 4), bytes.fromhex('0400 4003313033 81')),
            (qpack_table(QPACK_ENC_B, len(QPACK_ENC_B)),
             bytes.fromhex('0500 80 c1 81'))]


def qpack_seeds():
    return [QPACK_NO_TABLE + PLAN + s for s in qpack_sections()] + \
        [t + PLAN + s for t, s in qpack_dyn_sections()]


def qpack_fields_seeds():
    # the static-only seeds first written by hand for this target
    hand = ['0000ff035c022f6223782d610131', '000010', '0000d9', '00002b',
            '0000d95c8cf1e3c2e5f23a6ba0ab90f4ff']
    return [QPACK_NO_TABLE + bytes.fromhex(h) for h in hand] + \
        [t + s for t, s in qpack_dyn_sections()]


def h3_frame(t, payload):
    return varint(t) + varint(len(payload)) + payload


def h3_response_seeds():
    sec = qpack_sections()
    hdr = h3_frame(1, sec[1])
    interim = h3_frame(1, sec[5])
    data = h3_frame(0, b'hello')
    grease = h3_frame(0x21, b'xyz')
    trailers = h3_frame(1, b'\x00\x00' + b'\x5f\x1d\x04gzip')
    return [b'\x01' + PLAN + hdr + data,
            b'\x01' + PLAN + interim + hdr + grease + data + data + trailers,
            b'\x01' + PLAN + h3_frame(1, sec[2]),
            b'\x00' + PLAN + hdr + data[:3]]


def h3_peer_seeds():
    settings = h3_frame(4, varint(1) + varint(0) + varint(6) + varint(16384) +
                        varint(7) + varint(0))
    control = b'\x00' + settings + h3_frame(0x21, b'') + \
        h3_frame(7, varint(8)) + h3_frame(7, varint(4))

    def op(i, data, fin=False):
        return bytes([i | (4 if fin else 0), len(data)]) + data

    browser = h3_frame(4, varint(1) + varint(65536) + varint(7) + varint(20) +
                       varint(0x2b603742) + varint(0) + varint(0xffd277) +
                       varint(1) + varint(0x33) + varint(1) + varint(8) +
                       varint(1) + varint(0x1f * 7 + 0x21) + varint(5))
    def sec(data):
        return bytes([16, len(data)]) + data

    no_table, table = b'\x00', b'\x10'  # limit 0, 4096 octets
    enc = b'\x02' + QPACK_ENC
    return [no_table + op(0, control),
            no_table + op(0, control[:3]) + op(1, b'\x02\x20') +
            op(2, b'\x03\x40') + op(0, control[3:]) +
            op(3, b'\x21abc', True),
            no_table + op(1, b'\x02') + op(0, b'\x00') + op(0, settings) +
            op(1, b'\x20'),
            no_table + op(0, control) + bytes([8, 0]),
            # a section that blocks, the inserts, then it decodes
            table + op(0, control) + sec(bytes.fromhex('0400 80 81')) +
            op(1, enc[:9]) + op(1, enc[9:]) +
            sec(bytes.fromhex('0400 80 81')) + op(2, b'\x03\x84'),
            table + op(1, b'\x02' + QPACK_ENC_B) +
            sec(bytes.fromhex('0500 80 c1 81')),
            # what a browser's SETTINGS hold (the h3 profiles): H3_DATAGRAM,
            # ENABLE_CONNECT_PROTOCOL, draft ids, a reserved one
            no_table + op(0, b'\x00' + browser + h3_frame(0x21 + 0x1f, b'xy')) +
            op(2, varint(0x21 + 0x1f * 3) + b'grease stream')]


# ---- QUIC ---------------------------------------------------------------------

def wire_vectors():
    src = read('tests', 'h3', 'wire', 'wire_vectors.c')
    out = {}
    for name, body in re.findall(r'const char (wv_\w+)\[\] =\s*((?:"[^"]*"\s*)+);',
                                 src):
        out[name] = bytes.fromhex(b''.join(literals(body)).decode())
    return out


WV = wire_vectors()


def quic_header_seeds():
    # 0x86: 8-octet IDs, and we sent grease_quic_bit (RFC 9287)
    cleared = bytes([WV['wv_a3_packet'][0] & ~0x40]) + WV['wv_a3_packet'][1:]
    short = b'\x01' + b'\x11' * 8 + bytes(range(30))
    return [b'\x08' + WV['wv_a2_packet'], b'\x08' + WV['wv_a3_packet'],
            b'\x08' + WV['wv_a4_retry_packet'], b'\x00' + WV['wv_a5_packet'],
            b'\x08' + WV['wv_a3_packet'] + WV['wv_a5_packet'],
            b'\x08' + bytes.fromhex('80000000000808') + b'\x11' * 8 +
            b'\x22' * 8 + bytes.fromhex('00000001ff00001d'),
            b'\x86' + cleared + short, b'\x08' + cleared]


def quic_frames():
    cid = bytes(range(1, 9))
    return [
        b'\x01',                                            # PING
        b'\x02' + varint(10) + varint(3) + varint(1) + varint(2) +
        varint(1) + varint(2),                              # ACK, 2 ranges
        b'\x03' + varint(5) + varint(0) + varint(0) + varint(5) +
        varint(1) + varint(2) + varint(3),                  # ACK_ECN
        b'\x04' + varint(0) + varint(0x10c) + varint(100),  # RESET_STREAM
        b'\x05' + varint(4) + varint(0x10c),                # STOP_SENDING
        b'\x07' + varint(4) + b'tokn',                      # NEW_TOKEN
        b'\x0f' + varint(3) + varint(1000) + varint(5) + b'hello',
        b'\x0a' + varint(7) + varint(3) + b'abc',           # STREAM, len
        b'\x10' + varint(1 << 20), b'\x11' + varint(0) + varint(65536),
        b'\x12' + varint(100), b'\x13' + varint(3), b'\x14' + varint(9),
        b'\x16' + varint(100),
        b'\x18' + varint(1) + varint(0) + bytes([8]) + cid + b'\xaa' * 16,
        b'\x19' + varint(0), b'\x1a' + b'pathdata',
        b'\x1c' + varint(0x0a) + varint(0x08) + varint(3) + b'bad',
        b'\x1d' + varint(0x100) + varint(0),
        b'\x1e',
    ]


def quic_frame_seeds():
    fr = quic_frames()
    return [b'\x00' + WV['wv_a2_crypto_frame'] + b'\x00' * 20,
            b'\x00' + WV['wv_a3_frames'],
            b'\x04' + b''.join(fr),
            b'\x02' + fr[1] + b'\x06' + varint(0) + varint(4) + b'abcd',
            b'\x04' + fr[6] + b'\x08' + varint(0) + b'to the end',
            # DATAGRAM (RFC 9221): with a length, then to the end
            b'\x04' + b'\x31' + varint(3) + b'abc' + b'\x01' + b'\x30dgram',
            b'\x01' + b'\x31' + varint(40) + b'cut']


def tp(pid, value):
    return varint(pid) + varint(len(value)) + value


def quic_tp_seeds():
    first = b'\x11' * 8
    scid = b'\x22' * 8
    server = tp(0, first) + tp(0x0f, scid) + tp(1, varint(30000)) + \
        tp(2, b'\x5a' * 16) + tp(3, varint(1472)) + tp(4, varint(1 << 20)) + \
        tp(5, varint(65536)) + tp(6, varint(65536)) + tp(7, varint(65536)) + \
        tp(8, varint(100)) + tp(9, varint(3)) + tp(0x0a, varint(8)) + \
        tp(0x0b, varint(20)) + tp(0x0c, b'') + tp(0x0e, varint(4)) + \
        tp(27, b'grease')
    retry = server + tp(0x10, b'\x33' * 8)
    # the client parameters inside the RFC 9001 A.2 ClientHello
    crypto = WV['wv_a2_crypto_frame']
    at = crypto.find(bytes.fromhex('0039'))
    ext_len = struct.unpack('>H', crypto[at + 2:at + 4])[0]
    client = crypto[at + 4:at + 4 + ext_len]
    # what a browser's parameters add (the h3 profiles)
    browser = server + tp(0x20, varint(65536)) + tp(0x2ab2, b'') + \
        tp(0x11, bytes.fromhex('00000001 00000001 1a2a3a4a')) + \
        tp(0x3128, b'ORIG') + tp(31 * 300 + 27, b'\x01\x02')
    # a list as the fuzzer reads items: kind, id, length, value
    items = bytes([0, 0, 1, 0, 0x75, 0x30, 3, 0, 15, 0, 0, 0,
                   5, 0, 17, 0, 0, 1, 4, 0, 0, 16, 0, 1,
                   2, 0x31, 0x28, 4, 0, 0, 1, 0, 0x20, 0, 0xff, 0xff])
    return [b'\x08\x08\x00' + server, b'\x08\x08\x08' + retry,
            b'\x08\x08\x00' + client, b'\x08\x08\x00' + browser,
            b'\x08\x08\x00' + items]


def quic_ack_seeds():
    rx = b''.join(bytes([op]) + struct.pack('<H', pn) for op, pn in [
        (0x10, 0), (0x10, 1), (0x10, 2), (0, 5), (0x10, 9), (1, 0),
        (2, 0), (0x10, 7), (0x31, 0), (3, 2), (1, 0), (0x10, 100), (1, 0)])
    fr = quic_frames()
    acks = fr[1] + fr[0] + b'\x02' + varint(40) + varint(0) + varint(0) + \
        varint(40)
    return [bytes([0x06, 64, len(rx) // 3]) + rx + acks,
            bytes([0x00, 16, 0]) + fr[1],
            bytes([0x01, 50, 3]) + rx[:9] + fr[2]]


# ---- core: URL and command line -----------------------------------------------

def url_seeds():
    urls = [u for u in literals(read('tests', 'url_cli', 'test_url.c'))
            if b'://' in u or u.startswith(b'http')]
    return sorted(set(urls))


def cli_seeds():
    src = ''.join(read('tests', 'url_cli', f) for f in (
        'test_cli.c', 'test_cli_body.c', 'test_cli_values.c',
        'test_cli_targets.c'))
    seeds = set()
    for m in re.finditer(r'(?:PARSE|EXPECT_ERROR)\(([^;]*)\);', src, re.S):
        args = literals(m.group(1))
        if m.group(0).startswith('EXPECT_ERROR'):
            args = args[1:]  # the expected message
        if not args or any(a.startswith(b'@') and a != b'@-' for a in args):
            continue
        seeds.add(b'\0'.join(args))
    return sorted(seeds)


# ---- output -------------------------------------------------------------------

TARGETS = {
    'h1_scan': h1_seeds, 'h2_frame': h2_frame_seeds,
    'h2_conn': h2_conn_seeds, 'h2_hpack': hpack_seeds,
    'huffman': huffman_seeds, 'qpack': qpack_seeds,
    'qpack_fields': qpack_fields_seeds,
    'h3_response': h3_response_seeds, 'h3_peer': h3_peer_seeds,
    'quic_header': quic_header_seeds, 'quic_frame': quic_frame_seeds,
    'quic_tp': quic_tp_seeds, 'quic_ack': quic_ack_seeds,
    'url': url_seeds, 'cli': cli_seeds, 'h1_pipe': h1_pipe_seeds,
}


def main():
    # Targets named on the command line only, or every one.
    for name, make in TARGETS.items():
        if sys.argv[1:] and name not in sys.argv[1:]:
            continue
        d = os.path.join(CORPUS, name)
        os.makedirs(d, exist_ok=True)
        for old in os.listdir(d):
            # named seeds (inputs a campaign found) are kept
            if re.fullmatch(r'seed-[0-9a-f]{16}', old):
                os.remove(os.path.join(d, old))
        seeds = make()
        for s in seeds:
            h = hashlib.sha1(s).hexdigest()[:16]
            with open(os.path.join(d, 'seed-' + h), 'wb') as f:
                f.write(s)
        print(f'{name}: {len(seeds)} seeds')
    return 0


if __name__ == '__main__':
    sys.exit(main())
