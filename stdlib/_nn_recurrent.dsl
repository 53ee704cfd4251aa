# _nn_recurrent: nn.RNN, nn.LSTM, nn.GRU and their cells. nn re-exports them; import nn,
# not this module.
import math
import _nn_init
import _nn_packed
# ---- recurrent layers ---------------------------------------------------------------
# RNN, LSTM, GRU and their cells with PyTorch's semantics: gate order (LSTM i, f, g, o;
# GRU r, z, n with n = tanh(W_in x + b_in + r * (W_hn h + b_hn))), parameters named
# weight_ih_l{k}[_reverse], weight_hh_l{k}, bias_ih_l{k}, bias_hh_l{k}, every one drawn
# from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)). Inputs are [T, B, in] ([B, T, in]
# with batch_first) or unbatched [T, in]; states are [layers * directions, B, H].
# Note [Recurrent GEMMs]: a layer projects the inputs of all time steps in one GEMM per
# direction (x @ W_ih^T, with b_ih and, where the cell allows, b_hh folded in); each
# step then runs one batched GEMM h @ W_hh^T for every gate of both directions at
# once, [directions, B, H] x [directions, H, G*H]. The reverse direction runs on its
# inputs reversed in time, so both directions take the same step t together.
# LSTM's proj_size P > 0 (as PyTorch's): each step's h is projected to P features by
# weight_hr_l{k} [P, H] (h = (o * tanh(c)) W_hr^T), so h states, weight_hh's columns and
# the next layer's inputs are P wide; c stays H wide.
# A PackedSequence input (nn.utils.rnn, stdlib/_nn_packed.dsl) runs padded, in the
# batch's own order, with each sequence's state held past its end: step t updates
# sequence b only while t < lengths[b] (the reverse direction, which walks the padded
# steps backwards, starts at each sequence's own end the same way). So h_n is each
# sequence's state after its last step, as PyTorch's, and the output is packed back
# with the input's indices.

fn _rnn_gate_count(mode) = 4 if mode == "LSTM" else (3 if mode == "GRU" else 1)

fn _rnn_suffix(layer, direction) = f"_l{layer}" + ("_reverse" if direction == 1 else "")

# A [rows, cols] parameter drawn from U(-1/sqrt(H), 1/sqrt(H)), as RNNBase.reset_parameters.
fn _rnn_parameter(shape, hidden_size) {
  let bound = 1.0 / math.sqrt(hidden_size)
  return _nn_init.uniform_(_nn_init.parameter(shape), -bound, bound)
}

# Adds one layer-and-direction's weights to m under PyTorch's names (prefix "" for the
# layers, whose names carry the suffix; the cells' names have none).
fn _rnn_add_weights(m, suffix, gates, input_size, hidden_size, bias, proj_size=0) {
  let h_width = proj_size if proj_size > 0 else hidden_size
  setattr(m, "weight_ih" + suffix, _rnn_parameter([gates * hidden_size, input_size], hidden_size))
  setattr(m, "weight_hh" + suffix, _rnn_parameter([gates * hidden_size, h_width], hidden_size))
  if bias {
    setattr(m, "bias_ih" + suffix, _rnn_parameter([gates * hidden_size], hidden_size))
    setattr(m, "bias_hh" + suffix, _rnn_parameter([gates * hidden_size], hidden_size))
  }
  if proj_size > 0 { setattr(m, "weight_hr" + suffix, _rnn_parameter([proj_size, hidden_size], hidden_size)) }
}

# The width of h: proj_size when an LSTM projects, else hidden_size.
fn _rnn_h_width(m) = m.proj_size if m.proj_size > 0 else m.hidden_size

fn _rnn_add_all_weights(m) {
  let gates = _rnn_gate_count(m.mode)
  for layer in range(m.num_layers) {
    let n_in = m.input_size if layer == 0 else _rnn_h_width(m) * m.num_directions
    for d in range(m.num_directions) {
      _rnn_add_weights(m, _rnn_suffix(layer, d), gates, n_in, m.hidden_size, m.bias, m.proj_size)
    }
  }
}

# One step of each cell on precomputed gate pre-activations. gi: the input part
# (x W_ih^T + b_ih, plus b_hh for LSTM and RNN), gh: h W_hh^T (plus b_hh for GRU).
fn _lstm_step(gi, gh, c, hidden_size) {
  let (i, f, g, o) = split(gi + gh, [hidden_size, hidden_size, hidden_size, hidden_size], dim=-1)
  let c_next = sigmoid(f) * c + sigmoid(i) * tanh(g)
  return (sigmoid(o) * tanh(c_next), c_next)
}

