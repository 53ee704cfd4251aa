# _nn_attention: nn.MultiheadAttention, nn.TransformerEncoderLayer,
# nn.TransformerDecoderLayer, their stacks nn.TransformerEncoder and
# nn.TransformerDecoder, and nn.Transformer. nn re-exports them; import nn, not this
# module.
import math
import _nn_basic
import _nn_containers
import _nn_init

let Linear = _nn_basic.Linear
let LayerNorm = _nn_basic.LayerNorm
let Dropout = _nn_basic.Dropout
let parameter = _nn_init.parameter
let _shape = _nn_init._shape
let xavier_uniform_ = _nn_init.xavier_uniform_
let xavier_normal_ = _nn_init.xavier_normal_
let zeros_ = _nn_init.zeros_
let ModuleList = _nn_containers.ModuleList

# Multi-head attention as PyTorch's nn.MultiheadAttention: its arguments, parameter
# layout (in_proj_weight [3E, E] holding the q, k, v projections stacked, in_proj_bias
# [3E], out_proj a Linear(E, E)) and init (xavier-uniform in_proj_weight, zero biases).
# A key of kdim features or a value of vdim features other than E takes separate
# projections instead, as PyTorch's: q_proj_weight [E, E], k_proj_weight [E, kdim] and
# v_proj_weight [E, vdim] (no in_proj_weight). After the projections add_bias_kv
# appends the learned key bias_k and value bias_v ([1, 1, E], xavier-normal), then
# add_zero_attn a zero key and value; every query may attend these (the masks get
# columns that allow them), so weights have S + 1 or S + 2 columns, as PyTorch's.
# Inputs are [L, B, E] ([B, L, E] with batch_first) or unbatched [L, E]; forward
# returns (output, weights): the weights [B, L, S] averaged over heads ([B, H, L, S]
# with average_attn_weights=false) when need_weights, else none. Masks as PyTorch's:
# a bool attn_mask [L, S] or [B * H, L, S] and key_padding_mask [B, S] are true where
# attention is NOT allowed; float masks are added to the scores. is_causal applies
# the causal mask (query i sees keys j <= i) on top of any other. Without
# need_weights the heads run through scaled_dot_product_attention, whose kernel
# never holds the whole score matrix; with it the weights are made explicitly.
# Inside MultiheadAttention's methods `dropout` is its constructor argument (a float,
# PyTorch's keyword), which hid the function: dropout=0.1 in training with need_weights
# (the defaults) failed with "'float' object is not callable". Named out here instead.
fn _weights_dropout(weights, p) = dropout(weights, p=p)

