#!/usr/bin/env python3
"""Writes the small fixture files of tests/stdlib/data (run from tests/data)."""
import gzip
import struct

def idx(code, fmt, shape, values):
    head = bytes([0, 0, code, len(shape)]) + b"".join(struct.pack(">I", s) for s in shape)
    return head + b"".join(struct.pack(">" + fmt, v) for v in values)

images = idx(0x08, "B", [3, 2, 2], [0, 51, 102, 255, 1, 2, 3, 4, 250, 251, 252, 253])
labels = idx(0x08, "B", [3], [7, 0, 9])
open("tiny-images-idx3-ubyte", "wb").write(images)
open("tiny-labels-idx1-ubyte", "wb").write(labels)
# mtime=0 keeps the gzip bytes the same on every run.
open("tiny-images-idx3-ubyte.gz", "wb").write(gzip.compress(images, mtime=0))
open("tiny-labels-idx1-ubyte.gz", "wb").write(gzip.compress(labels, mtime=0))
open("tiny-i32.idx", "wb").write(idx(0x0C, "i", [2, 2], [-5, 70000, 3, -2147483648]))
open("tiny-f32.idx", "wb").write(idx(0x0D, "f", [3], [1.5, -2.25, 1e10]))
open("tiny-f64.idx", "wb").write(idx(0x0E, "d", [2], [0.1, -3.0]))
open("truncated-data.idx", "wb").write(images[:-3])
open("truncated-header.idx", "wb").write(images[:6])
open("truncated.gz", "wb").write(gzip.compress(images, mtime=0)[:-12])
open("bad-magic.idx", "wb").write(b"\x1f\x00\x08\x01" + images[4:])
open("bad-type.idx", "wb").write(bytes([0, 0, 0x07, 1]) + struct.pack(">I", 1) + b"\x00")
open("trailing.idx", "wb").write(labels + b"\x00")
open("tiny.csv", "w").write("x,y,label\n1.5,2,0\n-3,4e-1,1\n\n5,6,1\n")
open("noheader.csv", "w").write("1,2\n3,4\n")
open("bad.csv", "w").write("a,b\n1,2\n3,oops\n")
open("ragged.csv", "w").write("a,b\n1,2\n3\n")
