# A differential round against PyTorch 1.13 in f64: the recurrent layers, attention and
# the transformer layers on the argument combinations the other reference tests leave
# out (3 layers, no bias, unbatched inputs, proj_size, kdim/vdim, add_bias_kv,
# add_zero_attn, float and 3-D masks, norm_first, callable activations). Every case
# loads PyTorch's state_dict into the f64 layer, compares its outputs, then the
# gradients of sum(y0 * g) for every floating input and parameter, with
# tests/stdlib/reference/layers_vs_torch2.safetensors (written by
# tests/stdlib/reference/make_layers_vs_torch2.py, which names the torch call of
# each case). The resampling, convolution, norm and pool cases are in
# test_resample_vs_torch2.dsl.
import nn
import "vs_torch2_check.inc" as vt

let ref = vt.ref

fn check(name, m, n, run) = vt.check(name, m, n, run)

# (y, h) or (y, (h, c)) as [every tensor flattened into one, y, h(, c)], as flat_all
# in the generator: y0's gradient then reaches the final states too.
fn flat_all(res) {
  let (y, s) = res
  let parts = [y] + (list(s) if type(s) == "tuple" else [s])
  return [cat([p.reshape(-1) for p in parts])] + parts
}

fn run_x(m, xs) = flat_all(m(xs[0]))
fn run_h(m, xs) = flat_all(m(xs[0], xs[1]))
fn run_hc(m, xs) = flat_all(m(xs[0], (xs[1], xs[2])))

test "RNN relu, 3 layers, bidirectional, batch_first, given h0" {
  check("rnn_relu_3l_bi_bf_h0", nn.RNN(3, 4, num_layers=3, nonlinearity="relu", bidirectional=true,
                                       batch_first=true), 2, run_h)
}

test "RNN tanh without bias on an unbatched input with h0" {
  check("rnn_tanh_nobias_unbatched_h0", nn.RNN(3, 4, num_layers=2, bias=false), 2, run_h)
}

test "RNN tanh bidirectional without a state" {
  check("rnn_tanh_bi_nostate", nn.RNN(3, 4, num_layers=2, bidirectional=true), 1, run_x)
}

test "LSTM 3 layers, bidirectional, no bias" {
  check("lstm_3l_bi_nobias", nn.LSTM(3, 4, num_layers=3, bias=false, bidirectional=true), 1, run_x)
}

test "LSTM batch_first on an unbatched input with (h0, c0)" {
  check("lstm_unbatched_bf_hc", nn.LSTM(3, 4, num_layers=2, batch_first=true), 3, run_hc)
}

test "LSTM proj_size: unbatched bidirectional, and batch_first without bias with states" {
  check("lstm_proj_unbatched", nn.LSTM(3, 5, num_layers=2, proj_size=2, bidirectional=true), 1, run_x)
  check("lstm_proj_bf_hc", nn.LSTM(3, 5, num_layers=3, proj_size=3, batch_first=true, bias=false), 3, run_hc)
}

test "GRU 3 layers, bidirectional, batch_first, h0; unbatched without bias" {
  check("gru_3l_bi_bf_h0", nn.GRU(3, 4, num_layers=3, bidirectional=true, batch_first=true), 2, run_h)
  check("gru_unbatched_bf_nobias", nn.GRU(3, 4, batch_first=true, bias=false, bidirectional=true), 1, run_x)
}

test "the cells with and without state, batched and unbatched, with and without bias" {
  check("rnncell_relu_nostate", nn.RNNCell(3, 4, nonlinearity="relu"), 1, fn(m, xs) = [m(xs[0])])
  check("rnncell_nobias_unbatched_h", nn.RNNCell(3, 4, bias=false), 2, fn(m, xs) = [m(xs[0], xs[1])])
  check("lstmcell_nobias_nostate", nn.LSTMCell(3, 4, bias=false), 1, fn(m, xs) = [cat(list(m(xs[0])))])
  check("lstmcell_unbatched_hc", nn.LSTMCell(3, 4), 3, fn(m, xs) = [cat(list(m(xs[0], (xs[1], xs[2]))))])
  check("grucell_unbatched_h", nn.GRUCell(3, 4), 2, fn(m, xs) = [m(xs[0], xs[1])])
  check("grucell_nobias_nostate", nn.GRUCell(3, 4, bias=false), 1, fn(m, xs) = [m(xs[0])])
}

# ---- MultiheadAttention: bool masks are PyTorch's (true: not attended)
test "MultiheadAttention kdim/vdim, batch_first, bool 2-D attn_mask and key_padding_mask" {
  check("mha_kdim_vdim_bf", nn.MultiheadAttention(8, 2, kdim=5, vdim=3, batch_first=true), 3,
        fn(m, xs) = list(m(xs[0], xs[1], xs[2], key_padding_mask=ref["pad_mask"], attn_mask=ref["bool_mask"])))
}

test "MultiheadAttention bias=false, float 3-D attn_mask, per-head weights" {
  check("mha_nobias_float3d", nn.MultiheadAttention(8, 2, bias=false), 4,
        fn(m, xs) = list(m(xs[0], xs[1], xs[2], attn_mask=xs[3], key_padding_mask=ref["pad_mask"],
                           average_attn_weights=false)))
}

test "MultiheadAttention float key_padding_mask is added to the scores" {
  check("mha_float_kpm", nn.MultiheadAttention(8, 2, batch_first=true), 4,
        fn(m, xs) = list(m(xs[0], xs[1], xs[2], key_padding_mask=xs[3])))
}

