#!/usr/bin/python3
"""Expected values for the `quant` stdlib module, computed with PyTorch 1.13's
torch.ao.quantization: observers' min/max and quantization parameters after a few
batches, FakeQuantize's output and straight-through gradient, a dynamically quantized
Linear (per-channel weights), one QAT forward/backward (fake-quantized input and
weight), and HistogramObserver's histogram and quantization parameters after batches
whose range grows (and shrinks, and starts constant). Writes tests/stdlib/quant/test_reference.dsl (test blocks that run the same in
nabla and compare):

    /usr/bin/python3 scripts/reference/quant_reference.py > tests/stdlib/quant/test_reference.dsl
"""
import warnings

import torch
from torch.ao import quantization as tq

warnings.filterwarnings("ignore", message="Please use quant_min and quant_max")

torch.manual_seed(0)
torch.backends.quantized.engine = "onednn"  # Debian's PyTorch has no FBGEMM

BATCHES = [torch.randn(4, 5) * s + o for s, o in ((1.0, 0.3), (2.0, -0.5), (0.5, 1.0))]
W = torch.randn(6, 5) * 0.4
B = torch.randn(6) * 0.1


def fmt(x):
    if isinstance(x, torch.Tensor):
        x = x.tolist()
    if isinstance(x, list):
        return "[" + ", ".join(fmt(v) for v in x) + "]"
    if isinstance(x, bool):
        return "true" if x else "false"
    return repr(float(x)) if isinstance(x, float) else str(x)


def observed(obs):
    for b in BATCHES:
        obs(b)
    return obs


OBSERVERS = [
    ("MinMaxObserver()", observed(tq.MinMaxObserver())),
    ("MinMaxObserver(dtype=i8, qscheme=\"per_tensor_symmetric\")",
     observed(tq.MinMaxObserver(dtype=torch.qint8, qscheme=torch.per_tensor_symmetric))),
    ("MinMaxObserver(reduce_range=true)", observed(tq.MinMaxObserver(reduce_range=True))),
    ("MinMaxObserver(qscheme=\"per_tensor_symmetric\")",
     observed(tq.MinMaxObserver(qscheme=torch.per_tensor_symmetric))),
    ("MovingAverageMinMaxObserver()", observed(tq.MovingAverageMinMaxObserver())),
    ("MovingAverageMinMaxObserver(averaging_constant=0.5, quant_min=0, quant_max=15)",
     observed(tq.MovingAverageMinMaxObserver(averaging_constant=0.5, quant_min=0, quant_max=15))),
    ("PerChannelMinMaxObserver(ch_axis=1)",
     observed(tq.PerChannelMinMaxObserver(ch_axis=1, dtype=torch.qint8, qscheme=torch.per_channel_symmetric))),
    ("PerChannelMinMaxObserver(ch_axis=0, dtype=u8, qscheme=\"per_channel_affine\")",
     observed(tq.PerChannelMinMaxObserver(ch_axis=0, dtype=torch.quint8, qscheme=torch.per_channel_affine))),
    ("MovingAveragePerChannelMinMaxObserver(ch_axis=1)",
     observed(tq.MovingAveragePerChannelMinMaxObserver(ch_axis=1, dtype=torch.qint8,
                                                       qscheme=torch.per_channel_symmetric))),
]


def observer_tests():
    lines = ['test "observers choose PyTorch\'s quantization parameters" {']
    for i, (ctor, obs) in enumerate(OBSERVERS):
        scale, zero_point = obs.calculate_qparams()
        lines += [f"  let o{i} = quant.{ctor}",
                  f"  for b in BATCHES {{ o{i}(b) }}",
                  f"  let (s{i}, z{i}) = o{i}.calculate_qparams()",
                  f"  expect_close(o{i}.min_val, tensor({fmt(obs.min_val)}), rtol=1e-6, atol=1e-7)",
                  f"  expect_close(o{i}.max_val, tensor({fmt(obs.max_val)}), rtol=1e-6, atol=1e-7)",
                  f"  expect_close(s{i}, tensor({fmt(scale)}).reshape(list(s{i}.shape)), rtol=1e-6, atol=0.0)",
                  f"  expect(z{i}.tolist() == tensor({fmt(zero_point)}).reshape(list(z{i}.shape)).tolist(), "
                  f"f\"observer {i}: zero point {{z{i}.tolist()}}\")"]
    lines.append("}")
    return lines