model MultiheadAttention(embed_dim, num_heads, dropout=0.0, bias=true, add_bias_kv=false, add_zero_attn=false,
                         kdim=none, vdim=none, batch_first=false, device=none, dtype=none) {
  "Multi-head attention as PyTorch's; forward(query, key, value) returns (output, weights). Example: nn.MultiheadAttention(512, 8, batch_first=true)"
  embed_dim = embed_dim
  kdim = kdim if kdim != none else embed_dim
  vdim = vdim if vdim != none else embed_dim
  num_heads = num_heads
  dropout = dropout
  # as nn.Dropout's p, at construction: a NaN skipped the dropout (p > 0 is false) silently
  let _p_checked = _nn_basic._check_p("MultiheadAttention: dropout", dropout)
  add_zero_attn = add_zero_attn
  batch_first = batch_first
  training = true
  let _h = assert(type(embed_dim) == "int" and embed_dim > 0 and type(num_heads) == "int" and num_heads > 0,
                  f"MultiheadAttention: embed_dim and num_heads must be ints > 0, got embed_dim={repr(embed_dim)} and num_heads={repr(num_heads)}")
  head_dim = embed_dim // num_heads
  let _c = assert(embed_dim % num_heads == 0,
                  f"MultiheadAttention: embed_dim ({embed_dim}) must be divisible by num_heads ({num_heads})")
  let same = self.kdim == embed_dim and self.vdim == embed_dim
  in_proj_weight = xavier_uniform_(parameter([3 * embed_dim, embed_dim])) if same else none
  q_proj_weight = none if same else xavier_uniform_(parameter([embed_dim, embed_dim]))
  k_proj_weight = none if same else xavier_uniform_(parameter([embed_dim, self.kdim]))
  v_proj_weight = none if same else xavier_uniform_(parameter([embed_dim, self.vdim]))
  in_proj_bias = parameter([3 * embed_dim]) if bias else none
  bias_k = xavier_normal_(parameter([1, 1, embed_dim])) if add_bias_kv else none
  bias_v = xavier_normal_(parameter([1, 1, embed_dim])) if add_bias_kv else none
  out_proj = Linear(embed_dim, embed_dim, bias=bias)
  let _b = zeros_(self.out_proj.bias) if bias else none
  let _fk = _nn_init._factory(self, device, dtype)
  # The keys (and values) appended after the projected ones: bias_k and a zero key.
  extra_keys = (1 if add_bias_kv else 0) + (1 if add_zero_attn else 0)
  # x [B, T, features] projected for q (i = 0), k (1) or v (2): by rows [i*E, (i+1)*E)
  # of in_proj or by its own weight, keys and values followed by the extra ones;
  # split into heads [B, H, T', D].
  _project(x, i) {
    let e = self.embed_dim
    let b = self.in_proj_bias[i * e:(i + 1) * e] if self.in_proj_bias != none else none
    let w = [self.q_proj_weight, self.k_proj_weight, self.v_proj_weight][i]
    if self.in_proj_weight != none { w = self.in_proj_weight[i * e:(i + 1) * e] }
    let y = linear(x, w, b)
    let B = x.shape[0]
    if i > 0 and self.bias_k != none { y = cat([y, [self.bias_k, self.bias_v][i - 1].expand([B, 1, e])], dim=1) }
    if i > 0 and self.add_zero_attn { y = cat([y, zeros([B, 1, e], dtype=y.dtype)], dim=1) }
    return y.reshape([B, y.shape[1], self.num_heads, self.head_dim]).transpose(1, 2)
  }
  forward(query, key, value, key_padding_mask=none, need_weights=true, attn_mask=none,
          average_attn_weights=true, is_causal=false) {
    _check_inputs(query, key, value, self.batch_first)
    _check_features(query, "query", "embed_dim", self.embed_dim)
    _check_features(key, "key", "kdim", self.kdim)
    _check_features(value, "value", "vdim", self.vdim)
    let unbatched = query.dim() == 2
    let q_in = _batch_major(query, unbatched, self.batch_first)
    let k_in = _batch_major(key, unbatched, self.batch_first)
    let v_in = _batch_major(value, unbatched, self.batch_first)
    let shape = _shape(q_in)
    let B = shape[0]
    let L = shape[1]
    let S = _shape(k_in)[1]
    let kpm = _padding_mask(key_padding_mask, unbatched, B, S)
    let mask = _attention_mask(attn_mask, kpm, is_causal, B, self.num_heads, L, S)
    if mask != none and self.extra_keys > 0 { mask = _allow_extra_keys(mask, self.extra_keys) }
    # A float mask in the query's dtype, as PyTorch's (an f64 mask of an f32 query was
    # refused by scaled_dot_product_attention but promoted the scores with need_weights).
    if mask != none and str(mask.dtype) != "bool" and mask.dtype != q_in.dtype { mask = mask.to(q_in.dtype) }
    let q = self._project(q_in, 0)
    let k = self._project(k_in, 1)
    let v = self._project(v_in, 2)
    let p = self.dropout if self.training else 0.0
    let weights = none
    let o = none
    if need_weights {
      let scores = q @ k.transpose(2, 3) * (1.0 / math.sqrt(self.head_dim))
      if mask != none {
        scores = where(mask, scores, float("-inf")) if str(mask.dtype) == "bool" else scores + mask
      }
      weights = softmax(scores, dim=-1)
      if p > 0.0 { weights = _weights_dropout(weights, p) }
      o = weights @ v
      weights = weights.mean(dim=1) if average_attn_weights else weights
      if unbatched { weights = weights[0] }
    } else {
      o = scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=p)
      # scaled_dot_product_attention gives a query that sees no key 0 (PyTorch 2.5's);
      # PyTorch 1.13's module gives NaN there whatever need_weights, as the branch above.
      if mask != none { o = where(_no_key(mask), float("nan"), o) }
    }
    let out = self.out_proj(o.transpose(1, 2).reshape([B, L, self.embed_dim]))
    return (_batch_restore(out, unbatched, self.batch_first), weights)
  }
}

