# nn.MultiheadAttention and scaled_dot_product_attention from the language.
import nn
import math

test "MultiheadAttention: shapes and PyTorch's parameter layout" {
  manual_seed(0)
  let m = nn.MultiheadAttention(8, 2, batch_first=true)
  expect(m(randn([3, 5, 8]), randn([3, 7, 8]), randn([3, 7, 8]))[0].shape == (3, 5, 8))
  expect(m(randn([2, 4, 8]), randn([2, 4, 8]), randn([2, 4, 8]), is_causal=true)[0].shape == (2, 4, 8))
  expect(m.in_proj_weight.shape == (24, 8) and m.in_proj_bias.shape == (24,))
  expect(m.out_proj.weight.shape == (8, 8) and m.out_proj.bias.shape == (8,))
  let names = []
  for p in m.named_parameters() { names.append(p[0]) }
  expect(names == ["in_proj_weight", "in_proj_bias", "out_proj.weight", "out_proj.bias"])
  expect(m.in_proj_bias.abs().sum().item() == 0.0 and m.out_proj.bias.abs().sum().item() == 0.0)
  expect(len(nn.MultiheadAttention(8, 4, bias=false).parameters()) == 2)
}

test "MultiheadAttention equals a hand computation with the op" {
  manual_seed(1)
  let m = nn.MultiheadAttention(6, 3, batch_first=true)
  no_grad {
    m.in_proj_bias.copy_(randn([18]))
    m.out_proj.bias.copy_(randn([6]))
  }
  let x = randn([2, 4, 6])
  let y = randn([2, 5, 6])
  let w = m.in_proj_weight
  let b = m.in_proj_bias
  let q = (x @ w[0:6].T + b[0:6]).reshape([2, 4, 3, 2]).transpose(1, 2)
  let k = (y @ w[6:12].T + b[6:12]).reshape([2, 5, 3, 2]).transpose(1, 2)
  let v = (y @ w[12:18].T + b[12:18]).reshape([2, 5, 3, 2]).transpose(1, 2)
  # softmax(q k^T / sqrt(head_dim)) v written out, then the op itself
  let o = softmax(q @ k.transpose(2, 3) / math.sqrt(2.0), dim=-1) @ v
  expect_close(scaled_dot_product_attention(q, k, v), o, rtol=1e-5, atol=1e-6)
  let want = o.transpose(1, 2).reshape([2, 4, 6]) @ m.out_proj.weight.T + m.out_proj.bias
  expect_close(m(x, y, y)[0], want, rtol=1e-5, atol=1e-6)
}

test "MultiheadAttention is_causal: a later token does not change earlier outputs" {
  manual_seed(2)
  let m = nn.MultiheadAttention(8, 2, batch_first=true)
  let x = randn([2, 6, 8])
  let x2 = cat([x[:, 0:5], randn([2, 1, 8])], dim=1)
  let a = m(x, x, x, is_causal=true)[0]
  let b = m(x2, x2, x2, is_causal=true)[0]
  expect_close(a[:, 0:5], b[:, 0:5], rtol=1e-6, atol=1e-6)
  expect((a[:, 5] - b[:, 5]).abs().max().item() > 1e-3)
  # without the mask the last token reaches every position
  expect((m(x, x, x)[0][:, 0] - m(x2, x2, x2)[0][:, 0]).abs().max().item() > 1e-4)
}

test "MultiheadAttention: gradients reach every parameter and the inputs" {
  manual_seed(3)
  let m = nn.MultiheadAttention(8, 4, batch_first=true)
  let x = randn([2, 5, 8], requires_grad=true)
  m(x, x, x, is_causal=true)[0].pow(2.0).sum().backward()
  for p in m.parameters() {
    expect(p.grad != none)
    expect(p.grad.shape == p.shape)
    expect(p.grad.abs().sum().item() > 0.0)
  }
  expect(x.grad.abs().sum().item() > 0.0)
}