def fake_quant_test():
    x = torch.cat(BATCHES).requires_grad_(True)
    fq = tq.FakeQuantize(observer=tq.MovingAverageMinMaxObserver, quant_min=0, quant_max=255)
    y = fq(x)
    g = torch.randn_like(y)
    (y * g).sum().backward()
    wfq = tq.FakeQuantize(observer=tq.MovingAveragePerChannelMinMaxObserver, quant_min=-128, quant_max=127,
                          dtype=torch.qint8, qscheme=torch.per_channel_symmetric, ch_axis=0)
    w = W.clone().requires_grad_(True)
    yw = wfq(w)
    yw.sum().backward()
    return ['test "FakeQuantize: PyTorch\'s output and straight-through gradient" {',
            f"  let x = tensor({fmt(x.detach())}, requires_grad=true)",
            f"  let g = tensor({fmt(g)})",
            "  let fq = quant.FakeQuantize(quant.MovingAverageMinMaxObserver())",
            "  let y = fq(x)",
            f"  expect_close(y, tensor({fmt(y.detach())}), rtol=1e-6, atol=1e-6)",
            "  (y * g).sum().backward()",
            f"  expect_close(x.grad, tensor({fmt(x.grad)}), rtol=0.0, atol=0.0)",
            "  let w = tensor(W, requires_grad=true)",
            "  let wfq = quant.FakeQuantize(quant.MovingAveragePerChannelMinMaxObserver(ch_axis=0))",
            "  let yw = wfq(w)",
            f"  expect_close(yw, tensor({fmt(yw.detach())}), rtol=1e-6, atol=1e-6)",
            "  yw.sum().backward()",
            f"  expect_close(w.grad, tensor({fmt(w.grad)}), rtol=0.0, atol=0.0)",
            "}"]


def linear():
    m = torch.nn.Linear(5, 6)
    with torch.no_grad():
        m.weight.copy_(W)
        m.bias.copy_(B)
    return m


def dynamic_test():
    qm = tq.quantize_dynamic(torch.nn.Sequential(linear()), {torch.nn.Linear: tq.per_channel_dynamic_qconfig})
    x = torch.cat(BATCHES)
    y = qm(x)
    w = qm[0].weight()
    return ['test "quantize_dynamic: PyTorch\'s per-channel dynamic Linear" {',
            "  let m = nn.Sequential([nn.Linear(5, 6)])",
            "  no_grad { m[0].weight.copy_(tensor(W)); m[0].bias.copy_(tensor(B_)) }",
            "  # PyTorch's dynamic Linear module always quantizes activations with reduce_range",
            "  # (7 bits, for CPUs whose int8 multiply-add saturates); nabla's default is 8 bits.",
            "  let qm = quant.quantize_dynamic(m, reduce_range=true)",
            f"  expect(qm[0].weight.tolist() == {fmt(w.int_repr())})",
            f"  expect_close(qm[0].weight_scale, tensor({fmt(w.q_per_channel_scales().float())}), rtol=1e-6, atol=0.0)",
            f"  expect_close(qm(cat(BATCHES)), tensor({fmt(y)}), rtol=1e-5, atol=1e-5)",
            "}"]


def qat_test():
    # nabla's QATLinear = PyTorch's nn.qat.Linear (weight fake quant) fed through
    # default_dynamic_fake_quant (the input's range per batch, u8).
    m = linear()
    m.qconfig = tq.QConfig(activation=tq.default_dynamic_fake_quant,
                           weight=tq.default_per_channel_weight_fake_quant)
    qat = torch.nn.qat.Linear.from_float(m)
    act = tq.default_dynamic_fake_quant()
    outs = []
    for b in BATCHES:
        y = qat(act(b))
        outs.append(y)
    loss = sum((y * y).sum() for y in outs)
    loss.backward()
    return ['test "prepare_qat: PyTorch\'s fake-quantized forward and gradients" {',
            "  let m = nn.Sequential([nn.Linear(5, 6)])",
            "  no_grad { m[0].weight.copy_(tensor(W)); m[0].bias.copy_(tensor(B_)) }",
            "  let qat = quant.prepare_qat(m)",
            "  let loss = tensor(0.0)",
            "  let outs = []",
            "  for b in BATCHES { outs.append(qat(b)) }",
            "  for y in outs { loss = loss + (y * y).sum() }",
            "  loss.backward()",
            f"  expect_close(outs[2], tensor({fmt(outs[2].detach())}), rtol=1e-5, atol=1e-5)",
            f"  expect_close(qat[0].weight.grad, tensor({fmt(qat.weight.grad)}), rtol=1e-4, atol=1e-5)",
            f"  expect_close(qat[0].bias.grad, tensor({fmt(qat.bias.grad)}), rtol=1e-4, atol=1e-5)",
            "}"]