fn _gru_step(gi, gh, h, hidden_size) {
  let two = 2 * hidden_size
  let (rz_i, n_i) = split(gi, [two, hidden_size], dim=-1)
  let (rz_h, n_h) = split(gh, [two, hidden_size], dim=-1)
  let (r, z) = split(sigmoid(rz_i + rz_h), [hidden_size, hidden_size], dim=-1)
  let n = tanh(n_i + r * n_h)
  return n + z * (h - n)  # (1 - z) * n + z * h
}

fn _rnn_tanh_step(gi, gh, nonlinearity) = tanh(gi + gh) if nonlinearity == "tanh" else relu(gi + gh)

# One layer, both directions together. x: [T, B, in]; h, c: [directions, B, H] (c is
# none except for LSTM); valid: none, or bool [T, B], whether step t is inside sequence
# b (a packed input). Returns (y [T, B, directions * H], h_n, c_n).
fn _rnn_layer(m, x, layer, h, c, valid) {
  let steps = x.shape[0]
  let dirs = m.num_directions
  let reverse = arange(steps - 1, -1, -1)
  let projected = []
  let w_hh = []
  let b_hh = []
  let w_hr = []
  for d in range(dirs) {
    let sfx = _rnn_suffix(layer, d)
    let b_ih = getattr(m, "bias_ih" + sfx) if m.bias else none
    let bh = getattr(m, "bias_hh" + sfx) if m.bias else none
    # b_hh joins the input projection unless GRU's r gates it (n's hidden part)
    let fold = m.bias and m.mode != "GRU"
    let p = linear(x, getattr(m, "weight_ih" + sfx), b_ih + bh if fold else b_ih)
    projected.append(index_select(p, 0, reverse) if d == 1 else p)
    w_hh.append(getattr(m, "weight_hh" + sfx).T)
    b_hh.append(bh)
    if m.proj_size > 0 { w_hr.append(getattr(m, "weight_hr" + sfx).T) }
  }
  # The steps' inputs, [dirs, B, G*H] each (xs[t].squeeze(0)), by one split: its backward is one cat,
  # where indexing xp[t] would add a [T, ...] gradient per step.
  let xs = split(stack(projected, dim=1), [1] * steps, dim=0)
  let w = stack(w_hh)  # [dirs, H (P when projecting), G*H]
  let w_proj = stack(w_hr) if m.proj_size > 0 else none  # [dirs, H, P]
  let gru_bias = stack(b_hh).unsqueeze(1) if m.mode == "GRU" and m.bias else none
  # per step, [dirs, B, 1]: which sequences the step is inside (the reverse direction
  # reads the valid flags backwards, as its inputs)
  let inside = none
  if valid != none {
    let v = valid.unsqueeze(-1)
    inside = split(stack([v, index_select(v, 0, reverse)][:dirs], dim=1), [1] * steps, dim=0)
  }
  let outs = []
  for t in range(steps) {
    let gh = matmul(h, w)
    let h_new = none
    if m.mode == "LSTM" {
      let (h2, c2) = _lstm_step(xs[t].squeeze(0), gh, c, m.hidden_size)
      h_new = matmul(h2, w_proj) if w_proj != none else h2
      c = c2 if inside == none else where(inside[t].squeeze(0), c2, c)
    } elif m.mode == "GRU" {
      h_new = _gru_step(xs[t].squeeze(0), gh + gru_bias if gru_bias != none else gh, h, m.hidden_size)
    } else {
      h_new = _rnn_tanh_step(xs[t].squeeze(0), gh, m.nonlinearity)
    }
    h = h_new if inside == none else where(inside[t].squeeze(0), h_new, h)
    outs.append(h)
  }
  let ys = stack(outs)  # [T, dirs, B, H]
  let y = ys[:, 0] if dirs == 1 else cat([ys[:, 0], index_select(ys[:, 1], 0, reverse)], dim=-1)
  return (y, h, c)
}

# s as the user gave it: an unbatched input's state has no batch dim either, and the
# message names the shape given, not the one made for the loop.
fn _rnn_check_state(m, name, s, want, batched) {
  let expected = want if batched else [want[0], want[2]]
  assert(_nn_init._shape(s) == expected,
         f"{m.mode}: expected {name} of shape {expected}" + ("" if batched else " for an unbatched input") +
         f", got {_nn_init._shape(s)}")
}

