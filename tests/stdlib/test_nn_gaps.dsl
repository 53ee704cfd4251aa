# masked_fill with a tensor value, pad of integer and bool tensors, and interpolate's
# area mode and 1-D inputs from the language; InstanceNorm1d/2d/3d and
# MultiheadAttention's kdim, vdim, add_bias_kv, add_zero_attn and bias=false against PyTorch's
# state_dicts and outputs in tests/stdlib/reference/gaps.safetensors (written by
# tests/stdlib/reference/make_gaps.py). Run by ctest dsl_tests.
import nn

let ref = load("tests/stdlib/reference/gaps.safetensors")

# The tensors PyTorch saved under `prefix`, with the prefix taken off.
fn saved(prefix) {
  let out = {}
  for k in ref.keys() {
    if k.startswith(prefix) { out[k[len(prefix):]] = ref[k] }
  }
  return out
}
# m with the state_dict PyTorch saved under `name.`, whose keys must be m's.
fn like_torch(m, name, keys) {
  expect(list(m.state_dict().keys()) == keys, f"{name}: state_dict keys {list(m.state_dict().keys())}")
  let sd = {}
  for k in keys { sd[k] = ref[name + "." + k] }
  m.load_state_dict(sd)
  return m
}

test "masked_fill takes a number or a 0-dim tensor, which gets the filled positions' gradient" {
  let x = tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=true)
  let v = tensor(-1.0, requires_grad=true)
  let m = tensor([true, false, true])
  let y = masked_fill(x, m, v)
  expect_close(y, tensor([[-1.0, 2.0, -1.0], [-1.0, 5.0, -1.0]]))
  (y * tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])).sum().backward()
  expect_close(v.grad, tensor(14.0))
  expect_close(x.grad, tensor([[0.0, 2.0, 0.0], [0.0, 5.0, 0.0]]))
  expect_close(x.masked_fill(m, 7), masked_fill(x, m, tensor(7.0)))
  expect(arange(4).masked_fill(tensor([false, true, false, true]), tensor(9)).tolist() == [0, 9, 2, 9])
}

test "pad takes integer and bool tensors in every mode" {
  let a = arange(5).reshape([1, 1, 5])
  expect(pad(a, [2, 1], mode="reflect").tolist() == [[[2, 1, 0, 1, 2, 3, 4, 3]]])
  expect(pad(a, [2, 1], mode="replicate").tolist() == [[[0, 0, 0, 1, 2, 3, 4, 4]]])
  expect(pad(a, [2, 1], mode="circular").tolist() == [[[3, 4, 0, 1, 2, 3, 4, 0]]])
  expect(pad(a, [1, 1], value=-7).tolist() == [[[-7, 0, 1, 2, 3, 4, -7]]])
  let b = pad(a > 2, [1, 2], mode="reflect")
  expect(str(b.dtype) == "bool")
  expect(b.tolist() == [[[false, false, false, false, true, true, true, false]]])
}

test "interpolate area averages windows as adaptive average pooling" {
  let z = arange(20.0).reshape([1, 1, 4, 5])
  expect_close(interpolate(z, size=[2, 3], mode="area"), tensor([[[[3.0, 4.5, 6.0], [13.0, 14.5, 16.0]]]]))
  expect_close(interpolate(z, size=[2, 3], mode="area"), adaptive_avg_pool2d(z, [2, 3]))
  let w = arange(7.0).reshape([1, 1, 7])
  expect_close(interpolate(w, size=3, mode="area"), tensor([[[1.0, 3.0, 5.0]]]))
  expect_close(nn.Upsample(scale_factor=0.5, mode="area")(z), interpolate(z, size=[2, 2], mode="area"))
  expect(interpolate(w, scale_factor=2, mode="linear", align_corners=true).shape[2] == 14)
}

let tracked = ["running_mean", "running_var", "num_batches_tracked"]

# Two training steps (batch statistics; the running ones move), then eval (running ones).
fn check_instance_norm(m, name) {
  let r = saved(name + ".")
  let y1 = m(r["x1"])
  expect_close(y1, r["y1"], rtol=1e-5, atol=1e-5)
  expect_close(m(r["x2"]), r["y2"], rtol=1e-5, atol=1e-5)
  for (k, v) in saved(name + ".after.").items() { expect_close(m.state_dict()[k], v, rtol=1e-5, atol=1e-6) }
  m.eval()
  expect_close(m(r["x1"]), r["y_eval"], rtol=1e-5, atol=1e-5)
}

test "InstanceNorm1d with affine and running statistics matches PyTorch" {
  let m = like_torch(nn.InstanceNorm1d(4, momentum=0.2, affine=true, track_running_stats=true), "in1d",
                     ["weight", "bias"] + tracked)
  check_instance_norm(m, "in1d")
  expect(m.num_batches_tracked.item() == 0)
  # an unbatched [C, L] input is one sample
  expect_close(m(ref["in1d.x1"][1]), m(ref["in1d.x1"])[1], rtol=1e-6, atol=1e-6)
}

