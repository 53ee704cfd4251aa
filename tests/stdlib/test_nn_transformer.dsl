# MultiheadAttention's masks and weights, TransformerEncoderLayer and
# TransformerDecoderLayer against PyTorch (run by `nabla test tests/stdlib`; ctest:
# dsl_tests). The parity file is written by tests/stdlib/reference/make_attention.py.
import nn

let ref = load("tests/stdlib/reference/attention.safetensors")

# m with the parameters PyTorch saved under `name.`, in eval mode (no dropout).
fn like_torch(m, name) {
  let sd = {}
  for k in m.state_dict().keys() { sd[k] = ref[name + "." + k] }
  m.load_state_dict(sd)
  m.eval()
  return m
}
fn r(name) = ref[name]

test "MultiheadAttention: PyTorch's outputs and weights with bool, float and 3-D masks" {
  let m = like_torch(nn.MultiheadAttention(8, 2, batch_first=true), "mha")
  let q = r("mha.query")
  let k = r("mha.key")
  let a = m(q, k, k, key_padding_mask=r("mha.key_padding_mask"), attn_mask=r("mha.attn_mask"))
  expect_close(a[0], r("mha.out"), rtol=1e-4, atol=1e-5)
  expect_close(a[1], r("mha.weights"), rtol=1e-4, atol=1e-6)
  let f = m(q, k, k, attn_mask=r("mha.float_mask"), average_attn_weights=false)
  expect_close(f[0], r("mha.out_float"), rtol=1e-4, atol=1e-5)
  expect(f[1].shape == (3, 2, 5, 6))
  expect_close(f[1], r("mha.weights_float"), rtol=1e-4, atol=1e-6)
  # need_weights=false goes through scaled_dot_product_attention's kernel
  let n = m(q, k, k, key_padding_mask=r("mha.key_padding_mask"), need_weights=false)
  expect(n[1] == none)
  expect_close(n[0], r("mha.out_no_weights"), rtol=1e-4, atol=1e-5)
  let t = m(q, k, k, attn_mask=r("mha.attn_mask3"))
  expect_close(t[0], r("mha.out_mask3"), rtol=1e-4, atol=1e-5)
  expect_close(t[1], r("mha.weights_mask3"), rtol=1e-4, atol=1e-6)
}

test "MultiheadAttention: sequence-first inputs, no bias, a float causal mask" {
  let m = like_torch(nn.MultiheadAttention(6, 3, bias=false), "mha_seq")
  let x = r("mha_seq.x")
  let a = m(x, x, x, attn_mask=nn_causal_mask(4))
  expect_close(a[0], r("mha_seq.out"), rtol=1e-4, atol=1e-5)
  expect_close(a[1], r("mha_seq.weights"), rtol=1e-4, atol=1e-6)
  # is_causal gives the same as the explicit mask
  expect_close(m(x, x, x, is_causal=true)[0], r("mha_seq.out"), rtol=1e-4, atol=1e-5)
  # unbatched [L, E] input
  expect_close(m(x[:, 1], x[:, 1], x[:, 1], need_weights=false)[0],
               m(x, x, x, need_weights=false)[0][:, 1], rtol=1e-5, atol=1e-6)
}

# PyTorch's Transformer.generate_square_subsequent_mask: -inf above the diagonal.
fn nn_causal_mask(n) = where(arange(n).reshape([1, n]) <= arange(n).reshape([n, 1]), 0.0, float("-inf"))

test "TransformerEncoderLayer: post-norm relu and pre-norm gelu equal PyTorch's" {
  let e = like_torch(nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0, batch_first=true), "enc")
  expect_close(e(r("enc.src"), src_key_padding_mask=r("enc.key_padding_mask")), r("enc.out"), rtol=1e-4, atol=1e-5)
  let p = like_torch(nn.TransformerEncoderLayer(8, 4, dim_feedforward=12, dropout=0.0, activation="gelu",
                                                batch_first=true, norm_first=true), "enc_pre")
  expect_close(p(r("enc.src"), src_mask=nn_causal_mask(6)), r("enc_pre.out"), rtol=1e-4, atol=1e-5)
  expect_close(p(r("enc.src"), is_causal=true), r("enc_pre.out"), rtol=1e-4, atol=1e-5)
  let names = []
  for kv in e.named_parameters() { names.append(kv[0]) }
  expect("self_attn.in_proj_weight" in names and "linear1.weight" in names and "norm2.bias" in names)
}

test "TransformerDecoderLayer: post-norm and pre-norm equal PyTorch's" {
  let d = like_torch(nn.TransformerDecoderLayer(8, 2, dim_feedforward=16, dropout=0.0, batch_first=true), "dec")
  let y = d(r("dec.tgt"), r("dec.memory"), tgt_mask=nn_causal_mask(5),
            memory_key_padding_mask=r("dec.memory_key_padding_mask"))
  expect_close(y, r("dec.out"), rtol=1e-4, atol=1e-5)
  let p = like_torch(nn.TransformerDecoderLayer(8, 2, dim_feedforward=16, dropout=0.0, batch_first=true,
                                                norm_first=true), "dec_pre")
  expect_close(p(r("dec.tgt"), r("dec.memory"), tgt_is_causal=true), r("dec_pre.out"), rtol=1e-4, atol=1e-5)
}

test "Transformer layers train: dropout in training mode, gradients reach every parameter" {
  manual_seed(4)
  let e = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.1, batch_first=true)
  let x = randn([2, 5, 8])
  let kpm = tensor([[false, false, false, true, true], [false, false, false, false, false]])
  let y = e(x, src_key_padding_mask=kpm, is_causal=true)
  y.pow(2.0).sum().backward()
  for p in e.parameters() { expect(p.grad != none and p.grad.abs().sum().item() > 0.0) }
  # dropout is random in training and off in eval
  expect((e(x) - e(x)).abs().max().item() > 0.0)
  e.eval()
  expect_close(e(x), e(x))
}
