# 1-D, 3-D and transposed convolution layers, 1-D and adaptive pooling (run by `nabla test
# tests/stdlib`; ctest dsl_tests). The PyTorch parity file is written by
# tests/stdlib/reference/make_conv.py.
import nn
import math

let ref = load("tests/stdlib/reference/conv.safetensors")

# Loads the parameters PyTorch saved under `name.` into m and compares m's output on
# PyTorch's input with PyTorch's output.
fn expect_like_torch(m, name) {
  let sd = {}
  for k in m.state_dict().keys() { sd[k] = ref[name + "." + k] }
  m.load_state_dict(sd)
  expect_close(m(ref[name + ".input"]), ref[name + ".output"], rtol=1e-5, atol=1e-5)
}

test "layers give PyTorch's outputs from PyTorch's state_dicts" {
  expect_like_torch(nn.Conv1d(4, 6, 3, stride=2, padding=1, groups=2), "conv1d")
  expect_like_torch(nn.Conv1d(3, 2, 2, dilation=2, bias=false), "conv1d_dilated")
  expect_like_torch(nn.Conv3d(4, 6, [3, 2, 3], stride=[2, 1, 1], padding=[1, 0, 1], dilation=[1, 2, 1], groups=2),
                    "conv3d")
  expect_like_torch(nn.ConvTranspose1d(4, 3, 3, stride=2, padding=1, output_padding=1), "conv_transpose1d")
  expect_like_torch(nn.ConvTranspose2d(3, 4, 3, stride=2, padding=1, output_padding=1), "conv_transpose2d")
  expect_like_torch(nn.ConvTranspose2d(4, 6, 2, stride=1, groups=2, dilation=2), "conv_transpose2d_groups")
  expect_like_torch(nn.AdaptiveAvgPool2d([2, 3]), "adaptive_avg_pool2d")
  expect_like_torch(nn.AdaptiveMaxPool2d(2), "adaptive_max_pool2d")
  expect_like_torch(nn.AdaptiveAvgPool1d(3), "adaptive_avg_pool1d")
  expect_like_torch(nn.MaxPool1d(3, stride=2, padding=1), "max_pool1d")
  expect_like_torch(nn.AvgPool1d(2), "avg_pool1d")
}

test "state_dict keys and parameter shapes are PyTorch's" {
  expect(list(nn.Conv1d(4, 6, 3).state_dict().keys()) == ["weight", "bias"])
  expect(list(nn.Conv1d(4, 6, 3, bias=false).state_dict().keys()) == ["weight"])
  expect(nn.Conv1d(4, 6, 3, groups=2).weight.shape == (6, 2, 3))
  expect(nn.ConvTranspose1d(4, 6, 3, groups=2).weight.shape == (4, 3, 3))
  expect(nn.ConvTranspose2d(4, 6, [3, 2], groups=2).weight.shape == (4, 3, 3, 2))
  expect(list(nn.ConvTranspose2d(4, 6, 3).state_dict().keys()) == ["weight", "bias"])
  expect(len(nn.AdaptiveAvgPool2d(1).state_dict()) == 0)
}

test "init draws within PyTorch's kaiming-uniform bound (a=sqrt(5)) of the right fan-in" {
  manual_seed(0)
  # fan_in = weight.size(1) * kernel: 4 * 5 for Conv1d(4, ., 5); 3 * 9 for ConvTranspose2d(., 6, 3, groups=2)
  let c = nn.Conv1d(4, 8, 5)
  let bound = 1.0 / math.sqrt(20.0)
  expect(c.weight.abs().max().item() <= bound and c.weight.abs().max().item() > 0.8 * bound)
  expect(c.bias.abs().max().item() <= bound)
  let t = nn.ConvTranspose2d(4, 6, 3, groups=2)
  let tb = 1.0 / math.sqrt(27.0)
  expect(t.weight.abs().max().item() <= tb and t.weight.abs().max().item() > 0.8 * tb)
  expect(t.bias.abs().max().item() <= tb)
}

test "output shapes" {
  manual_seed(0)
  let x = randn([2, 4, 10])
  expect(nn.Conv1d(4, 6, 3)(x).shape == (2, 6, 8))
  expect(nn.Conv1d(4, 6, 3, stride=2, padding=1)(x).shape == (2, 6, 5))
  expect(nn.Conv3d(2, 4, 3, padding=1)(randn([2, 2, 5, 6, 7])).shape == (2, 4, 5, 6, 7))
  expect(nn.Conv3d(2, 4, [1, 3, 3], stride=2)(randn([2, 5, 6, 7])).shape == (4, 3, 2, 3))
  expect(nn.ConvTranspose1d(4, 2, 3, stride=2)(x).shape == (2, 2, 21))
  expect(nn.ConvTranspose1d(4, 2, 3, stride=2, padding=1, output_padding=1)(x).shape == (2, 2, 20))
  expect(nn.ConvTranspose2d(3, 5, 4, stride=2, padding=1)(randn([1, 3, 7, 8])).shape == (1, 5, 14, 16))
  expect(nn.MaxPool1d(2)(x).shape == (2, 4, 5))
  expect(nn.AvgPool1d(3, stride=1, padding=1)(x).shape == (2, 4, 10))
  expect(nn.AdaptiveAvgPool1d(1)(x).shape == (2, 4, 1))
  expect(nn.AdaptiveAvgPool2d([3, 2])(randn([2, 3, 7, 5])).shape == (2, 3, 3, 2))
  let (v, i) = nn.AdaptiveMaxPool2d(2, return_indices=true)(randn([2, 3, 7, 5]))
  expect(v.shape == (2, 3, 2, 2) and i.shape == (2, 3, 2, 2) and i.dtype == i64)
  let (mv, mi) = max_pool1d(x, 2, return_indices=true)
  expect(mi.shape == (2, 4, 5))
}

test "conv_transpose is the adjoint of conv in its input" {
  manual_seed(1)
  let x = randn([2, 4, 6, 5])
  let w = randn([4, 3, 3, 3])
  let y = randn([2, 3, 12, 10])
  # <conv2d(y, w), x> = <y, conv_transpose2d(x, w)> for stride 2, padding 1, output_padding 1
  let lhs = (conv2d(y, w, stride=2, padding=1) * x).sum()
  let rhs = (y * conv_transpose2d(x, w, stride=2, padding=1, output_padding=1)).sum()
  expect_close(lhs, rhs, rtol=1e-4, atol=1e-3)
}

test "conv3d's gradients and second derivatives match finite differences (f64)" {
  manual_seed(3)
  let x = randn([1, 2, 4, 3, 3], dtype=f64, requires_grad=true)
  let w = randn([2, 1, 2, 2, 2], dtype=f64, requires_grad=true)
  let b = randn([2], dtype=f64, requires_grad=true)
  expect(gradcheck(fn(x, w, b) = conv3d(x, w, b, stride=[2, 1, 1], padding=1, groups=2), x, w, b))
  expect(gradgradcheck(fn(x, w, b) = conv3d(x, w, b, stride=[2, 1, 1], padding=1, groups=2), x, w, b))
}

test "layers train: gradients reach every parameter" {
  manual_seed(2)
  let m = nn.Sequential([nn.Conv1d(3, 4, 3, padding=1), nn.ReLU(), nn.ConvTranspose1d(4, 2, 2, stride=2),
                         nn.AdaptiveAvgPool1d(5)])
  m(randn([2, 3, 8])).sum().backward()
  for p in m.parameters() { expect(p.grad != none and p.grad.abs().sum().item() > 0.0) }
}