test "InstanceNorm2d with running statistics matches PyTorch" {
  check_instance_norm(like_torch(nn.InstanceNorm2d(3, track_running_stats=true), "in2d", tracked), "in2d")
}

test "InstanceNorm3d with affine matches PyTorch" {
  check_instance_norm(like_torch(nn.InstanceNorm3d(2, eps=1e-3, affine=true), "in3d", ["weight", "bias"]), "in3d")
  expect(len(nn.InstanceNorm3d(2).state_dict()) == 0)
}

test "InstanceNorm: gradients reach the input and the affine parameters, not the running statistics" {
  manual_seed(3)
  let m = nn.InstanceNorm2d(3, affine=true, track_running_stats=true)
  let x = randn([2, 3, 4, 4], requires_grad=true)
  (m(x) * randn([2, 3, 4, 4])).sum().backward()
  expect(x.grad != none and m.weight.grad != none and m.bias.grad != none)
  expect(not m.running_mean.requires_grad)
  expect_error("nn.InstanceNorm1d(3)(ones([2, 3, 4, 5]))", "InstanceNorm1d: expected a 2-d or 3-d input, got shape [2, 3, 4, 5]")
}

test "MultiheadAttention with kdim and vdim matches PyTorch (separate projection weights)" {
  let m = like_torch(nn.MultiheadAttention(8, 2, kdim=5, vdim=3, batch_first=true), "mha_kv",
                     ["q_proj_weight", "k_proj_weight", "v_proj_weight", "in_proj_bias", "out_proj.weight",
                      "out_proj.bias"])
  m.eval()
  let r = saved("mha_kv.")
  let a = m(r["query"], r["key"], r["value"], key_padding_mask=r["key_padding_mask"])
  expect_close(a[0], r["out"], rtol=1e-4, atol=1e-5)
  expect_close(a[1], r["weights"], rtol=1e-4, atol=1e-6)
  expect_close(m(r["query"], r["key"], r["value"], need_weights=false)[0], r["out_no_weights"], rtol=1e-4, atol=1e-5)
  expect(m.in_proj_weight == none and m.k_proj_weight.shape == (8, 5))
  m(r["query"], r["key"], r["value"])[0].sum().backward()
  for w in [m.q_proj_weight, m.k_proj_weight, m.v_proj_weight, m.in_proj_bias] { expect(w.grad != none) }
  expect_error("nn.MultiheadAttention(8, 2, kdim=5, vdim=3)(ones([4, 8]), ones([6, 3]), ones([6, 3]))",
               "MultiheadAttention: key of shape [6, 3] must have kdim = 5 features in its last dim")
}

test "MultiheadAttention with add_zero_attn and bias=false matches PyTorch" {
  let m = like_torch(nn.MultiheadAttention(6, 3, kdim=4, vdim=4, bias=false, add_zero_attn=true), "mha_zero",
                     ["q_proj_weight", "k_proj_weight", "v_proj_weight", "out_proj.weight"])
  m.eval()
  let r = saved("mha_zero.")
  let a = m(r["query"], r["key"], r["key"], attn_mask=r["attn_mask"], key_padding_mask=r["key_padding_mask"],
            average_attn_weights=false)
  expect_close(a[0], r["out"], rtol=1e-4, atol=1e-5)
  expect(a[1].shape == (2, 3, 5, 8))
  expect_close(a[1], r["weights"], rtol=1e-4, atol=1e-6)
  let n = m(r["query"], r["key"], r["key"], attn_mask=r["attn_mask"], key_padding_mask=r["key_padding_mask"],
            need_weights=false)
  expect_close(n[0], r["out"], rtol=1e-4, atol=1e-5)
}

test "MultiheadAttention with add_bias_kv and add_zero_attn matches PyTorch" {
  let m = like_torch(nn.MultiheadAttention(8, 4, add_bias_kv=true, add_zero_attn=true, batch_first=true),
                     "mha_bias_kv", ["in_proj_weight", "in_proj_bias", "bias_k", "bias_v", "out_proj.weight",
                                     "out_proj.bias"])
  m.eval()
  let r = saved("mha_bias_kv.")
  let a = m(r["query"], r["key"], r["key"], attn_mask=r["float_mask"])
  expect_close(a[0], r["out"], rtol=1e-4, atol=1e-5)
  expect(a[1].shape == (2, 3, 7))
  expect_close(a[1], r["weights"], rtol=1e-4, atol=1e-6)
  expect_close(m(r["query"], r["key"], r["key"], attn_mask=r["float_mask"], need_weights=false)[0], r["out"],
               rtol=1e-4, atol=1e-5)
  m(r["query"], r["key"], r["key"])[0].sum().backward()
  expect(m.bias_k.grad != none and m.bias_v.grad != none)
}