test "MultiheadAttention add_bias_kv and add_zero_attn with a 3-D bool mask" {
  check("mha_bias_kv_zero_attn", nn.MultiheadAttention(8, 2, add_bias_kv=true, add_zero_attn=true), 3,
        fn(m, xs) = list(m(xs[0], xs[1], xs[2], key_padding_mask=ref["pad_mask"], attn_mask=ref["bool_mask3"])))
  check("mha_bias_kv_float", nn.MultiheadAttention(8, 4, add_bias_kv=true, batch_first=true), 4,
        fn(m, xs) = list(m(xs[0], xs[1], xs[2], attn_mask=xs[3], average_attn_weights=false)))
}

test "MultiheadAttention unbatched with kdim/vdim and masks; need_weights=false" {
  check("mha_unbatched", nn.MultiheadAttention(8, 2, batch_first=true, kdim=3, vdim=5), 3,
        fn(m, xs) = list(m(xs[0], xs[1], xs[2], key_padding_mask=ref["pad_mask"][0], attn_mask=ref["bool_mask"],
                           average_attn_weights=false)))
  fn run(m, xs) {
    let (o, w) = m(xs[0], xs[0], xs[0], need_weights=false)
    expect(w == none)
    return [o]
  }
  check("mha_self_no_weights", nn.MultiheadAttention(8, 2), 1, run)
}

test "MultiheadAttention need_weights=false with masks, add_bias_kv, add_zero_attn, kdim" {
  check("mha_no_weights_masks", nn.MultiheadAttention(8, 2, add_bias_kv=true, add_zero_attn=true, kdim=5,
        batch_first=true), 3,
        fn(m, xs) = [m(xs[0], xs[1], xs[2], key_padding_mask=ref["pad_mask"], attn_mask=ref["bool_mask"],
                       need_weights=false)[0]])
  check("mha_no_weights_float", nn.MultiheadAttention(8, 2, bias=false), 3,
        fn(m, xs) = [m(xs[0], xs[1], xs[1], attn_mask=xs[2], key_padding_mask=ref["pad_mask"], need_weights=false)[0]])
}

# ---- the transformer layers and stacks
test "generate_square_subsequent_mask equals PyTorch's" {
  expect_close(nn.Transformer.generate_square_subsequent_mask(5, dtype=f64), ref["causal5"], rtol=0, atol=0)
  expect_close(nn.generate_square_subsequent_mask(7, dtype=f64), ref["causal7"], rtol=0, atol=0)
}

test "TransformerEncoderLayer norm_first, gelu, batch_first, layer_norm_eps, both masks" {
  check("enc_layer_norm_first_gelu", nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, activation="gelu",
        norm_first=true, batch_first=true, layer_norm_eps=1e-3), 1,
        fn(m, xs) = [m(xs[0], src_mask=ref["causal5"], src_key_padding_mask=ref["pad5"])])
}

test "TransformerEncoderLayer with a callable activation and a float src_mask" {
  check("enc_layer_callable", nn.TransformerEncoderLayer(8, 4, 12, dropout=0.0, activation=tanh), 2,
        fn(m, xs) = [m(xs[0], src_mask=xs[1])])
}

test "TransformerDecoderLayer norm_first, every mask, callable gelu" {
  check("dec_layer_masks", nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, norm_first=true, activation=gelu,
        layer_norm_eps=1e-4), 3,
        fn(m, xs) = [m(xs[0], xs[1], tgt_mask=ref["causal5"], memory_mask=xs[2], tgt_key_padding_mask=ref["pad5"],
                       memory_key_padding_mask=ref["pad7"])])
}

test "TransformerEncoder and TransformerDecoder stacks with a final norm and masks" {
  check("encoder_stack_norm", nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, norm_first=true),
        2, norm=nn.LayerNorm(8, eps=1e-3)), 1,
        fn(m, xs) = [m(xs[0], mask=ref["causal5"], src_key_padding_mask=ref["pad5"])])
  check("decoder_stack_bf", nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, batch_first=true,
        activation="gelu"), 2, norm=nn.LayerNorm(8)), 2,
        fn(m, xs) = [m(xs[0], xs[1], tgt_mask=ref["causal5"], tgt_key_padding_mask=ref["pad5"],
                       memory_key_padding_mask=ref["pad7"])])
}

test "TransformerEncoderLayer and TransformerDecoderLayer on unbatched inputs with masks" {
  check("enc_layer_unbatched", nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=true), 1,
        fn(m, xs) = [m(xs[0], src_mask=ref["causal5"], src_key_padding_mask=ref["pad5"][0])])
  check("dec_layer_unbatched", nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, norm_first=true), 2,
        fn(m, xs) = [m(xs[0], xs[1], tgt_mask=ref["causal5"], memory_key_padding_mask=ref["pad7"][1])])
}

test "Transformer norm_first, gelu, every mask" {
  check("transformer_all_masks", nn.Transformer(8, 2, 2, 1, 16, dropout=0.0, norm_first=true, activation="gelu",
        layer_norm_eps=1e-4), 3,
        fn(m, xs) = [m(xs[0], xs[1], src_mask=zeros([7, 7], dtype=f64), tgt_mask=ref["causal5"], memory_mask=xs[2],
                       src_key_padding_mask=ref["pad7"], tgt_key_padding_mask=ref["pad5"],
                       memory_key_padding_mask=ref["pad7"])])
}
