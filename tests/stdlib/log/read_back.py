"""Reads back every events file that write_events.dsl makes, as TensorBoard would,
with Debian's python3-protobuf and the classes protoc generates from
interp/log/proto: every record's two masked CRC-32Cs, the file_version record, and
every tag, step, wall time and value, against what numpy and PIL compute from the same
data (torch.utils.tensorboard's rules, repeated here). Also: a SummaryWriter on a
folder that cannot be written is a positioned error at construction.

Then scripts/fashion_mnist_mlp.dsl --logdir, for two short epochs: each epoch's train
loss and test accuracy as the script prints them, the cosine learning rate, and a
histogram of every parameter.

  python3 read_back.py NABLA PROTO_PY_DIR
"""
import io
import math
import os
import re
import socket
import struct
import subprocess
import sys
import tempfile
import time
import json

import numpy as np
from PIL import Image

NABLA, PROTO_PY = sys.argv[1], sys.argv[2]
sys.path.insert(0, PROTO_PY)
from interp.log.proto import event_pb2, plugin_hparams_pb2, plugin_text_pb2, tensor_pb2  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
failures = []
checks = 0


def check(cond, what):
    global checks
    checks += 1
    if not cond:
        failures.append(what)
        print("FAIL:", what)


# ---- TFRecord framing -----------------------------------------------------------------

def _crc32c_table():
    table = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


CRC_TABLE = _crc32c_table()


