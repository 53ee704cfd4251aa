# Round 6 against PyTorch 1.13, attention layers with their options crossed:
# MultiheadAttention with batch_first, kdim/vdim, add_bias_kv, add_zero_attn,
# bias=false, need_weights and average_attn_weights, attn_mask bool and float in 2-D and
# 3-D, key_padding_mask bool and float (a float one beside a float attn_mask is added
# to it, as PyTorch 2's _canonical_mask: 1.13 refuses the pair, the generator adds them
# itself), an unbatched input; TransformerEncoderLayer / DecoderLayer post- and pre-norm
# with "relu", "gelu" and a callable activation, layer_norm_eps, batch_first and every
# mask; a TransformerEncoder with a final LayerNorm without affine; nn.Transformer with
# all six masks, a TransformerDecoder with a final norm, a layer and a function as
# activation; scaled_dot_product_attention (the generator computes its definition) with
# masks broadcast over batch and heads, -inf entries, tall causal scores and 2-D
# inputs; the gradients of MultiheadAttention's float masks; layers made with their
# required arguments only (PyTorch's defaults). Each case loads
# tests/stdlib/reference/layers_vs_torch6.safetensors (written by
# tests/stdlib/reference/make_layers_vs_torch6.py, attention_cases and stack_cases,
# under the same name) and compares the output and attention weights (flattened into
# one) and the gradients of sum(y0 * g) for the query, key, value and every parameter.
import nn
import "vs_torch2_check.inc" as vt

let ref = load("tests/stdlib/reference/layers_vs_torch6.safetensors")
fn check(name, m, n, run) = vt.check_in(ref, name, m, n, run)
fn flat(ts) = cat([t.reshape(-1) for t in ts if t != none])
fn mask(name) = ref["mask." + name]

# The generator's mha_combos: (name, constructor kwargs, call kwargs naming masks).
let mha_combos = [
  ["mha_plain", {}, {}],
  ["mha_bf", {"batch_first": true}, {}],
  ["mha_kdim_vdim", {"kdim": 4, "vdim": 5}, {}],
  ["mha_kdim_vdim_bf_nobias", {"kdim": 4, "vdim": 5, "batch_first": true, "bias": false}, {}],
  ["mha_bias_kv", {"add_bias_kv": true}, {}],
  ["mha_zero_attn", {"add_zero_attn": true}, {}],
  ["mha_bias_kv_zero_attn_kdim", {"add_bias_kv": true, "add_zero_attn": true, "kdim": 4, "vdim": 5}, {}],
  ["mha_nobias", {"bias": false}, {}],
  ["mha_per_head", {}, {"average_attn_weights": false}],
  ["mha_no_weights", {}, {"need_weights": false}],
  ["mha_bool_mask2d", {}, {"attn_mask": "bool2d"}],
  ["mha_float_mask2d", {}, {"attn_mask": "float2d"}],
  ["mha_bool_mask3d", {}, {"attn_mask": "bool3d"}],
  ["mha_float_mask3d_per_head", {}, {"attn_mask": "float3d", "average_attn_weights": false}],
  ["mha_bool_kpm", {}, {"key_padding_mask": "bool_kpm"}],
  ["mha_float_kpm", {}, {"key_padding_mask": "float_kpm"}],
  ["mha_bool_both", {"batch_first": true}, {"attn_mask": "bool2d", "key_padding_mask": "bool_kpm"}],
  ["mha_float_both", {}, {"attn_mask": "float3d", "key_padding_mask": "float_kpm"}],
  ["mha_masks_bias_kv_zero_attn", {"add_bias_kv": true, "add_zero_attn": true},
   {"attn_mask": "bool3d", "key_padding_mask": "bool_kpm"}],
  ["mha_float_masks_zero_attn", {"add_zero_attn": true}, {"attn_mask": "float2d", "key_padding_mask": "float_kpm"}],
]

fn make_mha(kw) = nn.MultiheadAttention(6, 2, bias=kw.get("bias", true), add_bias_kv=kw.get("add_bias_kv", false),
                                        add_zero_attn=kw.get("add_zero_attn", false), kdim=kw.get("kdim"),
                                        vdim=kw.get("vdim"), batch_first=kw.get("batch_first", false))