# The multi-layer forward shared by RNN, LSTM and GRU. hx: none, h0, or (h0, c0) for LSTM.
fn _rnn_forward(m, input, hx) {
  if type(input) == "PackedSequence" { return _rnn_forward_packed(m, input, hx) }
  return _rnn_run(m, input, hx, none, m.batch_first)
}

# A packed input: run padded with each sequence's steps marked valid, pack the output
# back (Note at the top).
fn _rnn_forward_packed(m, sequence, hx) {
  let (x, lengths) = _nn_packed.unpacked_for_layer(f"{m.mode}: the packed input", sequence)
  let steps = x.shape[0]
  let valid = arange(steps).unsqueeze(1) < tensor(lengths).unsqueeze(0)
  let result = _rnn_run(m, x, hx, valid, false)  # x is [T, B, *] whatever the layer's batch_first
  return (_nn_packed.packed_like(result[0], lengths, sequence), result[1])
}

# The forward on a [T, B, *] ([B, T, *] with batch_first) or unbatched input; valid:
# none, or the steps inside each sequence ([T, B] bool, a packed input's).
fn _rnn_run(m, input, hx, valid, batch_first) {
  assert(type(input) == "tensor", f"{m.mode}: expected the input as a tensor or a PackedSequence, got {type(input)}")
  assert(input.ndim == 2 or input.ndim == 3,
         f"{m.mode}: expected a 2-d (unbatched) or 3-d input, got shape {list(input.shape)}")
  let batched = input.ndim == 3
  let x = input if batched else input.unsqueeze(1)
  if batched and batch_first { x = x.transpose(0, 1) }
  assert(x.shape[2] == m.input_size,
         f"{m.mode}: expected input with {m.input_size} features (input_size), got shape {list(input.shape)}")
  # PyTorch's refusal; the loop over no steps failed inside the library (stack of []).
  assert(x.shape[0] > 0, f"{m.mode}: expected a sequence length larger than 0, got input of shape {list(input.shape)}")
  let state_shape = [m.num_layers * m.num_directions, x.shape[1], _rnn_h_width(m)]
  let cell_shape = [m.num_layers * m.num_directions, x.shape[1], m.hidden_size]
  let lstm = m.mode == "LSTM"
  let h0 = none
  let c0 = none
  if hx == none {
    h0 = zeros(state_shape, dtype=x.dtype)
    c0 = zeros(cell_shape, dtype=x.dtype) if lstm else none
  } else {
    if lstm {
      assert(type(hx) in ["tuple", "list"] and len(hx) == 2 and type(hx[0]) == "tensor" and type(hx[1]) == "tensor",
             f"LSTM: expected hx as a pair of tensors (h0, c0), got " + (f"a tensor of shape {list(hx.shape)}" if type(hx) == "tensor" else type(hx)))
    } else {
      assert(type(hx) == "tensor", f"{m.mode}: expected hx as a tensor h0, got {type(hx)}")
    }
    h0 = hx[0] if lstm else hx
    c0 = hx[1] if lstm else none
    _rnn_check_state(m, "h0", h0, state_shape, batched)
    if lstm { _rnn_check_state(m, "c0", c0, cell_shape, batched) }
    for (name, s) in ([("h0", h0), ("c0", c0)] if lstm else [("h0", h0)]) {
      assert(s.dtype == x.dtype, f"{m.mode}: expected {name} in the input's dtype {x.dtype}, got {s.dtype}")
    }
    if not batched {
      h0 = h0.unsqueeze(1)
      c0 = c0.unsqueeze(1) if lstm else none
    }
  }
  let hs = []
  let cs = []
  let dirs = m.num_directions
  for layer in range(m.num_layers) {
    let (y, h, c) = _rnn_layer(m, x, layer, h0[layer * dirs:(layer + 1) * dirs],
                               c0[layer * dirs:(layer + 1) * dirs] if lstm else none, valid)
    hs.append(h)
    cs.append(c)
    x = y
    if m.training and m.dropout > 0 and layer < m.num_layers - 1 { x = dropout(x, p=m.dropout, training=true) }
  }
  let h_n = cat(hs)
  let c_n = cat(cs) if lstm else none
  if batched and batch_first { x = x.transpose(0, 1) }
  if not batched {
    x = x.squeeze(1)
    h_n = h_n.squeeze(1)
    c_n = c_n.squeeze(1) if lstm else none
  }
  return (x, (h_n, c_n)) if lstm else (x, h_n)
}

