# Round 6 against PyTorch 1.13, the initial parameters of 27 layers: each parameter's
# mean, std and max |p| against those of PyTorch's draw (init.<layer>.<key> in
# tests/stdlib/reference/layers_vs_torch6.safetensors, written by
# tests/stdlib/reference/make_layers_vs_torch6.py, init_cases, which builds the same
# layers). The layers are large enough that the statistics tell the distributions
# apart: the std within a few standard errors (it fixes a uniform's bound or a
# normal's sigma, so fan_in / fan_out mistakes, say of grouped or transposed
# convolutions, show), max |p| / std within 20% where there are 2000 values or more
# (uniform's sqrt(3) against a normal's tail), the mean within its standard error; a
# constant (zeros, ones, 0.25) exactly.
import nn
import math

let ref = load("tests/stdlib/reference/layers_vs_torch6.safetensors")

fn check_init(name, layer) {
  let keys = sorted([k[len(name) + 6:] for k in ref.keys() if k.startswith(f"init.{name}.")])
  let mine = sorted([k for (k, p) in layer.named_parameters()])
  expect(mine == keys, f"{name}: parameters {mine}, PyTorch's {keys}")
  for (key, p) in layer.named_parameters() {
    let want = ref.get(f"init.{name}.{key}")
    if want == none { continue }
    let (mean, std, top, n) = (want[0].item(), want[1].item(), want[2].item(), want[3].item())
    let x = p.detach().to(f64)
    expect(x.numel() == int(n), f"{name}.{key}: {x.numel()} values, PyTorch's {int(n)}")
    let (m, s, t) = (x.mean().item(), x.std().item(), x.abs().max().item())
    if std == 0 {
      expect(s == 0 and m == mean, f"{name}.{key}: mean {m} std {s}, PyTorch's constant {mean}")
      continue
    }
    let rel = 5.0 / math.sqrt(2.0 * n) + 0.02
    expect(abs(s / std - 1) <= rel, f"{name}.{key}: std {s}, PyTorch's {std} (within {rel * 100:.1f}%)")
    expect(abs(m - mean) <= 6 * std / math.sqrt(n), f"{name}.{key}: mean {m}, PyTorch's {mean}")
    # the largest of n draws settles slowly: only where n is large
    if n >= 2000 {
      expect(abs((t / s) / (top / std) - 1) <= 0.2, f"{name}.{key}: max |p| / std {t / s}, PyTorch's {top / std}")
    }
  }
}

test "Linear, Bilinear and the grouped, transposed and 3-D convolutions draw as PyTorch's" {
  check_init("linear", nn.Linear(300, 1000))
  check_init("bilinear", nn.Bilinear(40, 30, 800))
  check_init("conv1d_groups", nn.Conv1d(32, 400, 5, groups=4))
  check_init("conv2d_groups", nn.Conv2d(16, 512, 3, groups=2))
  check_init("conv3d", nn.Conv3d(8, 300, 3))
  check_init("convt1d_groups", nn.ConvTranspose1d(32, 400, 5, groups=4))
  check_init("convt2d_groups", nn.ConvTranspose2d(64, 512, 3, groups=2))
  check_init("convt3d", nn.ConvTranspose3d(300, 8, 3))
  check_init("convt3d_wide", nn.ConvTranspose3d(8, 300, 3))
}

test "the recurrent layers and cells draw U(-1/sqrt(H), 1/sqrt(H)), proj_size's weight_hr too" {
  check_init("rnn", nn.RNN(50, 300, num_layers=2))
  check_init("lstm_proj_bi", nn.LSTM(50, 300, proj_size=40, bidirectional=true))
  check_init("gru", nn.GRU(50, 300))
  check_init("lstmcell", nn.LSTMCell(50, 300))
  check_init("grucell", nn.GRUCell(50, 300))
  check_init("rnncell", nn.RNNCell(50, 300))
}

test "attention and transformer layers: xavier in_proj, zero biases, bias_k/bias_v, Transformer's xavier" {
  check_init("mha", nn.MultiheadAttention(512, 4))
  check_init("mha_kdim_bias_kv", nn.MultiheadAttention(512, 4, kdim=100, vdim=200, add_bias_kv=true))
  check_init("encoder_layer", nn.TransformerEncoderLayer(256, 4, 1024))
  check_init("decoder_layer", nn.TransformerDecoderLayer(256, 4, 1024))
  check_init("transformer", nn.Transformer(128, 4, 1, 1, 512))
}

test "embeddings, PReLU and the norms start as PyTorch's" {
  let e = nn.Embedding(1000, 20, padding_idx=3)
  check_init("embedding_pad", e)
  expect(bool((e.weight[3] == 0).all()), "the padding row starts at zeros")
  check_init("embedding_bag", nn.EmbeddingBag(1000, 20))
  check_init("prelu", nn.PReLU(300))
  check_init("batchnorm", nn.BatchNorm2d(300))
  check_init("layernorm", nn.LayerNorm([30, 20]))
  check_init("groupnorm", nn.GroupNorm(4, 400))
  check_init("instancenorm_affine", nn.InstanceNorm2d(300, affine=true))
}
