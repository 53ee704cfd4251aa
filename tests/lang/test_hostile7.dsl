# What the hardening of round 7 (tests/lang/errors_hostile7.dsl) keeps working, each
# value checked against PyTorch 1.13's: the recurrent cells' states, MultiheadAttention's
# rows that see no key (NaN whatever need_weights), sum/cumsum/cumprod's dtype=,
# repeat_interleave's counts, instance_norm's spatial check, and the REPL-like state of
# layers after a failed call.
import nn

let nan = float("nan")

# MultiheadAttention(4, 2) with fixed weights; the numbers below are torch 1.13's for a
# module given the same ones.
fn _mha() {
  let m = nn.MultiheadAttention(4, 2)
  let sd = m.state_dict()
  sd["in_proj_weight"] = sin(arange(48.0)).reshape([12, 4]) * 0.5
  sd["in_proj_bias"] = cos(arange(12.0)) * 0.1
  sd["out_proj.weight"] = cos(arange(16.0)).reshape([4, 4]) * 0.5
  sd["out_proj.bias"] = sin(arange(4.0)) * 0.1
  m.load_state_dict(sd)
  return m
}
let q = sin(arange(24.0) * 0.7).reshape([3, 2, 4])

test "a query whose keys are all padded is NaN with and without need_weights, as PyTorch 1.13's" {
  let m = _mha()
  let kpm = tensor([[true, true, true], [false, true, false]])
  # torch 1.13: m(q, q, q, key_padding_mask=kpm)[0][:, 1], the same for need_weights=False
  let want = tensor([[-0.19185413, 0.07945083, 0.28892320, -0.24002612],
                     [-0.24097277, 0.12844330, 0.27399462, -0.26950261],
                     [-0.24652867, 0.15912987, 0.23943436, -0.25500897]])
  for nw in [true, false] {
    let o = m(q, q, q, key_padding_mask=kpm, need_weights=nw)[0]
    expect(isnan(o[:, 0]).all().item(), f"need_weights={nw}: batch 0 sees no key")
    expect(allclose(o[:, 1], want, atol=1e-5), f"need_weights={nw}")
  }
}

test "a query row masked out by attn_mask is NaN, bool or float, as PyTorch 1.13's" {
  let m = _mha()
  let bool_mask = tensor([[true, true, true], [false, true, false], [false, false, false]])
  let o = m(q, q, q, attn_mask=bool_mask, need_weights=false)[0]
  expect(isnan(o[0]).all().item() and not isnan(o[1:]).any().item())
  # torch 1.13: o[1, 0] and o[2, 1]
  expect(allclose(o[1, 0], tensor([0.14066516, -0.08117361, 0.16638625, 0.08078937]), atol=1e-5))
  expect(allclose(o[2, 1], tensor([-0.22661705, 0.14423618, 0.23899305, -0.23953843]), atol=1e-5))
  let inf = float("inf")
  let float_mask = tensor([[-inf, -inf, -inf], [0.0, -1.0, 0.0], [0.0, 0.0, 0.0]])
  let f = m(q, q, q, attn_mask=float_mask, need_weights=false)[0]
  expect(isnan(f[0]).all().item() and not isnan(f[1:]).any().item())
  expect(allclose(f[1, 1], tensor([-0.23270489, 0.12354782, 0.27212650, -0.26216501]), atol=1e-5))
  expect(allclose(f, m(q, q, q, attn_mask=float_mask)[0], atol=1e-6, equal_nan=true), "need_weights agrees")
}

test "bias_k and add_zero_attn keys stay visible, so a fully padded row is not NaN" {
  let m = nn.MultiheadAttention(4, 2, add_zero_attn=true)
  let kpm = tensor([[true, true, true], [true, true, true]])
  let (o, w) = m(q, q, q, key_padding_mask=kpm)
  expect(not isnan(o).any().item() and w.shape == (2, 3, 4))
  expect(not isnan(m(q, q, q, key_padding_mask=kpm, need_weights=false)[0]).any().item())
}

test "a float attn_mask of another dtype is taken in the query's, with and without need_weights" {
  let m = _mha()
  let mask = tensor([[0.0, -1.0, -2.0], [-0.5, 0.0, -1.0], [0.0, 0.0, 0.0]], dtype=f64)
  let a = m(q, q, q, attn_mask=mask, need_weights=false)[0]
  let b = m(q, q, q, attn_mask=mask)[0]
  expect(str(a.dtype) == "f32" and str(b.dtype) == "f32" and allclose(a, b, atol=1e-6))
}