def crc32c(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc = CRC_TABLE[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def masked(crc):
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


assert crc32c(b"123456789") == 0xE3069283


def read_events(path):
    """Every record of the file, its CRCs checked, parsed as an Event."""
    data = open(path, "rb").read()
    events, at = [], 0
    while at < len(data):
        header = data[at:at + 8]
        (length,) = struct.unpack("<Q", header)
        (length_crc,) = struct.unpack("<I", data[at + 8:at + 12])
        check(length_crc == masked(crc32c(header)), f"{path}: length CRC of the record at byte {at}")
        body = data[at + 12:at + 12 + length]
        (body_crc,) = struct.unpack("<I", data[at + 12 + length:at + 16 + length])
        check(body_crc == masked(crc32c(body)), f"{path}: data CRC of the record at byte {at}")
        event = event_pb2.Event()
        event.ParseFromString(body)
        events.append(event)
        at += 16 + length
    check(at == len(data), f"{path}: ends inside a record")
    return events


def wire_fields(data):
    """(field number, wire type, value) of a protobuf message, read from the bytes
    alone: the check on the field numbers that does not trust the .proto files."""
    fields, at = [], 0

    def varint():
        nonlocal at
        shift = value = 0
        while True:
            b = data[at]
            at += 1
            value |= (b & 0x7F) << shift
            shift += 7
            if b < 0x80:
                return value

    while at < len(data):
        key = varint()
        number, wire = key >> 3, key & 7
        if wire == 0:
            value = varint()
        elif wire == 1:
            value, at = struct.unpack("<d", data[at:at + 8])[0], at + 8
        elif wire == 5:
            value, at = struct.unpack("<f", data[at:at + 4])[0], at + 4
        else:
            n = varint()
            value, at = data[at:at + n], at + n
        fields.append((number, wire, value))
    return fields


def check_wire_format(path):
    """TensorBoard's numbers: Event wall_time 1 (double), step 2, file_version 3,
    summary 5; Summary value 1; Value tag 1, simple_value 2 (float)."""
    data = open(path, "rb").read()
    (n,) = struct.unpack("<Q", data[:8])
    first = dict((f, v) for f, _, v in wire_fields(data[12:12 + n]))
    check(first.get(3) == b"brain.Event:2" and isinstance(first.get(1), float), f"wire: first record {first}")
    at = 16 + n
    (m,) = struct.unpack("<Q", data[at:at + 8])
    event = wire_fields(data[at + 12:at + 12 + m])
    check([(f, w) for f, w, _ in event] == [(1, 1), (5, 2)], f"wire: event fields {event}")  # step 0 is not written
    value = wire_fields(wire_fields(event[1][2])[0][2])
    check(value == [(1, 2, b"train/loss"), (2, 5, np.float32(1 / 3))], f"wire: scalar value {value}")


def events_of(folder, suffix=".main"):
    """The events of the one events file in folder, the file_version record checked."""
    names = [n for n in os.listdir(folder) if n.startswith("events.out.tfevents.")]
    check(len(names) == 1, f"{folder}: one events file, found {names}")
    pattern = r"events\.out\.tfevents\.\d{10}\.%s\.\d+\.\d+%s" % (re.escape(socket.gethostname()), re.escape(suffix))
    check(re.fullmatch(pattern, names[0]) is not None, f"{names[0]}: TensorBoard's file name")
    events = read_events(os.path.join(folder, names[0]))
    first = events[0]
    check(first.file_version == "brain.Event:2", f"{folder}: first record's file_version {first.file_version!r}")
    check(first.source_metadata.writer == "nabla", f"{folder}: source_metadata {first.source_metadata}")
    return events[1:]


def one_value(event, tag, step):
    check(event.step == step, f"{tag}: step {event.step}, expected {step}")
    check(len(event.summary.value) == 1, f"{tag}: one value")
    value = event.summary.value[0]
    check(value.tag == tag, f"tag {value.tag!r}, expected {tag!r}")
    return value


def check_wall_time(event, tag, walltime, started, ended):
    if walltime is None:
        check(started <= event.wall_time <= ended, f"{tag}: wall time {event.wall_time} outside the run")
    else:
        check(event.wall_time == walltime, f"{tag}: wall time {event.wall_time}, expected {walltime}")


# ---- what torch.utils.tensorboard computes ----------------------------------------------

def tensorflow_bins():
    v, positive = 1e-12, []
    while v < 1e20:
        positive.append(v)
        v *= 1.1
    return [-x for x in reversed(positive)] + [0] + positive


def reference_histogram(values, bins, max_bins=None):
    """torch.utils.tensorboard.summary.make_histogram, in numpy."""
    values = np.asarray(values, dtype=np.float64).reshape(-1)
    counts, limits = np.histogram(values, bins=bins)
    if max_bins is not None and len(counts) > max_bins:
        group = len(counts) // max_bins
        counts = np.pad(counts, (0, (-len(counts)) % group)).reshape(-1, group).sum(axis=1)
        limits = np.concatenate([limits[:-1:group], limits[-1:]])
    held = np.flatnonzero(counts > 0)
    start, end = int(held[0]), int(held[-1]) + 1
    counts = counts[start - 1:end] if start > 0 else np.concatenate([[0], counts[:end]])
    limits = limits[start:end + 1]
    return values, counts, limits


def check_histogram(value, values, bins, max_bins=None):
    values, counts, limits = reference_histogram(values, bins, max_bins)
    h = value.histo
    tag = value.tag
    check(h.min == values.min() and h.max == values.max(), f"{tag}: min {h.min} max {h.max}")
    check(h.num == len(values), f"{tag}: num {h.num}")
    check(math.isclose(h.sum, values.sum(), rel_tol=1e-12, abs_tol=1e-12), f"{tag}: sum {h.sum} vs {values.sum()}")
    check(math.isclose(h.sum_squares, values.dot(values), rel_tol=1e-12), f"{tag}: sum_squares {h.sum_squares}")
    check(list(h.bucket_limit) == limits.tolist(), f"{tag}: bucket_limit {list(h.bucket_limit)} vs {limits.tolist()}")
    check(list(h.bucket) == counts.tolist(), f"{tag}: bucket {list(h.bucket)} vs {counts.tolist()}")


def to_bytes(values, is_u8=False):
    return (values.astype(np.float32) * (1 if is_u8 else 255)).clip(0, 255).astype(np.uint8)


def make_grid(images):
    """torch.utils.tensorboard's make_grid: N gray or RGB images, 8 to a row."""
    if images.shape[1] == 1:
        images = np.concatenate([images] * 3, 1)
    n, _, h, w = images.shape
    columns = min(n, 8)
    rows = -(-n // columns)
    canvas = np.zeros((3, h * rows, w * columns), dtype=images.dtype)
    for i in range(n):
        y, x = divmod(i, columns)
        canvas[:, y * h:(y + 1) * h, x * w:(x + 1) * w] = images[i]
    return canvas


def check_image(value, expected_hwc):
    img = value.image
    height, width, channels = expected_hwc.shape
    check((img.height, img.width, img.colorspace) == (height, width, channels),
          f"{value.tag}: size {img.height}x{img.width}x{img.colorspace}, expected {expected_hwc.shape}")
    png = Image.open(io.BytesIO(img.encoded_image_string))
    check(png.format == "PNG" and png.size == (width, height), f"{value.tag}: PNG {png.format} {png.size}")
    check(np.array_equal(np.asarray(png), expected_hwc), f"{value.tag}: pixels differ")


def load_safetensors(path):
    data = open(path, "rb").read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        begin, end = info["data_offsets"]
        assert info["dtype"] == "F32"
        out[name] = np.frombuffer(data[8 + n + begin:8 + n + end], dtype=np.float32).reshape(info["shape"])
    return out


# ---- the run ----------------------------------------------------------------------------

def check_main(events, data, started, ended):
    it = iter(events)
    for step in range(5):
        v = one_value(e := next(it), "train/loss", step)
        check(v.simple_value == np.float32(1 / (step + 3)), f"train/loss@{step}: {v.simple_value}")
        check_wall_time(e, "train/loss", 1000 + step, started, ended)
    v = one_value(e := next(it), "edge/nan", 1)
    check(math.isnan(v.simple_value), f"edge/nan: {v.simple_value}")
    check_wall_time(e, "edge/nan", None, started, ended)
    check(one_value(next(it), "edge/inf", 2).simple_value == -math.inf, "edge/inf")
    check(one_value(next(it), "edge/tensor", 3).simple_value == np.float32(0.1), "edge/tensor")
    check_histogram(one_value(e := next(it), "hist/tensorflow", 5), data["weights"], tensorflow_bins())
    check_wall_time(e, "hist/tensorflow", 3000, started, ended)
    check_histogram(one_value(next(it), "hist/equal", 6), data["counts"], 7)
    check_histogram(one_value(next(it), "hist/edges", 7), [0.5, 1.5, 1.5, 2.5, 9], [0, 1, 2, 3])
    check_histogram(one_value(next(it), "hist/max_bins", 8), data["weights"], 30, max_bins=4)
    check_image(one_value(next(it), "image/chw", 9), to_bytes(data["image"].transpose(1, 2, 0)))
    check_image(one_value(next(it), "image/hw", 10), to_bytes(np.stack([data["gray"]] * 3, 2)))
    check_image(one_value(next(it), "image/grid", 11), to_bytes(make_grid(data["grid"]).transpose(1, 2, 0)))
    check_image(one_value(next(it), "image/rgba", 12), to_bytes(data["rgba"], is_u8=True))
    check_text(one_value(next(it), "notes/text_summary", 13), "lr **1e-3**, ünïcode")
    check(next(it, None) is None, "main: no event after the text")


def check_text(value, text):
    check(value.metadata.plugin_data.plugin_name == "text", "text: plugin name")
    plugin = plugin_text_pb2.TextPluginData()
    plugin.ParseFromString(value.metadata.plugin_data.content)
    check(plugin.version == 0, "text: plugin version")
    t = value.tensor
    check(t.dtype == tensor_pb2.DT_STRING, f"text: dtype {t.dtype}")
    check([d.size for d in t.tensor_shape.dim] == [1], "text: shape [1]")
    check(list(t.string_val) == [text.encode("utf-8")], f"text: {list(t.string_val)}")


def hparams_data(event, tag):
    value = one_value(event, tag, 0)
    check(value.metadata.plugin_data.plugin_name == "hparams", f"{tag}: plugin name")
    data = plugin_hparams_pb2.HParamsPluginData()
    data.ParseFromString(value.metadata.plugin_data.content)
    check(data.version == 0, f"{tag}: version")
    return data


def check_hparams(events):
    hp = plugin_hparams_pb2
    exp = hparams_data(events[0], "_hparams_/experiment").experiment
    infos = [(i.name, i.type) for i in exp.hparam_infos]
    check(infos == [("lr", hp.DATA_TYPE_FLOAT64), ("layers", hp.DATA_TYPE_FLOAT64),
                    ("optimizer", hp.DATA_TYPE_STRING), ("nesterov", hp.DATA_TYPE_BOOL)], f"hparam_infos {infos}")
    check([m.name.tag for m in exp.metric_infos] == ["accuracy", "loss"], "metric_infos")
    start = hparams_data(events[1], "_hparams_/session_start_info").session_start_info.hparams
    check(start["lr"].number_value == 0.001 and start["layers"].number_value == 3, "session_start_info numbers")
    check(start["optimizer"].string_value == "adam" and start["nesterov"].bool_value is True, "session_start_info")
    check("skipped" not in start, "a none hparam is left out")
    end = hparams_data(events[2], "_hparams_/session_end_info").session_end_info
    check(end.status == hp.STATUS_SUCCESS, "session_end_info status")
    check(one_value(events[3], "accuracy", 0).simple_value == np.float32(0.875), "accuracy")
    check(one_value(events[4], "loss", 0).simple_value == np.float32(0.25), "loss")
    check(len(events) == 5, "hp: five events")


def check_bad_folder(tmp):
    script = os.path.join(tmp, "bad.dsl")
    with open(script, "w") as f:
        f.write("import log\nlet w = log.SummaryWriter(\"/proc\")\nw.add_scalar(\"never\", 1.0)\n")
    r = subprocess.run([NABLA, script], capture_output=True, text=True)
    check(r.returncode == 1, f"bad folder: exit status {r.returncode}")
    lines = r.stderr.splitlines()
    check(lines[0].startswith(script + ":2:9: error: SummaryWriter(): cannot write in the log folder /proc"),
          f"bad folder: {r.stderr}")
    check(lines[1].strip() == "let w = log.SummaryWriter(\"/proc\")" and "^" in lines[2], f"bad folder: {r.stderr}")


def check_training_script(tmp):
    """fashion_mnist_mlp.dsl 2 epochs of 2000 items: 32 steps each, a cosine over 64."""
    logdir = os.path.join(tmp, "mlp")
    r = subprocess.run([NABLA, os.path.join(ROOT, "scripts", "fashion_mnist_mlp.dsl"), "2", "2000", "--logdir", logdir],
                       capture_output=True, text=True, check=True)
    bar_losses = [float(x) for x in re.findall(r"loss (\d+\.\d+)", r.stdout)]
    final_accuracy = float(re.search(r"test_accuracy=(\d+\.\d+)", r.stdout).group(1))
    events = events_of(logdir, suffix="")
    sizes = [("0.weight", 256 * 784), ("0.bias", 256), ("2.weight", 128 * 256), ("2.bias", 128),
             ("4.weight", 10 * 128), ("4.bias", 10)]
    per_epoch = 3 + len(sizes)
    check(len(events) == 2 * per_epoch, f"mlp: {len(events)} events")
    for epoch in (1, 2):
        e = events[(epoch - 1) * per_epoch:epoch * per_epoch]
        loss = one_value(e[0], "train/loss", epoch).simple_value
        check(round(loss, 4) == bar_losses[epoch - 1], f"mlp: loss {loss} vs the bar's {bar_losses[epoch - 1]}")
        accuracy = one_value(e[1], "test/accuracy", epoch).simple_value
        check(0.5 < accuracy < 1, f"mlp: accuracy {accuracy}")
        if epoch == 2:
            check(round(accuracy, 4) == final_accuracy, f"mlp: accuracy {accuracy} vs printed {final_accuracy}")
        lr = 1e-3 * (1 + math.cos(math.pi * 32 * epoch / 64)) / 2
        check(abs(one_value(e[2], "learning_rate", epoch).simple_value - lr) < 1e-9, f"mlp: lr at epoch {epoch}")
        for (name, size), event in zip(sizes, e[3:]):
            check(one_value(event, name, epoch).histo.num == size, f"mlp: histogram of {name}")


def check_flushed_at_exit(tmp):
    """Events buffered (max_queue and flush_secs far off) reach the file when the
    program ends, normally or by an error, without close()."""
    for ending in ("", "fail(\"boom\")\n"):
        logdir = os.path.join(tmp, "exit%d" % len(ending))
        script = os.path.join(tmp, "exit.dsl")
        with open(script, "w") as f:
            f.write("import log\nlet w = log.SummaryWriter(\"%s\", max_queue=1000, flush_secs=1000)\n" % logdir)
            f.write("for i in range(3) { w.add_scalar(\"x\", i * 0.5, i) }\n" + ending)
        r = subprocess.run([NABLA, script], capture_output=True, text=True)
        check(r.returncode == (1 if ending else 0), f"exit: status {r.returncode} {r.stderr}")
        events = events_of(logdir, suffix="")
        check([(e.step, e.summary.value[0].simple_value) for e in events] == [(0, 0.0), (1, 0.5), (2, 1.0)],
              f"exit {ending!r}: events {events}")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        logdir = os.path.join(tmp, "logs")
        started = time.time()
        subprocess.run([NABLA, os.path.join(HERE, "write_events.dsl"), logdir], check=True)
        ended = time.time()
        data = load_safetensors(os.path.join(logdir, "data.safetensors"))
        check_main(events_of(logdir), data, started, ended)
        check_wire_format(next(os.path.join(logdir, n) for n in os.listdir(logdir) if n.startswith("events.out")))
        for folder, value in (("run_train", 0.5), ("run_test/a", 0.25)):
            (e,) = events_of(os.path.join(logdir, folder))
            check(one_value(e, "run", 4).simple_value == np.float32(value) and e.wall_time == 2000.5, folder)
        check_hparams(events_of(os.path.join(logdir, "hp")))
        check_bad_folder(tmp)
        check_flushed_at_exit(tmp)
        check_training_script(tmp)
    print(f"read_back: {checks} checks, {len(failures)} failures")
    return 1 if failures else 0


sys.exit(main())