# HistogramObserver's batches, from their own generator (the draws above stay as they
# were): the range grows (more than 1, so histc's int() truncation of it matters, and
# inside (-1, 1), where it does not), stays inside, and has outliers.
HIST_GEN = torch.Generator().manual_seed(1)


def hist_batch(n, scale, shift=0.0, outlier=None):
    b = torch.randn(n, generator=HIST_GEN) * scale + shift
    if outlier is not None:
        b[n // 2] = outlier
    return b


HIST_BATCHES = [hist_batch(300, 0.3), hist_batch(300, 0.5, 0.1), hist_batch(300, 1.5, -0.2, outlier=9.0),
                hist_batch(300, 0.4), hist_batch(300, 2.5, 0.5, outlier=-14.0)]
HIST_SMALL = [hist_batch(200, 0.2), hist_batch(200, 0.25, 0.05)]  # the range stays inside (-1, 1)
HIST_CONSTANT = [torch.full((50,), 0.75), hist_batch(200, 1.2)]   # a constant batch, then a real one

HISTOGRAMS = [
    ("HistogramObserver()", "HB", tq.HistogramObserver()),
    ("HistogramObserver(dtype=i8, qscheme=\"per_tensor_symmetric\")", "HB",
     tq.HistogramObserver(dtype=torch.qint8, qscheme=torch.per_tensor_symmetric)),
    ("HistogramObserver(reduce_range=true)", "HB", tq.HistogramObserver(reduce_range=True)),
    ("HistogramObserver(bins=256, upsample_rate=16, quant_min=0, quant_max=15)", "HB",
     tq.HistogramObserver(bins=256, upsample_rate=16, quant_min=0, quant_max=15)),
    ("HistogramObserver()", "HS", tq.HistogramObserver()),
    ("HistogramObserver(qscheme=\"per_tensor_symmetric\")", "HC",
     tq.HistogramObserver(qscheme=torch.per_tensor_symmetric)),
]


def histogram_tests():
    data = {"HB": HIST_BATCHES, "HS": HIST_SMALL, "HC": HIST_CONSTANT}
    lines = [f"let {name} = [{', '.join('tensor(' + fmt(b) + ')' for b in batches)}]" for name, batches in data.items()]
    lines += ["", 'test "HistogramObserver: PyTorch\'s histogram, range and quantization parameters" {']
    for i, (ctor, batches, obs) in enumerate(HISTOGRAMS):
        for b in data[batches]:
            obs(b)
        scale, zero_point = obs.calculate_qparams()
        lines += [f"  let h{i} = quant.{ctor}",
                  f"  for b in {batches} {{ h{i}(b) }}",
                  f"  expect_close(h{i}.min_val, tensor({fmt(obs.min_val)}), rtol=0.0, atol=0.0)",
                  f"  expect_close(h{i}.max_val, tensor({fmt(obs.max_val)}), rtol=1e-6, atol=0.0)",
                  f"  expect_close(h{i}.histogram, tensor({fmt(obs.histogram)}), rtol=1e-5, atol=1e-5)",
                  f"  let (hs{i}, hz{i}) = h{i}.calculate_qparams()",
                  f"  expect_close(hs{i}, tensor({fmt(scale)}).reshape(list(hs{i}.shape)), rtol=1e-6, atol=0.0)",
                  f"  expect(hz{i}.tolist() == tensor({fmt(zero_point)}).reshape(list(hz{i}.shape)).tolist(), "
                  f"f\"histogram observer {i}: zero point {{hz{i}.tolist()}}\")"]
    lines.append("}")
    return lines


def main():
    lines = [f"# Generated by scripts/reference/quant_reference.py with PyTorch {torch.__version__} - do not edit.",
             "import nn", "import quant", "",
             f"let BATCHES = [{', '.join('tensor(' + fmt(b) + ')' for b in BATCHES)}]",
             f"let W = {fmt(W)}", f"let B_ = {fmt(B)}", ""]
    for block in (observer_tests(), fake_quant_test(), dynamic_test(), qat_test(), histogram_tests()):
        lines += block + [""]
    print("\n".join(lines).rstrip())


if __name__ == "__main__":
    main()
