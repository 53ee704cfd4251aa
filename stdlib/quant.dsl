# quant: model compression by int8 quantization, with PyTorch's names and numerics
# (torch.ao.quantization). docs/quantization.md has the whole story.
#
#   import quant
#   let qm = quant.quantize_dynamic(model)        # Linear -> DynamicQuantizedLinear
#   let qs = quant.quantize_static(model, batches) # Linear, Conv2d -> QuantizedLinear, QuantizedConv2d
#   let qat = quant.prepare_qat(model)            # Linear -> QATLinear (fake quantization)
#   ... train qat as usual ...
#   let qm2 = quant.convert(qat)                  # QATLinear -> DynamicQuantizedLinear
#   print(quant.model_size_bytes(model), quant.model_size_bytes(qm))
#
# quantize_static is fuse_conv_bn + prepare + calibrate + convert, each usable alone.
# The pieces are reusable on their own: QuantizedTensor (integers with their scale
# and zero point), observers (MinMaxObserver, MovingAverageMinMaxObserver,
# PerChannelMinMaxObserver, MovingAveragePerChannelMinMaxObserver, HistogramObserver:
# they watch values go by and choose quantization parameters), QConfig (which
# observers static quantization uses), FakeQuantize (an observer plus fake
# quantization, differentiable through the straight-through estimator), and the ops
# they run on (quantize_per_tensor, quantize_per_channel, dequantize_per_*,
# fake_quantize_per_*, quantized_linear, quantized_conv2d, dynamic_quantized_linear).
#
# The rooms: quantized tensors and the min/max observers are stdlib/_quant_observers.dsl,
# HistogramObserver stdlib/_quant_histogram.dsl, FakeQuantize and the quantized layers
# stdlib/_quant_modules.dsl; this file re-exports them and holds the model transforms.
import nn
import _argcheck
import _quant_histogram
import _quant_modules
import _quant_observers

# ---- quantized tensors and observers (stdlib/_quant_observers.dsl, _quant_histogram.dsl)
let eps_f32 = _quant_observers.eps_f32
let qrange = _quant_observers.qrange
let QuantizedTensor = _quant_observers.QuantizedTensor
let quantize = _quant_observers.quantize
let MinMaxObserver = _quant_observers.MinMaxObserver
let MovingAverageMinMaxObserver = _quant_observers.MovingAverageMinMaxObserver
let PerChannelMinMaxObserver = _quant_observers.PerChannelMinMaxObserver
let MovingAveragePerChannelMinMaxObserver = _quant_observers.MovingAveragePerChannelMinMaxObserver
let HistogramObserver = _quant_histogram.HistogramObserver

# ---- fake quantization and quantized layers (stdlib/_quant_modules.dsl) -----------------
let FakeQuantize = _quant_modules.FakeQuantize
let default_dynamic_fake_quant = _quant_modules.default_dynamic_fake_quant
let default_per_channel_weight_fake_quant = _quant_modules.default_per_channel_weight_fake_quant
let default_weight_observer = _quant_modules.default_weight_observer
let DynamicQuantizedLinear = _quant_modules.DynamicQuantizedLinear
let QATLinear = _quant_modules.QATLinear
let QConfig = _quant_modules.QConfig
let ObservedLinear = _quant_modules.ObservedLinear
let ObservedConv2d = _quant_modules.ObservedConv2d
let QuantizedLinear = _quant_modules.QuantizedLinear
let QuantizedConv2d = _quant_modules.QuantizedConv2d
let _dynamic_linear_from = _quant_modules._dynamic_linear_from
let _quantized_linear_from = _quant_modules._quantized_linear_from
let _quantized_conv2d_from = _quant_modules._quantized_conv2d_from

# ---- qconfigs ---------------------------------------------------------------------------