fn mask_arg(call, key) = mask(call[key]) if key in call else none

fn run_mha(m, xs, call) = m(xs[0], xs[1], xs[2], attn_mask=mask_arg(call, "attn_mask"),
                            key_padding_mask=mask_arg(call, "key_padding_mask"),
                            need_weights=call.get("need_weights", true),
                            average_attn_weights=call.get("average_attn_weights", true))

test "MultiheadAttention: batch_first, kdim/vdim, bias_kv, zero_attn, bias, weights, every mask" {
  for (name, kw, call) in mha_combos {
    check(name, make_mha(kw), 3, fn(m, xs) = [flat(list(run_mha(m, xs, call)))])
  }
}

test "MultiheadAttention on an unbatched input with a bool mask, a 1-D key_padding_mask and add_bias_kv" {
  check("mha_unbatched", nn.MultiheadAttention(6, 3, add_bias_kv=true), 3,
        fn(m, xs) = [flat(list(m(xs[0], xs[1], xs[2], attn_mask=mask("bool2d"), key_padding_mask=mask("bool_kpm")[1],
                                 average_attn_weights=false)))])
}

fn swish(x) = x * sigmoid(x)

test "TransformerEncoderLayer / DecoderLayer: norm_first x relu/gelu/callable x batch_first, eps and every mask" {
  let tgt_kpm = tensor([[false, false, true], [false, false, false]])
  for norm_first in [false, true] {
    for act in ["relu", "gelu", "swish"] {
      for bf in [false, true] {
        let a = swish if act == "swish" else act
        let tag = ("_pre" if norm_first else "_post") + "_" + act + ("_bf" if bf else "")
        let enc = nn.TransformerEncoderLayer(6, 2, 8, dropout=0.0, activation=a, layer_norm_eps=1e-3,
                                             batch_first=bf, norm_first=norm_first)
        check("enc" + tag, enc, 1, fn(m, xs) = [m(xs[0], src_mask=mask("src_float"),
                                                  src_key_padding_mask=mask("bool_kpm"))])
        let dec = nn.TransformerDecoderLayer(6, 2, 8, dropout=0.0, activation=a, layer_norm_eps=1e-3,
                                             batch_first=bf, norm_first=norm_first)
        check("dec" + tag, dec, 2, fn(m, xs) = [m(xs[0], xs[1], tgt_mask=mask("tgt_causal"), memory_mask=mask("bool2d"),
                                                  tgt_key_padding_mask=tgt_kpm,
                                                  memory_key_padding_mask=mask("bool_kpm"))])
      }
    }
  }
}

test "TransformerEncoder of pre-norm layers with a final LayerNorm without affine, and masks" {
  let stack = nn.TransformerEncoder(nn.TransformerEncoderLayer(6, 2, 8, dropout=0.0, norm_first=true), 2,
                                    norm=nn.LayerNorm(6, eps=1e-4, elementwise_affine=false))
  check("enc_stack_final_norm", stack, 1, fn(m, xs) = [m(xs[0], mask=mask("src_float"),
                                                         src_key_padding_mask=mask("bool_kpm"))])
}

test "nn.Transformer with all six masks; a TransformerDecoder with a final norm" {
  let tgt_kpm = tensor([[false, false, true], [false, false, false]])
  let full = nn.Transformer(6, 2, 2, 2, 8, dropout=0.0, activation="gelu", layer_norm_eps=1e-3, batch_first=true,
                            norm_first=true)
  check("transformer_all_masks", full, 2, fn(m, xs) = [m(xs[0], xs[1], src_mask=mask("src_float"),
        tgt_mask=mask("tgt_causal"), memory_mask=mask("bool2d"), src_key_padding_mask=mask("bool_kpm"),
        tgt_key_padding_mask=tgt_kpm, memory_key_padding_mask=mask("bool_kpm"))])
  let dec = nn.TransformerDecoder(nn.TransformerDecoderLayer(6, 2, 8, dropout=0.0), 2, norm=nn.LayerNorm(6, eps=1e-3))
  check("dec_stack_final_norm", dec, 2, fn(m, xs) = [m(xs[0], xs[1], tgt_mask=mask("tgt_causal"),
                                                       memory_key_padding_mask=mask("bool_kpm"))])
}