# The ranks and sizes query, key and value must share, as PyTorch's asserts: query
# [L, B, E] or unbatched [L, E], key and value of its rank, one batch, one length S.
fn _check_inputs(query, key, value, batch_first) {
  let names = ["query", "key", "value"]
  let xs = [query, key, value]
  for i in range(3) {
    assert(type(xs[i]) == "tensor", f"MultiheadAttention: expected {names[i]} as a tensor, got {type(xs[i])}")
  }
  assert(query.ndim == 2 or query.ndim == 3,
         f"MultiheadAttention: expected query as a 3-D (batched) or 2-D (unbatched) tensor, got shape {list(query.shape)}")
  assert(key.ndim == query.ndim and value.ndim == query.ndim,
         f"MultiheadAttention: key and value must have query's {query.ndim} dims, got key of shape {list(key.shape)} and value of shape {list(value.shape)}")
  let t = 1 if batch_first and query.ndim == 3 else 0  # the dim of the length
  assert(key.shape[t] == value.shape[t],
         f"MultiheadAttention: key and value must have one length, got key of shape {list(key.shape)} and value of shape {list(value.shape)}")
  if query.ndim == 3 {
    let b = 1 - t
    assert(key.shape[b] == query.shape[b] and value.shape[b] == query.shape[b],
           f"MultiheadAttention: query, key and value must have one batch size (dim {b}), got shapes {list(query.shape)}, {list(key.shape)} and {list(value.shape)}")
  }
}

# key_padding_mask as [B, S]: an unbatched input's is [S].
fn _padding_mask(kpm, unbatched, B, S) {
  if kpm == none { return none }
  assert(type(kpm) == "tensor", f"MultiheadAttention: expected key_padding_mask as a tensor, got {type(kpm)}")
  if not unbatched { return kpm }
  assert(list(kpm.shape) == [S],
         f"MultiheadAttention: key_padding_mask of an unbatched input must have shape [S] = [{S}], got {list(kpm.shape)}")
  return kpm.unsqueeze(0)
}

# Where a query sees no key ([..., L, 1]): every bool entry false, or every float one -inf.
fn _no_key(mask) {
  let seen = mask if str(mask.dtype) == "bool" else mask != float("-inf")
  return seen.any(dim=-1, keepdim=true) == false
}

fn _check_features(x, name, arg, n) {
  assert(x.shape[x.dim() - 1] == n,
         f"MultiheadAttention: {name} of shape {list(x.shape)} must have {arg} = {n} features in its last dim")
}

# [B, T, E] from an attention input: [T, B, E] unless batch_first, [T, E] unbatched.
fn _batch_major(x, unbatched, batch_first) {
  if unbatched { return x.unsqueeze(0) }
  return x if batch_first else x.transpose(0, 1)
}
fn _batch_restore(x, unbatched, batch_first) {
  if unbatched { return x[0] }
  return x if batch_first else x.transpose(0, 1)
}

# One mask for scaled_dot_product_attention's convention (bool: true attends; float:
# added), broadcasting to [B, H, L, S], from PyTorch MultiheadAttention's masks (bool:
# true is masked out) and a causal flag; none when there is none.
# A mask's dtype as PyTorch takes it: bool (true is masked out) or a float (added to
# the scores); a u8 attn_mask is PyTorch's deprecated bool. Any other dtype was added
# to the scores as numbers (an i64 mask, a u8 one whose 1s should have masked).
fn _mask_dtype(m, name, byte_ok) {
  assert(type(m) == "tensor", f"MultiheadAttention: expected {name} as a tensor, got {type(m)}")
  let dt = str(m.dtype)
  if byte_ok and dt == "u8" { return m != 0 }
  let kinds = "bool, u8 or floating" if byte_ok else "bool or floating"
  assert(dt == "bool" or m.dtype.is_floating_point, f"MultiheadAttention: {name} must be a {kinds} tensor, got {dt}")
  return m
}

