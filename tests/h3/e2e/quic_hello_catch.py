#!/usr/bin/env python3
"""A UDP listener on 127.0.0.1 that takes the ClientHello out of the QUIC
Initial packets a client sends (RFC 9001 section 5: Initial protection
from the client's Destination Connection ID), and never answers.

  quic_hello_catch.py PORT_FILE OUT_FILE

Writes its port to PORT_FILE once bound, the ClientHello handshake
message (from its type byte on) to OUT_FILE once whole, then keeps
swallowing datagrams until killed. Needs python3-cryptography.
"""
import hashlib
import hmac
import os
import socket
import sys

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

SALT_V1 = bytes.fromhex("38762cf7f55934b34d179ae6a4c80cadccbb7f0a")


def expand_label(secret, label, length):
    full = b"tls13 " + label
    info = length.to_bytes(2, "big") + bytes([len(full)]) + full + b"\x00"
    out, t, i = b"", b"", 1
    while len(out) < length:
        t = hmac.new(secret, t + info + bytes([i]), hashlib.sha256).digest()
        out += t
        i += 1
    return out[:length]


def varint(b, off):
    n = 1 << (b[off] >> 6)
    v = b[off] & 0x3F
    for k in range(1, n):
        v = v << 8 | b[off + k]
    return v, off + n


def initial_frames(pkt):
    """The plaintext frames of the first (Initial) packet of a datagram."""
    if pkt[0] & 0xF0 != 0xC0:  # long header, type Initial
        raise ValueError("not an Initial packet")
    off = 5
    dcid = pkt[off + 1:off + 1 + pkt[off]]
    off += 1 + pkt[off]
    off += 1 + pkt[off]                      # source connection ID
    tlen, off = varint(pkt, off)
    off += tlen                              # token
    length, off = varint(pkt, off)
    secret = hmac.new(SALT_V1, dcid, hashlib.sha256).digest()
    client = expand_label(secret, b"client in", 32)
    key = expand_label(client, b"quic key", 16)
    iv = expand_label(client, b"quic iv", 12)
    hp = expand_label(client, b"quic hp", 16)
    enc = Cipher(algorithms.AES(hp), modes.ECB()).encryptor()
    mask = enc.update(pkt[off + 4:off + 20]) + enc.finalize()
    first = pkt[0] ^ (mask[0] & 0x0F)
    pn_len = (first & 3) + 1
    pn_bytes = bytes(pkt[off + k] ^ mask[1 + k] for k in range(pn_len))
    header = bytes([first]) + pkt[1:off] + pn_bytes
    pn = int.from_bytes(pn_bytes, "big")
    nonce = bytes(a ^ b for a, b in zip(iv, pn.to_bytes(12, "big")))
    body = pkt[off + pn_len:off + length]
    return AESGCM(key).decrypt(nonce, body, header)


def crypto_pieces(frames):
    off = 0
    while off < len(frames):
        t = frames[off]
        if t in (0x00, 0x01):                # PADDING, PING
            off += 1
        elif t == 0x06:                      # CRYPTO
            o, off = varint(frames, off + 1)
            n, off = varint(frames, off)
            yield o, frames[off:off + n]
            off += n
        else:
            raise ValueError("unexpected frame 0x%02x in a first flight" % t)


def main():
    port_file, out_file = sys.argv[1], sys.argv[2]
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    with open(port_file + ".tmp", "w") as f:
        f.write("%d\n" % s.getsockname()[1])
    os.rename(port_file + ".tmp", port_file)
    stream = {}
    done = False
    while True:
        pkt, _ = s.recvfrom(65536)
        if done:
            continue
        try:
            for o, data in crypto_pieces(initial_frames(pkt)):
                stream[o] = data
        except Exception as e:  # a later packet of another kind
            print("skipped a datagram: %s" % e, file=sys.stderr)
            continue
        msg = b""
        while len(msg) in stream:
            msg += stream[len(msg)]
        if len(msg) >= 4 and len(msg) >= 4 + int.from_bytes(msg[1:4], "big"):
            msg = msg[:4 + int.from_bytes(msg[1:4], "big")]
            with open(out_file + ".tmp", "wb") as f:
                f.write(msg)
            os.rename(out_file + ".tmp", out_file)
            done = True


if __name__ == "__main__":
    main()