# PyTorch's fbgemm default, with 8-bit activations: a HistogramObserver for inputs
# (u8; reduce_range=false because VNNI's int8 multiply-add accumulates in 32 bits,
# docs/quantization.md), symmetric i8 weights per output channel.
let default_qconfig = QConfig(fn() = HistogramObserver(), default_weight_observer)
# The same with a MinMaxObserver for inputs: the whole observed range, no clipping.
let minmax_qconfig = QConfig(fn() = MinMaxObserver(), default_weight_observer)

# ---- model transforms --------------------------------------------------------------------

# The model argument of the quantization transforms: a model instance.
fn _checked_model(who, model) {
  if not nn._is_module(model) { fail(f"{who}: model must be a model instance, got {type(model)}") }
  return model
}

# The flags of the transforms (inplace, reduce_range): bools. inplace="no" was true
# (the model converted in place) and reduce_range="no" an error at the first forward.
fn _checked_flags(who, flags) {
  for (name, v) in flags { _argcheck.check_option(who, name, "bool", v) }
}

# An observer maker argument (weight_observer, activation, weight): a function of no
# arguments or a model class, called once per layer.
fn _checked_maker_arg(who, name, maker) {
  if not (type(maker) in ["function", "builtin", "method", "model"]) {
    fail(f"{who}: {name} must be a function that makes an observer (fn() = quant.MinMaxObserver()), got {type(maker)}")
  }
}

# Replaces every submodule m for which convert(m) is not none, depth first; returns the
# model (or its replacement). Each module is converted once: one held in two fields
# gets the same replacement in both, and a module that holds itself or an ancestor
# ends the walk there (Note [Module walk]). Submodules held in plain lists are not
# visited (as PyTorch's transforms skip plain Python lists). convert returning
# anything but a module or none is an error that names what it returned.
fn swap_modules(m, convert, _done=none) {
  """Replaces every submodule m of a model for which convert(m) is not none, depth first; returns the
  model or its replacement.

  Example: quant.swap_modules(nn.Sequential([nn.Linear(4, 2), nn.ReLU()]), fn(m) = nn.Identity() if isinstance(m, nn.ReLU) else none)
  """
  if _done == none { _done = {"from": [], "to": []} }
  if m in _done["from"] { return _done["to"][_done["from"].index(m)] }
  let k = len(_done["from"])
  _done["from"].append(m)
  _done["to"].append(m)  # what a cycle back to m finds while m's children are swapped
  let r = convert(m)
  if r != none {
    # Anything else set as a field would drop the layer from the model without a word.
    if not nn._is_module(r) {
      fail(f"quant.swap_modules(): convert returned {_argcheck.shown(r)} for a {type(m)}; it must return a module (the replacement) or none (keep the module)")
    }
    _done["to"][k] = r
    return r
  }
  for (name, child) in m.named_children(remove_duplicate=false) { setattr(m, name, swap_modules(child, convert, _done)) }
  return m
}

# Post-training dynamic quantization (PyTorch's quantize_dynamic): a copy of `model`
# with every nn.Linear replaced by a DynamicQuantizedLinear; `model` is left as it
# was unless inplace. weight_observer makes the observer that picks each weight's
# scales.
fn quantize_dynamic(model, reduce_range=false, inplace=false, weight_observer=default_weight_observer) {
  """A copy of model with every nn.Linear replaced by a DynamicQuantizedLinear, as
  torch.ao.quantization.quantize_dynamic.

  Example: quant.quantize_dynamic(nn.Sequential([nn.Linear(8, 4)]))(randn(2, 8))
  """
  _checked_model("quant.quantize_dynamic()", model)
  _checked_flags("quant.quantize_dynamic()", [("reduce_range", reduce_range), ("inplace", inplace)])
  _checked_maker_arg("quant.quantize_dynamic()", "weight_observer", weight_observer)
  let m = model if inplace else deepcopy(model)
  let convert = fn(l) = _dynamic_linear_from(l.weight, l.bias, weight_observer(), reduce_range) if isinstance(l, nn.Linear) else none
  return swap_modules(m, convert)
}