fn _attention_mask(attn_mask, key_padding_mask, is_causal, B, H, L, S) {
  let masks = []
  if attn_mask != none {
    let m = _mask_dtype(attn_mask, "attn_mask", true)
    if m.dim() == 3 {
      assert(list(m.shape) == [B * H, L, S],
             f"MultiheadAttention: a 3-D attn_mask must have shape [batch * heads, L, S] = [{B * H}, {L}, {S}], got {list(m.shape)}")
      m = m.reshape([B, H, L, S])
    } else {
      assert(m.dim() == 2 and list(m.shape) == [L, S],
             f"MultiheadAttention: a 2-D attn_mask must have shape [L, S] = [{L}, {S}], got {list(m.shape)}")
    }
    masks.append(_allowed(m))
  }
  if key_padding_mask != none {
    assert(list(key_padding_mask.shape) == [B, S],
           f"MultiheadAttention: key_padding_mask must have shape [batch, S] = [{B}, {S}], got {list(key_padding_mask.shape)}")
    masks.append(_allowed(_mask_dtype(key_padding_mask, "key_padding_mask", false).reshape([B, 1, 1, S])))
  }
  if is_causal { masks.append(arange(S).reshape([1, S]) <= arange(L).reshape([L, 1])) }
  if len(masks) == 0 { return none }
  let out = masks[0]
  for m in masks[1:] { out = _merge_masks(out, m) }
  return out
}
# mask with n more key columns that every query may attend (bias_k, the zero key).
fn _allow_extra_keys(mask, n) = pad(mask, [0, n], value=1.0 if str(mask.dtype) == "bool" else 0.0)
# PyTorch's "true is masked out" as "true attends"; a float mask stays additive.
fn _allowed(m) = m == false if str(m.dtype) == "bool" else m
fn _additive(m) = where(m, 0.0, float("-inf")) if str(m.dtype) == "bool" else m
fn _merge_masks(a, b) {
  if str(a.dtype) == "bool" and str(b.dtype) == "bool" { return where(a, b, a) }
  return _additive(a) + _additive(b)
}

# The layers of nn.Transformer, as PyTorch's TransformerEncoderLayer and
# TransformerDecoderLayer: arguments, sublayer names (self_attn, multihead_attn,
# linear1, linear2, norm1..3, dropout1..3) and so state_dict keys; norm_first puts
# each LayerNorm before its sublayer; activation is "relu", "gelu" or a function.
fn _activation(a) {
  if a == "relu" { return relu }
  if a == "gelu" { return gelu }
  assert(type(a) != "str", f"Transformer layers: activation must be \"relu\", \"gelu\" or a function, got \"{a}\"")
  return a
}

model TransformerEncoderLayer(d_model, nhead, dim_feedforward=2048, dropout=0.1, activation="relu",
                              layer_norm_eps=1e-5, batch_first=false, norm_first=false, bias=true, device=none,
                              dtype=none) {
  "Self-attention then a feed-forward block, each with residual and layer norm. Example: nn.TransformerEncoderLayer(512, 8, batch_first=true)"
  let _fk = _nn_init._check_factory("TransformerEncoderLayer", device, dtype)
  self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first, device=device,
                                 dtype=dtype)
  linear1 = Linear(d_model, dim_feedforward, bias=bias, device=device, dtype=dtype)
  dropout = Dropout(dropout)
  linear2 = Linear(dim_feedforward, d_model, bias=bias, device=device, dtype=dtype)
  norm_first = norm_first
  norm1 = LayerNorm(d_model, eps=layer_norm_eps, device=device, dtype=dtype)
  norm2 = LayerNorm(d_model, eps=layer_norm_eps, device=device, dtype=dtype)
  dropout1 = Dropout(dropout)
  dropout2 = Dropout(dropout)
  activation = _activation(activation)
  _sa(x, mask, kpm, causal) {
    let r = self.self_attn(x, x, x, attn_mask=mask, key_padding_mask=kpm, need_weights=false, is_causal=causal)
    return self.dropout1(r[0])
  }
  _ff(x) = self.dropout2(self.linear2(self.dropout(self.activation(self.linear1(x)))))
  forward(src, src_mask=none, src_key_padding_mask=none, is_causal=false) {
    let x = src
    if self.norm_first {
      x = x + self._sa(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
      return x + self._ff(self.norm2(x))
    }
    x = self.norm1(x + self._sa(x, src_mask, src_key_padding_mask, is_causal))
    return self.norm2(x + self._ff(x))
  }
}