fn _rnn_check_args(mode, num_layers, dropout, nonlinearity, input_size, hidden_size) {
  assert(type(input_size) == "int" and input_size >= 0, f"{mode}: input_size must be an int >= 0, got {repr(input_size)}")
  assert(type(hidden_size) == "int" and hidden_size > 0, f"{mode}: hidden_size must be an int > 0, got {repr(hidden_size)}")
  assert(type(num_layers) == "int" and num_layers >= 1, f"{mode}: num_layers must be an int, at least 1, got {repr(num_layers)}")
  assert(dropout >= 0 and dropout <= 1, f"{mode}: dropout must be in [0, 1], got {dropout}")
  assert(nonlinearity == "tanh" or nonlinearity == "relu",
         f"{mode}: nonlinearity must be 'tanh' or 'relu', got '{nonlinearity}'")
}

model RNN(input_size, hidden_size, num_layers=1, nonlinearity="tanh", bias=true, batch_first=false,
          dropout=0.0, bidirectional=false, device=none, dtype=none) {
  "A multi-layer Elman RNN (tanh or relu) over a sequence; returns (output, h_n). Example: nn.RNN(10, 20, num_layers=2)"
  mode = "RNN"
  input_size = input_size
  hidden_size = hidden_size
  num_layers = num_layers
  nonlinearity = nonlinearity
  bias = bias
  batch_first = batch_first
  dropout = dropout
  bidirectional = bidirectional
  num_directions = 2 if bidirectional else 1
  proj_size = 0
  training = true
  let _c = _rnn_check_args("RNN", num_layers, dropout, nonlinearity, input_size, hidden_size)
  let _w = _rnn_add_all_weights(self)
  let _fk = _nn_init._factory(self, device, dtype)
  forward(input, hx=none) = _rnn_forward(self, input, hx)
}

model LSTM(input_size, hidden_size, num_layers=1, bias=true, batch_first=false, dropout=0.0,
           bidirectional=false, proj_size=0, device=none, dtype=none) {
  "A multi-layer LSTM over a sequence; returns (output, (h_n, c_n)). Example: nn.LSTM(10, 20, batch_first=true)"
  mode = "LSTM"
  input_size = input_size
  hidden_size = hidden_size
  num_layers = num_layers
  bias = bias
  batch_first = batch_first
  dropout = dropout
  bidirectional = bidirectional
  num_directions = 2 if bidirectional else 1
  training = true
  proj_size = proj_size
  let _c = _rnn_check_args("LSTM", num_layers, dropout, "tanh", input_size, hidden_size)
  let _p = assert(proj_size >= 0 and proj_size < hidden_size,
                  f"LSTM: proj_size must be at least 0 and smaller than hidden_size ({hidden_size}), got {proj_size}")
  let _w = _rnn_add_all_weights(self)
  let _fk = _nn_init._factory(self, device, dtype)
  forward(input, hx=none) = _rnn_forward(self, input, hx)
}

model GRU(input_size, hidden_size, num_layers=1, bias=true, batch_first=false, dropout=0.0,
          bidirectional=false, device=none, dtype=none) {
  "A multi-layer GRU over a sequence; returns (output, h_n). Example: nn.GRU(10, 20)"
  mode = "GRU"
  input_size = input_size
  hidden_size = hidden_size
  num_layers = num_layers
  bias = bias
  batch_first = batch_first
  dropout = dropout
  bidirectional = bidirectional
  num_directions = 2 if bidirectional else 1
  proj_size = 0
  training = true
  let _c = _rnn_check_args("GRU", num_layers, dropout, "tanh", input_size, hidden_size)
  let _w = _rnn_add_all_weights(self)
  let _fk = _nn_init._factory(self, device, dtype)
  forward(input, hx=none) = _rnn_forward(self, input, hx)
}

# The cells: one step. input [B, in] or unbatched [in]; hx [B, H] (LSTMCell: (h, c)),
# zeros when left out. Returns h' (LSTMCell: (h', c')).
fn _cell_gates(m, x, h) {
  let gi = linear(x, m.weight_ih, m.bias_ih if m.bias else none)
  let gh = linear(h, m.weight_hh, m.bias_hh if m.bias else none)
  return (gi, gh)
}

