# Round 4 of the differential tests against PyTorch 1.13 in f64 (after
# test_layers_vs_torch2.dsl): recurrent cells batched with their states, LSTM with
# proj_size, bidirectional and batch_first given (h0, c0), dropout between layers in
# eval; scaled_dot_product_attention (newer than PyTorch 1.13: the generator computes
# its definition in torch ops) with is_causal on square and rectangular scores, bool
# and float masks broadcast from [L, S], a scale, 3-D inputs; MultiheadAttention with
# batch_first, a float mask and need_weights=false, per-head weights with add_bias_kv;
# a pre-norm TransformerDecoder stack on an unbatched input, a batch_first
# TransformerEncoder with a float mask and a batch_first Transformer. Each case loads
# tests/stdlib/reference/vs_torch4.safetensors (written by
# tests/stdlib/reference/make_vs_torch4.py, seq_cases) and compares outputs and the
# gradients of sum(y0 * g) for every input and parameter.
import nn
import "vs_torch2_check.inc" as vt

let ref = load("tests/stdlib/reference/vs_torch4.safetensors")

fn check(name, m, n, run) = vt.check_in(ref, name, m, n, run)

# (y, h) or (y, (h, c)) as [every tensor flattened into one, y], as flat in the generator.
fn flat(res) {
  let (y, s) = res
  let parts = list(s) if type(s) == "tuple" else [s]
  return [cat([y.reshape(-1)] + [p.reshape(-1) for p in parts]), y]
}

test "cells batched with their states: relu RNNCell, LSTMCell, GRUCell without bias" {
  check("rnncell_relu_h", nn.RNNCell(3, 4, nonlinearity="relu"), 2, fn(m, xs) = [m(xs[0], xs[1])])
  check("lstmcell_batched_hc", nn.LSTMCell(3, 4), 3, fn(m, xs) = [cat(list(m(xs[0], (xs[1], xs[2]))), 1)])
  check("grucell_batched_nobias_h", nn.GRUCell(3, 4, bias=false), 2, fn(m, xs) = [m(xs[0], xs[1])])
}

test "LSTM proj_size bidirectional batch_first with (h0, c0); dropout between layers in eval" {
  check("lstm_proj_bi_bf_hc", nn.LSTM(3, 5, num_layers=2, proj_size=2, bidirectional=true, batch_first=true), 3,
        fn(m, xs) = flat(m(xs[0], (xs[1], xs[2]))))
  let g = nn.GRU(3, 4, num_layers=3, dropout=0.5)
  g.eval()
  check("gru_dropout_eval", g, 2, fn(m, xs) = [flat(m(xs[0], xs[1]))[0]])
  let l = nn.LSTM(3, 4, num_layers=2, dropout=0.3, bidirectional=true)
  l.eval()
  check("lstm_dropout_eval_unbatched", l, 1, fn(m, xs) = flat(m(xs[0])))
}

test "scaled_dot_product_attention: is_causal on rectangular and square scores" {
  check("sdpa_causal_rect", none, 3, fn(m, xs) = [scaled_dot_product_attention(xs[0], xs[1], xs[2], is_causal=true)])
  check("sdpa_causal_square", none, 3, fn(m, xs) = [scaled_dot_product_attention(xs[0], xs[1], xs[2], is_causal=true)])
}

test "scaled_dot_product_attention: bool and float masks broadcast from [L, S], a scale, 3-D inputs" {
  let mask = ref["sdpa_bool_mask"]
  check("sdpa_bool_bcast", none, 3, fn(m, xs) = [scaled_dot_product_attention(xs[0], xs[1], xs[2], attn_mask=mask)])
  check("sdpa_float_bcast_scale", none, 4, fn(m, xs) = [scaled_dot_product_attention(xs[0], xs[1], xs[2],
                                                                                     attn_mask=xs[3], scale=0.3)])
  check("sdpa_3d_float_head_mask", none, 4, fn(m, xs) = [scaled_dot_product_attention(xs[0], xs[1], xs[2],
                                                                                      attn_mask=xs[3])])
}

test "MultiheadAttention: batch_first with a float mask and need_weights=false; per-head weights with add_bias_kv" {
  check("mha_bf_float_mask_no_weights", nn.MultiheadAttention(6, 3, batch_first=true), 3,
        fn(m, xs) = [m(xs[0], xs[1], xs[1], attn_mask=xs[2], need_weights=false)[0]])
  check("mha_weights_per_head_bias_kv", nn.MultiheadAttention(6, 2, add_bias_kv=true, batch_first=true), 3,
        fn(m, xs) = list(m(xs[0], xs[1], xs[2], average_attn_weights=false)))
}

test "transformer stacks: pre-norm decoder unbatched with a norm, batch_first encoder with a float mask, Transformer" {
  let causal = ref["causal4"]
  check("decoder_stack_norm_first_unbatched", nn.TransformerDecoder(
    nn.TransformerDecoderLayer(6, 2, 10, dropout=0.0, norm_first=true, activation="gelu"), 3,
    norm=nn.LayerNorm(6, eps=1e-4)), 2, fn(m, xs) = [m(xs[0], xs[1], tgt_mask=causal)])
  check("encoder_stack_bf_float_mask", nn.TransformerEncoder(
    nn.TransformerEncoderLayer(6, 3, 8, dropout=0.0, batch_first=true), 2), 2, fn(m, xs) = [m(xs[0], mask=xs[1])])
  check("transformer_bf_tgt_mask", nn.Transformer(6, 2, 1, 2, 8, dropout=0.0, batch_first=true), 2,
        fn(m, xs) = [m(xs[0], xs[1], tgt_mask=causal)])
}

# A query whose keys are all masked attends to nothing: 0, as PyTorch >= 2.5's math
# backend (1.13's softmax would give NaN; the generator says how it computes it).
test "scaled_dot_product_attention with a bool mask that hides every key from one query" {
  let mask = ref["sdpa_masked_row_mask"]
  check("sdpa_masked_row", none, 3, fn(m, xs) = [scaled_dot_product_attention(xs[0], xs[1], xs[2], attn_mask=mask)])
}