# Quantization-aware training: a copy of `model` (in training mode) with every
# nn.Linear replaced by a QATLinear that fake-quantizes its input (activation) and
# its weight (weight). Train it as usual, then convert() it.
fn prepare_qat(model, activation=default_dynamic_fake_quant, weight=default_per_channel_weight_fake_quant,
               inplace=false) {
  """A copy of model in training mode with every nn.Linear replaced by a QATLinear, to train and then
  convert(), as torch.ao.quantization.prepare_qat.

  Example: quant.prepare_qat(nn.Sequential([nn.Linear(8, 4)]))(randn(2, 8))
  """
  _checked_model("quant.prepare_qat()", model)
  _checked_flags("quant.prepare_qat()", [("inplace", inplace)])
  _checked_maker_arg("quant.prepare_qat()", "activation", activation)
  _checked_maker_arg("quant.prepare_qat()", "weight", weight)
  let m = model if inplace else deepcopy(model)
  let swap = fn(l) = QATLinear(l.in_features, l.out_features, l.weight, l.bias, activation(), weight()) if isinstance(l, nn.Linear) else none
  let r = swap_modules(m, swap)
  r.train()
  return r
}

# Folds an eval-mode BatchNorm2d into the Conv2d before it (PyTorch's
# fuse_conv_bn_weights): w * gamma / sqrt(var + eps) per output channel, and the bias
# (b - mean) * gamma / sqrt(var + eps) + beta.
fn _fold_batch_norm(conv, bn) {
  no_grad {
    let inv_std = rsqrt(bn.running_var + bn.eps)
    let gamma = bn.weight.detach() if bn.weight != none else ones([bn.num_features])
    let beta = bn.bias.detach() if bn.bias != none else zeros([bn.num_features])
    let b = conv.bias.detach() if conv.bias != none else zeros([conv.out_channels])
    let w = conv.weight.detach() * (gamma * inv_std).reshape([-1, 1, 1, 1])
    conv.weight = w.contiguous().requires_grad_(true)
    conv.bias = ((b - bn.running_mean) * inv_std * gamma + beta).requires_grad_(true)
  }
}

fn _foldable(conv, bn) = isinstance(conv, nn.Conv2d) and isinstance(bn, nn.BatchNorm2d) and bn.track_running_stats and not bn.training

# Every Sequential of the model once (Note [Module walk]); a conv folded already (one
# shared by two Sequentials) is an error, since folding it again would be wrong.
fn _fuse_conv_bn_in(model) {
  let folded = []
  for m in model.modules() {
    if isinstance(m, nn.Sequential) {
      let layers = m.named_children(remove_duplicate=false)
      for i in range(len(layers) - 1) {
        let (name, bn) = layers[i + 1]
        let conv = layers[i][1]
        if _foldable(conv, bn) {
          assert(not (conv in folded), f"quant.fuse_conv_bn: the Conv2d before '{name}' was folded already (it is shared by two places); fuse a model whose convs are not shared")
          if conv.out_channels != bn.num_features { fail(f"quant.fuse_conv_bn: the Conv2d before '{name}' has {conv.out_channels} output channels (weight {list(conv.weight.shape)}) but the BatchNorm2d '{name}' has {bn.num_features} features (running_mean {list(bn.running_mean.shape)})") }
          _fold_batch_norm(conv, bn)
          folded.append(conv)
          setattr(m, name, nn.Identity())
        }
      }
    }
  }
}

