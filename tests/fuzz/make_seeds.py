#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets (tests/fuzz/corpus/<target>/) from the
repository's own files, and the small safetensors files by hand (PyTorch's
safetensors package is not in Debian; the format is 8 bytes of header length, the
JSON header padded with spaces to a multiple of 8, then the data).

    python3 tests/fuzz/make_seeds.py      # from the repository root; rewrites the folders

Seeds are small on purpose: libFuzzer mutates them, and the replay test
(tests/fuzz/replay.cpp) runs every one in the normal ctest.
"""
import json
import os
import re
import shutil
import struct
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPUS = os.path.join(ROOT, "tests", "fuzz", "corpus")
MAX_SEED_BYTES = 6000  # parser_eval runs with -max_len 8192 (scripts/fuzz.sh)

# Whole programs: the language's golden tests are split into their cases below.
WHOLE_PROGRAMS = [
    "tests/lang/basics.dsl", "tests/lang/collections.dsl", "tests/lang/functions.dsl",
    "tests/lang/tensors.dsl", "tests/lang/readme_example.dsl", "tests/lang/stdlib_import.dsl",
    "tests/lang/test_blocks/test_arithmetic.dsl", "tests/lang/test_blocks/test_autograd.dsl",
    "scripts/regression.dsl", "scripts/higher_order.dsl", "scripts/char_transformer.dsl",
    "tests/stdlib/test_nn_train.dsl", "tests/graph/test_compile.dsl", "tests/memory/test_memory.dsl",
    "tests/debug/test_profile.dsl",
]
SPLIT_PROGRAMS = [
    "tests/lang/errors_syntax.dsl", "tests/lang/errors_runtime.dsl", "tests/lang/errors_tensor.dsl",
    "tests/lang/errors_anomaly.dsl",
]


def reset(folder):
    path = os.path.join(CORPUS, folder)
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)
    return path


def write(folder, name, data):
    mode = "wb" if isinstance(data, bytes) else "w"
    with open(os.path.join(folder, name), mode) as f:
        f.write(data)


def slug(path):
    return re.sub(r"[^A-Za-z0-9]+", "_", os.path.splitext(path)[0]).strip("_")


def without_expectations(text):
    """Drops the `# expect...` comments: they are for the golden runner, not the parser."""
    return "\n".join(re.sub(r"\s*# expect.*$", "", line) for line in text.splitlines()) + "\n"


def parser_eval_seeds():
    out = reset("parser_eval")
    for rel in WHOLE_PROGRAMS:
        text = without_expectations(open(os.path.join(ROOT, rel)).read())
        if len(text) <= MAX_SEED_BYTES:
            write(out, slug(rel) + ".dsl", text)
    for rel in SPLIT_PROGRAMS:
        cases = re.split(r"^# ---.*$", open(os.path.join(ROOT, rel)).read(), flags=re.M)
        for k, case in enumerate(cases):
            case = without_expectations(case).strip()
            if case:
                write(out, "%s_%02d.dsl" % (slug(rel), k), case + "\n")


def safetensors_file(tensors, metadata=None):
    """tensors: [(name, dtype code, shape, raw bytes)], in data order."""
    header, data = {}, b""
    if metadata is not None:
        header["__metadata__"] = metadata
    for name, code, shape, raw in tensors:
        header[name] = {"dtype": code, "shape": shape, "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + data


def safetensors_seeds():
    out = reset("safetensors")
    f32 = lambda *xs: struct.pack("<%df" % len(xs), *xs)
    write(out, "empty.safetensors", safetensors_file([]))
    write(out, "one_f32.safetensors", safetensors_file([("w", "F32", [2, 3], f32(1, 2, 3, 4, 5, 6))]))
    write(out, "metadata.safetensors",
          safetensors_file([("b", "F32", [2], f32(0.5, -1))], {"format": "pt", "epoch": "3"}))
    write(out, "dtypes.safetensors", safetensors_file([
        ("a", "F64", [2], struct.pack("<2d", 1.5, -2.25)),
        ("b", "F16", [2], struct.pack("<2e", 1.0, -0.5)),
        ("c", "BF16", [2], bytes([0x80, 0x3F, 0x00, 0xC0])),
        ("d", "I64", [1], struct.pack("<q", -7)),
        ("e", "I32", [3], struct.pack("<3i", 1, 2, 3)),
        ("f", "BOOL", [2], bytes([1, 0])),
    ]))
    write(out, "scalar_and_empty.safetensors", safetensors_file([
        ("scalar", "F32", [], f32(3.0)),
        ("none", "F32", [0, 4], b""),
    ]))
    write(out, "model_state.safetensors", safetensors_file([
        ("fc1.weight", "F32", [2, 2], f32(1, 0, 0, 1)),
        ("fc1.bias", "F32", [2], f32(0, 0)),
        ("bn.running_mean", "F32", [2], f32(0.1, 0.2)),
        ("bn.num_batches_tracked", "I64", [], struct.pack("<q", 10)),
    ], {"nabla": "0.1.0"}))


def idx_seeds():
    out = reset("idx")
    data = os.path.join(ROOT, "tests", "data")
    for name in sorted(os.listdir(data)):
        if name.endswith(".idx") or "ubyte" in name or name.endswith(".gz"):
            shutil.copy(os.path.join(data, name), os.path.join(out, name))


def ir_parse_seeds():
    out = reset("ir_parse")
    golden = os.path.join(ROOT, "tests", "passes", "golden")
    for name in sorted(os.listdir(golden)):
        if name.endswith(".ir"):
            shutil.copy(os.path.join(golden, name), os.path.join(out, name))


def structured_seeds():
    """Choice bytes for the generator (tests/fuzz/program_gen.cpp): per class of
    program, a few shapes at a middling size. The first byte picks the class, the
    next ones the shape, the size (on a log scale: 36 is about 2^9) and the
    operations."""
    out = reset("structured")
    for kind in range(8):
        for shape in range(4):
            write(out, "class%d_shape%d" % (kind, shape), bytes([kind, shape, 36, shape, 1, 2, 3, shape + 4, 5, 6]))


def main():
    parser_eval_seeds()
    safetensors_seeds()
    idx_seeds()
    ir_parse_seeds()
    structured_seeds()
    for target in sorted(os.listdir(CORPUS)):
        print("%s: %d seeds" % (target, len(os.listdir(os.path.join(CORPUS, target)))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