test "a layer and a function as the activation of a TransformerEncoderLayer; unbatched" {
  let enc = nn.TransformerEncoderLayer(6, 2, 8, dropout=0.0, activation=nn.GELU(approximate="tanh"))
  check("enc_activation_module", enc, 1, fn(m, xs) = [m(xs[0], src_key_padding_mask=mask("bool_kpm"))])
  let pre = nn.TransformerEncoderLayer(6, 2, 8, dropout=0.0, activation=silu, norm_first=true)
  check("enc_activation_fn_unbatched", pre, 1, fn(m, xs) = [m(xs[0], src_mask=mask("src_float"))])
}

fn sdpa(xs, attn_mask=none, is_causal=false, scale=none) = scaled_dot_product_attention(
    xs[0], xs[1], xs[2], attn_mask=attn_mask, dropout_p=0.0, is_causal=is_causal, scale=scale)

test "scaled_dot_product_attention: masks broadcast over batch and heads, -inf entries, tall causal, 2-D" {
  check("sdpa_bool_b1", none, 3, fn(m, xs) = [sdpa(xs, attn_mask=ref["sdpa.bool_b1"])])
  check("sdpa_float_1h", none, 4, fn(m, xs) = [sdpa(xs, attn_mask=xs[3])])
  check("sdpa_float_row", none, 4, fn(m, xs) = [sdpa(xs, attn_mask=xs[3])])
  check("sdpa_float_neg_inf", none, 4, fn(m, xs) = [sdpa(xs, attn_mask=xs[3])])
  check("sdpa_causal_tall", none, 3, fn(m, xs) = [sdpa(xs, is_causal=true)])
  check("sdpa_2d", none, 3, fn(m, xs) = [sdpa(xs, scale=0.7)])
}

test "MultiheadAttention's float attn_mask and key_padding_mask get their gradients" {
  check("mha_float_mask_grad", nn.MultiheadAttention(6, 2), 3,
        fn(m, xs) = [flat(list(m(xs[0], xs[1], xs[1], attn_mask=xs[2])))])
  check("mha_float_kpm_grad", nn.MultiheadAttention(6, 2, batch_first=true), 3,
        fn(m, xs) = [flat(list(m(xs[0], xs[1], xs[1], key_padding_mask=xs[2])))])
}

test "layers made with their required arguments only: PyTorch's defaults" {
  let tl = nn.TransformerEncoderLayer(6, 2, 8)
  tl.eval()
  let cases = [["default_layernorm", nn.LayerNorm(5)], ["default_groupnorm", nn.GroupNorm(2, 4)],
               ["default_lrn", nn.LocalResponseNorm(3)], ["default_instancenorm", nn.InstanceNorm1d(3)],
               ["default_batchnorm", nn.BatchNorm1d(3)], ["default_upsample", nn.Upsample(scale_factor=2)],
               ["default_upsample_bilinear", nn.Upsample(scale_factor=1.5, mode="bilinear")],
               ["default_avgpool", nn.AvgPool2d(2)], ["default_lppool", nn.LPPool1d(2, 3)],
               ["default_unfold", nn.Unfold(2)], ["default_transformer_layer", tl],
               ["default_embedding_bag", nn.EmbeddingBag(7, 3)], ["default_rnn", nn.RNN(3, 4)],
               ["default_conv_transpose", nn.ConvTranspose2d(2, 3, 3)]]
  for (name, layer) in cases {
    check(name, layer, 1, fn(m, xs) = [(fn(y) = flat(list(y)) if type(y) == "tuple" else y)(m(xs[0]))])
  }
  check("default_mha", nn.MultiheadAttention(6, 2), 2, fn(m, xs) = [flat(list(m(xs[0], xs[1], xs[1])))])
}
