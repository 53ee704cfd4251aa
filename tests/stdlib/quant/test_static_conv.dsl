# Static quantization of convolutions: QuantizedConv2d against quantize_per_tensor +
# quantized_conv2d and against f32, and a whole CNN (conv + batch norm + relu + pool
# blocks, a dense head) through quantize_static. Run by `nabla test tests/stdlib`.
import nn
import quant

# Symmetric i8 weights per output channel (scale = max |w| / 127.5 per filter).
fn per_channel_i8(w) {
  let s = w.detach().abs().reshape([w.shape[0], -1]).max(dim=1)[0] / 127.5
  return (quantize_per_channel(w.detach(), s, zeros([w.shape[0]], dtype=i64), 0, i8), s)
}

# The group of each of `out` output channels, as an index tensor.
fn channel_groups(out, groups) {
  let g = []
  for j in range(out) { g.append(j // (out // groups)) }
  return tensor(g)
}

fn small_cnn() = nn.Sequential([
  nn.Conv2d(1, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
  nn.Conv2d(8, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
  nn.Flatten(), nn.Linear(16 * 3 * 3, 32), nn.ReLU(), nn.Linear(32, 10)])

# A small CNN with trained-looking batch norms (running statistics of a few batches).
fn trained_cnn() {
  let net = small_cnn()
  no_grad { for _ in range(3) { net(randn([16, 1, 12, 12])) } }
  net.eval()
  return net
}

test "QuantizedConv2d computes quantize + quantized_conv2d, within the quantization steps of f32" {
  manual_seed(20)
  for (groups, stride, padding, dilation) in [(1, 1, 1, 1), (2, 2, 0, 1), (1, 1, 2, 2)] {
    let conv = nn.Conv2d(4, 6, 3, stride=stride, padding=padding, dilation=dilation, groups=groups)
    let x = randn([3, 4, 10, 10])
    let q = quant.quantize_static(conv, [x], qconfig=quant.minmax_qconfig)
    expect(isinstance(q, quant.QuantizedConv2d) and q.groups == groups and q.stride == [stride, stride])
    let (wq, ws) = per_channel_i8(conv.weight)
    expect(q.weight.tolist() == wq.tolist())
    let (s, z) = (q.input_scale, q.input_zero_point)
    let explicit = quantized_conv2d(quantize_per_tensor(x, s, z, u8), wq, ws, conv.bias.detach(), input_scale=s,
                                    input_zero_point=z, stride=[stride, stride], padding=[padding, padding],
                                    dilation=[dilation, dilation], groups=groups)
    expect_close(q(x), explicit, rtol=0.0, atol=0.0)
    # Each input is off by at most s/2 and each weight by ws/2 (padding is exact zeros):
    # |y_q - y| <= (s/2) sum |w_j| + (ws_j/2) sum |x| over the window + k (s/2)(ws_j/2).
    let w = conv.weight.detach()
    let k = w.shape[1] * 9
    let window = conv2d(x.abs(), ones([groups, 4 // groups, 3, 3]), none, stride=[stride, stride],
                        padding=[padding, padding], dilation=[dilation, dilation], groups=groups)
    let per_group = index_select(window, 1, channel_groups(6, groups))
    let bound = ((s / 2) * w.abs().reshape([6, -1]).sum(dim=1) + k * (s / 2) * (ws / 2)).reshape([1, 6, 1, 1]) +
                per_group * (ws / 2).reshape([1, 6, 1, 1])
    let err = (q(x) - conv(x).detach()).abs()
    expect((err <= bound * 1.0001 + 1e-6).sum().item() == err.numel(), f"error {err.max().item()} over the bound")
    expect(err.max().item() > 0)
  }
}

test "quantize_static on a CNN: batch norms folded, convs and linears int8, close to f32" {
  manual_seed(21)
  let net = trained_cnn()
  let batches = [randn([16, 1, 12, 12]), randn([16, 1, 12, 12])]
  let q = quant.quantize_static(net, batches)
  expect(isinstance(q[0], quant.QuantizedConv2d) and isinstance(q[1], nn.Identity) and
         isinstance(q[4], quant.QuantizedConv2d) and isinstance(q[5], nn.Identity) and
         isinstance(q[9], quant.QuantizedLinear) and isinstance(q[11], quant.QuantizedLinear))
  expect(isinstance(net[0], nn.Conv2d) and isinstance(net[1], nn.BatchNorm2d))
  let x = randn([32, 1, 12, 12])
  let y = net(x).detach()
  let yq = q(x)
  expect((yq - y).abs().max().item() < 0.1 * y.std().item(), f"{(yq - y).abs().max().item()} vs {y.std().item()}")
  expect(eq(argmax(yq, dim=1), argmax(y, dim=1)).sum().item() >= 30)
  # conv weights i8, f32 scales and biases, 16 bytes of input parameters per layer.
  let expected = 8 * 9 + 16 * 8 * 9 + 144 * 32 + 32 * 10 + (8 + 8 + 16 + 16 + 32 + 32 + 10 + 10) * 4 + 4 * 16
  expect(quant.model_size_bytes(q) == expected, f"{quant.model_size_bytes(q)} bytes")
  expect(quant.model_size_bytes(net) / quant.model_size_bytes(q) > 3.5)
}

test "a quantized CNN compiles to a graph that computes what eager does, and round-trips through a file" {
  manual_seed(22)
  let x = randn([8, 1, 12, 12])
  let q = quant.quantize_static(trained_cnn(), [x])
  let gm = compile(q, x)
  expect(gm.ir().count("quantized_conv2d(") == 2, gm.ir())
  expect_close(gm(x), q(x), rtol=0.0, atol=0.0)
  gm.optimize()
  # lower_quant: every quantize but the input's folds into the int8 op before it
  expect(gm.ir().count("quantize_per_tensor(") == 1 and "u8" in gm.ir(), gm.ir())
  expect_close(gm(x), q(x), rtol=0.0, atol=0.0)
  let path = "/tmp/nabla_quant_static_cnn_test.safetensors"
  save(q, path)
  let other = quant.sync_input_qparams(load(path, into=quant.quantize_static(trained_cnn(), [x * 3.0])))
  expect_close(other(x), q(x), rtol=0.0, atol=0.0)
}