# For inference: a copy of `model` in eval mode in which every Conv2d directly followed
# by a BatchNorm2d inside an nn.Sequential computes both (the batch norm folded into
# its weight and bias; the BatchNorm2d becomes an nn.Identity, so the layers keep
# their indices). Batch norms that normalize with each batch's statistics
# (track_running_stats=false) stay. Quantization then sees the folded weights.
fn fuse_conv_bn(model, inplace=false) {
  """A copy of model in eval mode in which every Conv2d followed by a BatchNorm2d in a Sequential has
  the batch norm folded into its weight and bias, as torch.ao.quantization.fuse_modules.

  Example: quant.fuse_conv_bn(nn.Sequential([nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4)]))
  """
  _checked_model("quant.fuse_conv_bn()", model)
  _checked_flags("quant.fuse_conv_bn()", [("inplace", inplace)])
  let m = model if inplace else deepcopy(model)
  m.eval()
  _fuse_conv_bn_in(m)
  return m
}

# Static quantization, step 1: a copy of `model` in eval mode with every nn.Linear and
# nn.Conv2d replaced by an ObservedLinear / ObservedConv2d that watches its input with
# qconfig.activation() (and will quantize its weight with qconfig.weight()). Run
# calibration batches through it (calibrate(), or calls under no_grad), then convert().
fn prepare(model, qconfig=default_qconfig, inplace=false) {
  """A copy of model in eval mode with every nn.Linear and nn.Conv2d replaced by an observed layer
  that watches its input, to calibrate and then convert(), as torch.ao.quantization.prepare.

  Example: quant.prepare(nn.Sequential([nn.Linear(8, 4)]))
  """
  _checked_model("quant.prepare()", model)
  _checked_flags("quant.prepare()", [("inplace", inplace)])
  if not isinstance(qconfig, QConfig) { fail(f"quant.prepare(): qconfig must be a quant.QConfig, got {type(qconfig)}") }
  let m = model if inplace else deepcopy(model)
  let swap = fn(l) = _observed(l, qconfig)
  let r = swap_modules(m, swap)
  r.eval()
  return r
}

fn _observed(l, qconfig) {
  if isinstance(l, nn.Linear) { return ObservedLinear(l, qconfig) }
  if isinstance(l, nn.Conv2d) { return ObservedConv2d(l, qconfig) }
  return none
}

fn calibrate(prepared, batches) {
  """Runs batches (tensors or (input, target) pairs) through a prepared model without gradients so
  that its observers see them; returns the model.

  Example: quant.calibrate(quant.prepare(nn.Sequential([nn.Linear(8, 4)])), [randn(16, 8)])
  """
  _checked_model("quant.calibrate()", prepared)
  if type(batches) == "tensor" { fail("quant.calibrate(): batches must be a list of batches, got one tensor (wrap it: [x])") }
  if not (type(batches) in ["list", "tuple"]) { fail(f"quant.calibrate(): batches must be a list of batches, got {type(batches)}") }
  no_grad {
    for (i, b) in enumerate(batches) { prepared(_calibration_input(b, i)) }
  }
  return prepared
}

# The input of calibration batch i: a tensor, or the first of an (input, target) pair;
# anything else is named here rather than deep in an observer.
fn _calibration_input(b, i) {
  let pair = (type(b) == "tuple" or type(b) == "list") and len(b) > 0
  let x = b[0] if pair else b
  if type(x) != "tensor" {
    fail(f"quant.calibrate(): batch {i} must be a tensor or an (input, target) pair, got " +
         (f"a {type(b)} whose first item is {type(x)}" if pair else type(b)))
  }
  return x
}

# The paths of the observed layers whose input observer saw nothing.
fn _uncalibrated(model) {
  let out = []
  for (path, m) in model.named_modules() {
    if (isinstance(m, ObservedLinear) or isinstance(m, ObservedConv2d)) and m.activation_post_process.min_val.numel() == 0 {
      out.append(path if path != "" else "(the model itself)")
    }
  }
  return out
}

fn _convert_module(l, reduce_range) {
  if isinstance(l, QATLinear) { return _convert_qat_linear(l, reduce_range) }
  if isinstance(l, ObservedLinear) { return _quantized_linear_from(l) }
  if isinstance(l, ObservedConv2d) { return _quantized_conv2d_from(l) }
  return none
}