fn _cell_input(m, name, input) {
  assert(type(input) == "tensor", f"{name}: expected the input as a tensor, got {type(input)}")
  assert(input.ndim == 1 or input.ndim == 2,
         f"{name}: expected a 1-d (unbatched) or 2-d input, got shape {list(input.shape)}")
  assert(input.shape[-1] == m.input_size,
         f"{name}: expected input with {m.input_size} features (input_size), got shape {list(input.shape)}")
  return input if input.ndim == 2 else input.unsqueeze(0)
}

# A cell's state s (none: zeros) as [B, H] for the input x ([B, in]); input is the
# user's, whose rank the state must share, as PyTorch's (an unbatched input with a
# batched hx broadcast to a batch of hx's rows).
fn _cell_state(m, name, what, s, x, input) {
  if s == none { return zeros([x.shape[0], m.hidden_size], dtype=x.dtype) }
  assert(type(s) == "tensor", f"{name}: expected {what} as a tensor, got {type(s)}")
  let want = [x.shape[0], m.hidden_size] if input.ndim == 2 else [m.hidden_size]
  assert(list(s.shape) == want,
         f"{name}: expected {what} of shape {want} for an input of shape {list(input.shape)}, got {list(s.shape)}")
  assert(s.dtype == x.dtype, f"{name}: expected {what} in the input's dtype {x.dtype}, got {s.dtype}")
  return s if s.ndim == 2 else s.unsqueeze(0)
}

fn _cell_output(input, s) = s if input.ndim == 2 else s.squeeze(0)

model RNNCell(input_size, hidden_size, bias=true, nonlinearity="tanh", device=none, dtype=none) {
  "One step of an Elman RNN: h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh). Example: nn.RNNCell(10, 20)"
  input_size = input_size
  hidden_size = hidden_size
  bias = bias
  nonlinearity = nonlinearity
  let _c = _rnn_check_args("RNNCell", 1, 0.0, nonlinearity, input_size, hidden_size)
  let _w = _rnn_add_weights(self, "", 1, input_size, hidden_size, bias)
  let _fk = _nn_init._factory(self, device, dtype)
  forward(input, hx=none) {
    let x = _cell_input(self, "RNNCell", input)
    let (gi, gh) = _cell_gates(self, x, _cell_state(self, "RNNCell", "hx", hx, x, input))
    return _cell_output(input, _rnn_tanh_step(gi, gh, self.nonlinearity))
  }
}

model LSTMCell(input_size, hidden_size, bias=true, device=none, dtype=none) {
  "One step of an LSTM; returns (h', c'). Example: nn.LSTMCell(10, 20)"
  input_size = input_size
  hidden_size = hidden_size
  bias = bias
  let _c = _rnn_check_args("LSTMCell", 1, 0.0, "tanh", input_size, hidden_size)
  let _w = _rnn_add_weights(self, "", 4, input_size, hidden_size, bias)
  let _fk = _nn_init._factory(self, device, dtype)
  forward(input, hx=none) {
    let x = _cell_input(self, "LSTMCell", input)
    assert(hx == none or (type(hx) in ["tuple", "list"] and len(hx) == 2),
           "LSTMCell: expected hx as a pair of tensors (h0, c0), got " + (f"a {type(hx)} of length {len(hx)}" if type(hx) in ["tuple", "list"] else type(hx)))
    let h = _cell_state(self, "LSTMCell", "h0", hx[0] if hx != none else none, x, input)
    let c = _cell_state(self, "LSTMCell", "c0", hx[1] if hx != none else none, x, input)
    let (gi, gh) = _cell_gates(self, x, h)
    let (h2, c2) = _lstm_step(gi, gh, c, self.hidden_size)
    return (_cell_output(input, h2), _cell_output(input, c2))
  }
}

model GRUCell(input_size, hidden_size, bias=true, device=none, dtype=none) {
  "One step of a GRU; returns h'. Example: nn.GRUCell(10, 20)"
  input_size = input_size
  hidden_size = hidden_size
  bias = bias
  let _c = _rnn_check_args("GRUCell", 1, 0.0, "tanh", input_size, hidden_size)
  let _w = _rnn_add_weights(self, "", 3, input_size, hidden_size, bias)
  let _fk = _nn_init._factory(self, device, dtype)
  forward(input, hx=none) {
    let x = _cell_input(self, "GRUCell", input)
    let h = _cell_state(self, "GRUCell", "hx", hx, x, input)
    let (gi, gh) = _cell_gates(self, x, h)
    return _cell_output(input, _gru_step(gi, gh, h, self.hidden_size))
  }
}