test "the recurrent cells take an unbatched input with an unbatched state, as PyTorch's" {
  let c = nn.GRUCell(3, 2)
  c.load_state_dict({"weight_ih": sin(arange(18.0)).reshape([6, 3]) * 0.5,
                     "weight_hh": cos(arange(12.0)).reshape([6, 2]) * 0.5,
                     "bias_ih": arange(6.0) * 0.1, "bias_hh": arange(6.0) * -0.05})
  let x = tensor([0.5, -1.0, 2.0])
  let h = tensor([0.3, -0.2])
  # torch 1.13: nn.GRUCell with these weights, c(x, h)
  expect(allclose(c(x, h), tensor([0.46143863, -0.25514507]), atol=1e-6))
  expect(allclose(c(x.unsqueeze(0), h.unsqueeze(0)), tensor([[0.46143863, -0.25514507]]), atol=1e-6))
  let l = nn.LSTMCell(3, 2)
  l.load_state_dict({"weight_ih": sin(arange(24.0)).reshape([8, 3]) * 0.5,
                     "weight_hh": cos(arange(16.0)).reshape([8, 2]) * 0.5,
                     "bias_ih": arange(8.0) * 0.1, "bias_hh": arange(8.0) * -0.05})
  let (h2, c2) = l(x, (h, -h))
  # torch 1.13: nn.LSTMCell with these weights, l(x, (h, -h))
  expect(allclose(h2, tensor([0.19439277, -0.04896841]), atol=1e-6))
  expect(allclose(c2, tensor([0.27353096, -0.10837833]), atol=1e-6))
  expect_error(fn() = c(x, h.unsqueeze(0)), "GRUCell: expected hx of shape [2] for an input of shape [3], got [1, 2]")
  expect_error(fn() = l(x.unsqueeze(0), (h.unsqueeze(0),)), "LSTMCell: expected hx as a pair of tensors (h0, c0)")
}

test "a layer that refused its input keeps working (the REPL keeps it)" {
  let r = nn.GRU(3, 2)
  let x = randn([4, 2, 3])
  expect_error(fn() = r(x, randn([2, 2])), "GRU: expected h0 of shape [1, 2, 2], got [2, 2]")
  expect_error(fn() = r(x[0], randn([1, 2, 2])), "GRU: expected h0 of shape [1, 2] for an unbatched input, got [1, 2, 2]")
  let (y, h) = r(x)
  expect(y.shape == (4, 2, 2) and h.shape == (1, 2, 2))
  let m = nn.MultiheadAttention(4, 2)
  let k = randn([3, 2, 4])
  expect_error(fn() = m(k, k, randn([5, 2, 4])), "key and value must have one length")
  expect(m(k, k, k)[0].shape == (3, 2, 4))
}

test "sum, cumsum and cumprod give the dtype= asked for, wrapping in it, as PyTorch's" {
  let x = tensor([100, 100], dtype=int8)
  # torch 1.13: cumsum(x, 0, dtype=int8) == [100, -56]; x.sum(dtype=int8) == -56
  let c = cumsum(x, dim=0, dtype=int8)
  expect(str(c.dtype) == "i8" and c.tolist() == [100, -56])
  expect(x.sum(dtype=int8).item() == -56 and str(sum(x, dtype=int8).dtype) == "i8")
  expect(x.cumsum(0, dtype=int8).tolist() == [100, -56])
  # torch 1.13: cumprod([3, 100] as int8, 0, dtype=int8) == [3, 44]
  expect(cumprod(tensor([3, 100], dtype=int8), dim=0, dtype=int8).tolist() == [3, 44])
  let b = cumsum(tensor([true, true]), dim=0, dtype=int32)
  expect(str(b.dtype) == "i32" and b.tolist() == [1, 2])
  expect(str(cumsum(x, dim=0).dtype) == "i64" and cumsum(x, dim=0).tolist() == [100, 200], "without dtype= ints add in i64")
}

test "repeat_interleave with a count per element, zeros among them, as PyTorch's" {
  expect(repeat_interleave(tensor([1, 2, 3]), tensor([2, 0, 1])).tolist() == [1, 1, 3])
  expect(repeat_interleave(tensor([[1, 2], [3, 4]]), tensor([0, 2]), dim=0).tolist() == [[3, 4], [3, 4]])
  expect(repeat_interleave(tensor([1, 2]), tensor([0, 0])).shape == (0,))
}

test "interpolate takes a list of one value per spatial dim, and an int for all of them" {
  expect(interpolate(zeros([1, 1, 4, 4]), scale_factor=[2.0, 1.0]).shape == (1, 1, 8, 4))
  expect(interpolate(zeros([1, 1, 4, 4]), size=3).shape == (1, 1, 3, 3))
  expect(interpolate(zeros([1, 1, 4]), size=[3]).shape == (1, 1, 3))
  expect_error(fn() = interpolate(zeros([1, 1, 4, 4]), size=[8]), "size must have one value per spatial dim")
}

test "instance_norm refuses one value per channel, as PyTorch's, and keeps the statistics path" {
  expect_error(fn() = nn.InstanceNorm1d(3)(randn([2, 3, 1])), "expected more than 1 spatial element")
  let n = nn.InstanceNorm1d(3, track_running_stats=true)
  n.eval()
  expect(n(randn([2, 3, 1])).shape == (2, 3, 1), "running statistics need no spread")
  # torch 1.13: InstanceNorm1d(1)(tensor([[[1., 2., 3.]]]))
  expect(allclose(nn.InstanceNorm1d(1)(tensor([[[1.0, 2.0, 3.0]]])), tensor([[[-1.2247357, 0.0, 1.2247357]]]), atol=1e-5))
}