# The int8 model, in eval mode: every QATLinear of a QAT model becomes a
# DynamicQuantizedLinear whose weight is quantized with the scales its weight fake
# quantization trained with; every ObservedLinear / ObservedConv2d of a prepared and
# calibrated model becomes a QuantizedLinear / QuantizedConv2d with the input scale
# and zero point its observer chose. reduce_range applies to the dynamic layers.
fn convert(model, reduce_range=false, inplace=false) {
  """The int8 model in eval mode: QATLinear layers become DynamicQuantizedLinear, calibrated observed
  layers QuantizedLinear and QuantizedConv2d, as torch.ao.quantization.convert.

  Example: quant.convert(quant.calibrate(quant.prepare(nn.Sequential([nn.Linear(8, 4)])), [randn(16, 8)]))
  """
  _checked_model("quant.convert()", model)
  _checked_flags("quant.convert()", [("reduce_range", reduce_range), ("inplace", inplace)])
  let missing = _uncalibrated(model)
  if len(missing) > 0 {
    assert(false, f"quant.convert: {len(missing)} observed layer(s) never saw a calibration batch ({', '.join(missing)}): " +
                  "run batches through the prepared model (quant.calibrate(prepared, batches)) before convert")
  }
  let m = model if inplace else deepcopy(model)
  let r = swap_modules(m, fn(l) = _convert_module(l, reduce_range))
  r.eval()
  return r
}

# A QATLinear's int8 module: its weight fake quantization's observer gives the scales
# (it saw the weight at every training step; one more look at the final weight).
fn _convert_qat_linear(l, reduce_range) {
  let observer = l.weight_fake_quant.activation_post_process
  return _dynamic_linear_from(l.weight, l.bias, observer, reduce_range)
}

# Post-training static quantization in one call (PyTorch's quantize, eager mode): a
# copy of `model` with batch norms folded into their convs (fuse_conv_bn), prepared
# with qconfig, calibrated on calibration_batches (tensors or (input, target) pairs:
# a few batches of training data), and converted to int8.
fn quantize_static(model, calibration_batches, qconfig=default_qconfig) {
  """Post-training static quantization in one call: fuse_conv_bn, prepare with qconfig, calibrate on
  calibration_batches and convert, as torch.ao.quantization.quantize.

  Example: quant.quantize_static(nn.Sequential([nn.Linear(8, 4)]), [randn(16, 8)])(randn(2, 8))
  """
  _checked_model("quant.quantize_static()", model)
  let prepared = prepare(fuse_conv_bn(model), qconfig, inplace=true)
  calibrate(prepared, calibration_batches)
  return convert(prepared, inplace=true)
}

# After loading a state into a statically quantized model (load(path, into=model) or
# model.load_state_dict(d)), makes each quantized layer's forward use the loaded input
# scale and zero point (forward reads plain numbers, the state holds them in
# input_qparams). Returns the model.
fn sync_input_qparams(model) {
  """Makes each quantized layer's forward use the input scale and zero point of a state just loaded
  into the model; returns the model.

  Example: quant.sync_input_qparams(quant.quantize_static(nn.Sequential([nn.Linear(8, 4)]), [randn(16, 8)]))
  """
  _checked_model("quant.sync_input_qparams()", model)
  for m in model.modules() {
    if isinstance(m, QuantizedLinear) or isinstance(m, QuantizedConv2d) {
      let (s, z) = m.input_qparams.tolist()
      m.input_scale = s
      m.input_zero_point = int(z)
    }
  }
  return model
}

fn model_size_bytes(model) {
  """The bytes of a model's parameters and buffers as stored, what quantization shrinks.

  Example: quant.model_size_bytes(nn.Linear(8, 4))
  """
  _checked_model("quant.model_size_bytes()", model)
  let n = 0
  let sd = model.state_dict()
  for k in sd { n = n + sd[k].numel() * sd[k].dtype.itemsize }
  return n
}