model TransformerDecoderLayer(d_model, nhead, dim_feedforward=2048, dropout=0.1, activation="relu",
                              layer_norm_eps=1e-5, batch_first=false, norm_first=false, bias=true, device=none,
                              dtype=none) {
  "Self-attention, attention over the encoder's memory, then a feed-forward block. Example: nn.TransformerDecoderLayer(512, 8)"
  let _fk = _nn_init._check_factory("TransformerDecoderLayer", device, dtype)
  self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first, device=device,
                                 dtype=dtype)
  multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first,
                                      device=device, dtype=dtype)
  linear1 = Linear(d_model, dim_feedforward, bias=bias, device=device, dtype=dtype)
  dropout = Dropout(dropout)
  linear2 = Linear(dim_feedforward, d_model, bias=bias, device=device, dtype=dtype)
  norm_first = norm_first
  norm1 = LayerNorm(d_model, eps=layer_norm_eps, device=device, dtype=dtype)
  norm2 = LayerNorm(d_model, eps=layer_norm_eps, device=device, dtype=dtype)
  norm3 = LayerNorm(d_model, eps=layer_norm_eps, device=device, dtype=dtype)
  dropout1 = Dropout(dropout)
  dropout2 = Dropout(dropout)
  dropout3 = Dropout(dropout)
  activation = _activation(activation)
  _sa(x, mask, kpm, causal) {
    let r = self.self_attn(x, x, x, attn_mask=mask, key_padding_mask=kpm, need_weights=false, is_causal=causal)
    return self.dropout1(r[0])
  }
  _mha(x, mem, mask, kpm, causal) {
    let r = self.multihead_attn(x, mem, mem, attn_mask=mask, key_padding_mask=kpm, need_weights=false,
                                is_causal=causal)
    return self.dropout2(r[0])
  }
  _ff(x) = self.dropout3(self.linear2(self.dropout(self.activation(self.linear1(x)))))
  forward(tgt, memory, tgt_mask=none, memory_mask=none, tgt_key_padding_mask=none, memory_key_padding_mask=none,
          tgt_is_causal=false, memory_is_causal=false) {
    let x = tgt
    if self.norm_first {
      x = x + self._sa(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
      x = x + self._mha(self.norm2(x), memory, memory_mask, memory_key_padding_mask, memory_is_causal)
      return x + self._ff(self.norm3(x))
    }
    x = self.norm1(x + self._sa(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
    x = self.norm2(x + self._mha(x, memory, memory_mask, memory_key_padding_mask, memory_is_causal))
    return self.norm3(x + self._ff(x))
  }
}

# ---- the stacks and the whole model ------------------------------------------------

# num_layers copies of `layer` (deep copies, each with its own parameters, as PyTorch's
# _get_clones), named layers.0, layers.1, ...
fn _clones(layer, num_layers) = ModuleList([deepcopy(layer) for _ in range(num_layers)])

# The float mask of causal attention for a sequence of sz: 0 where query i may attend
# key j (j <= i), -inf above the diagonal, as PyTorch's
# Transformer.generate_square_subsequent_mask.
fn generate_square_subsequent_mask(sz, dtype=f32) {
  "The [sz, sz] causal mask: 0 on and below the diagonal, -inf above it. Example: nn.generate_square_subsequent_mask(4)"
  return _square_subsequent_mask(sz, dtype)
}
fn _square_subsequent_mask(sz, dtype) {
  assert(type(sz) == "int" and sz >= 0, f"generate_square_subsequent_mask: sz must be an int >= 0, got {repr(sz)}")
  return triu(full([sz, sz], float("-inf"), dtype=dtype), 1)
}

# As PyTorch's nn.TransformerEncoder: num_layers copies of encoder_layer (layers.0, ...),
# then norm when given. forward(src, mask, src_key_padding_mask, is_causal) passes the
# masks to every layer.
#
# PyTorch 1.13 has a second path, which changes the output: in eval mode without
# gradients, with a src_key_padding_mask whose padding is at the end of each sequence
# and no mask, it runs the sequences as a nested tensor and pads the result back with
# zeros. The output is then 0 at padded positions (norm(0) after the norm) and only as
# long as the longest sequence. _nested_valid finds when it applies, by PyTorch's own
# conditions, and forward gives the same values.
model TransformerEncoder(encoder_layer, num_layers, norm=none, enable_nested_tensor=true, mask_check=true) {
  "A stack of num_layers copies of a TransformerEncoderLayer, then an optional norm. Example: nn.TransformerEncoder(nn.TransformerEncoderLayer(64, 4), 2)"
  layers = _clones(encoder_layer, num_layers)
  num_layers = num_layers
  norm = norm
  enable_nested_tensor = enable_nested_tensor
  mask_check = mask_check
  # The valid positions [B, S] (true: a token) when PyTorch takes its nested path, else none.
  _nested_valid(src, mask, kpm) {
    if kpm == none or mask != none or not self.enable_nested_tensor or src.dim() != 3 or is_autocast_enabled() {
      return none
    }
    let first = self.layers[0]
    if type(first) != "TransformerEncoderLayer" or first.norm_first or first.self_attn.training { return none }
    let sa = first.self_attn
    if not sa.batch_first or sa.in_proj_weight == none or sa.num_heads % 2 == 1 { return none }
    let act = first.activation
    let relu_or_gelu = act == relu or act == gelu or type(act) == "ReLU" or type(act) == "GELU"
    if not relu_or_gelu or first.norm1.eps != first.norm2.eps { return none }
    if is_grad_enabled() and (src.requires_grad or any([p.requires_grad for p in first.parameters()])) { return none }
    let given = kpm == 0 if kpm.is_floating_point() else kpm.logical_not()
    # PyTorch keeps each sequence's first (number of valid positions) tokens.
    let valid = arange(src.shape[1]).unsqueeze(0) < given.sum(1).unsqueeze(1)
    if self.mask_check and not equal(valid, given) { return none }
    return valid
  }
  forward(src, mask=none, src_key_padding_mask=none, is_causal=none) {
    let valid = self._nested_valid(src, mask, src_key_padding_mask)
    let kpm = src_key_padding_mask if valid == none else valid.logical_not()
    let x = src
    for layer in self.layers {
      x = layer(x, src_mask=mask, src_key_padding_mask=kpm, is_causal=is_causal == true)
    }
    if valid != none {
      x = where(valid.unsqueeze(-1), x, zeros_like(x))[:, :int(valid.sum(1).max())]
    }
    return self.norm(x) if self.norm != none else x
  }
}

# As PyTorch's nn.TransformerDecoder: num_layers copies of decoder_layer, then norm.
model TransformerDecoder(decoder_layer, num_layers, norm=none) {
  "A stack of num_layers copies of a TransformerDecoderLayer, then an optional norm. Example: nn.TransformerDecoder(nn.TransformerDecoderLayer(64, 4), 2)"
  layers = _clones(decoder_layer, num_layers)
  num_layers = num_layers
  norm = norm
  forward(tgt, memory, tgt_mask=none, memory_mask=none, tgt_key_padding_mask=none, memory_key_padding_mask=none,
          tgt_is_causal=none, memory_is_causal=false) {
    let x = tgt
    for layer in self.layers {
      x = layer(x, memory, tgt_mask=tgt_mask, memory_mask=memory_mask, tgt_key_padding_mask=tgt_key_padding_mask,
                memory_key_padding_mask=memory_key_padding_mask, tgt_is_causal=tgt_is_causal == true,
                memory_is_causal=memory_is_causal)
    }
    return self.norm(x) if self.norm != none else x
  }
}

# As PyTorch's nn.Transformer: an encoder and a decoder stack, each ending in a
# LayerNorm (encoder.norm, decoder.norm), every weight matrix xavier-uniform (its
# _reset_parameters). forward(src, tgt, ...) encodes src and decodes tgt against it.
model Transformer(d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6, dim_feedforward=2048,
                  dropout=0.1, activation="relu", custom_encoder=none, custom_decoder=none, layer_norm_eps=1e-5,
                  batch_first=false, norm_first=false, bias=true, device=none, dtype=none) {
  "An encoder-decoder transformer as PyTorch's nn.Transformer; forward(src, tgt). Example: nn.Transformer(d_model=64, nhead=4, num_encoder_layers=2, num_decoder_layers=2)"
  let _fk = _nn_init._check_factory("Transformer", device, dtype)
  encoder = custom_encoder if custom_encoder != none else TransformerEncoder(
      TransformerEncoderLayer(d_model, nhead, dim_feedforward=dim_feedforward, dropout=dropout, activation=activation,
                              layer_norm_eps=layer_norm_eps, batch_first=batch_first, norm_first=norm_first,
                              bias=bias, device=device, dtype=dtype),
      num_encoder_layers, norm=LayerNorm(d_model, eps=layer_norm_eps, device=device, dtype=dtype))
  decoder = custom_decoder if custom_decoder != none else TransformerDecoder(
      TransformerDecoderLayer(d_model, nhead, dim_feedforward=dim_feedforward, dropout=dropout, activation=activation,
                              layer_norm_eps=layer_norm_eps, batch_first=batch_first, norm_first=norm_first,
                              bias=bias, device=device, dtype=dtype),
      num_decoder_layers, norm=LayerNorm(d_model, eps=layer_norm_eps, device=device, dtype=dtype))
  d_model = d_model
  nhead = nhead
  batch_first = batch_first
  let _init = _xavier_matrices(self)
  forward(src, tgt, src_mask=none, tgt_mask=none, memory_mask=none, src_key_padding_mask=none,
          tgt_key_padding_mask=none, memory_key_padding_mask=none, src_is_causal=none, tgt_is_causal=none,
          memory_is_causal=false) {
    _check_src_tgt(src, tgt, self.d_model, self.batch_first)
    let memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask, is_causal=src_is_causal)
    return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                        tgt_key_padding_mask=tgt_key_padding_mask,
                        memory_key_padding_mask=memory_key_padding_mask, tgt_is_causal=tgt_is_causal,
                        memory_is_causal=memory_is_causal)
  }
  static generate_square_subsequent_mask(sz, dtype=f32) = _square_subsequent_mask(sz, dtype)
}

# PyTorch's Transformer.forward checks; the mismatch failed inside the decoder's
# attention, naming its shapes rather than src and tgt.
fn _check_src_tgt(src, tgt, d_model, batch_first) {
  assert(type(src) == "tensor" and type(tgt) == "tensor",
         f"Transformer: expected src and tgt as tensors, got {type(src)} and {type(tgt)}")
  let b = 0 if batch_first else 1
  assert(src.ndim != 3 or tgt.ndim != 3 or src.shape[b] == tgt.shape[b],
         f"Transformer: src and tgt must have one batch size (dim {b}), got src of shape {list(src.shape)} and tgt of shape {list(tgt.shape)}")
  assert(src.ndim > 0 and tgt.ndim > 0 and src.shape[-1] == d_model and tgt.shape[-1] == d_model,
         f"Transformer: src and tgt must have d_model = {d_model} features, got src of shape {list(src.shape)} and tgt of shape {list(tgt.shape)}")
}

fn _xavier_matrices(m) {
  for p in m.parameters() {
    if p.ndim > 1 { xavier_uniform_(p) }
  }
}
