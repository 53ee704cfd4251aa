"""Writes layer_options.safetensors for tests/stdlib/test_nn_layer_options.dsl: PyTorch's
layers with the arguments users pass beyond the basics, each as its state_dict under
PyTorch's keys prefixed by the case name, its inputs, an upstream gradient g, and
PyTorch's outputs and gradients (of sum(output * g)), and the buffers the forward moved
(<case>.after.<key>):

- convolutions with padding "same" and "valid", padding_mode reflect, replicate and
  circular, inputs without a batch dim, ConvTranspose's output_size;
- LSTM with proj_size; TransformerEncoder, TransformerDecoder and Transformer stacks
  with masks;
- Embedding with padding_idx; BatchNorm3d; the activations GELU(approximate="tanh"),
  ReLU6, Hardsigmoid, SELU, CELU, PReLU, GLU, Softmin, Softsign, Hardshrink,
  Softshrink, Tanhshrink, LogSigmoid, Threshold;
- adaptive pools with a None size, AdaptiveMaxPool1d, max pools' indices and
  MaxUnpool1d/2d; the 3-D pools, MaxUnpool3d and ConvTranspose3d; PixelShuffle, PixelUnshuffle, Unflatten, the 1-D and 3-D pads,
  UpsamplingNearest2d and UpsamplingBilinear2d;
- Bilinear, EmbeddingBag, Embedding with max_norm, Softmax2d, ChannelShuffle,
  AlphaDropout and FeatureAlphaDropout (lookup_and_shuffle_cases below).

    /usr/bin/python3 tests/stdlib/reference/make_layer_options.py

The file is written by scripts/reference/safetensors_file.py (there is no safetensors
package here).
"""
import pathlib
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, str(pathlib.Path(__file__).parents[3] / "scripts" / "reference"))
from safetensors_file import write_safetensors  # noqa: E402

OUT = pathlib.Path(__file__).with_name("layer_options.safetensors")


def fn(f):
    """A function case for record: call(None, *inputs) = f(*inputs)."""
    return lambda _, *xs: f(*xs)


def record(out, name, layer, inputs, call=None):
    """Runs layer (or call(layer, *inputs)) on inputs; saves its state_dict (after the
    call for a lazy layer, whose parameters the call makes), the inputs, g and the
    outputs, and the gradients of sum(output * g) with respect to each floating input
    (grad_x0, ...) and each parameter (grad.<key>). make_nn_extra.py uses it too."""
    inputs = [t.clone().requires_grad_(t.is_floating_point()) for t in inputs]
    lazy = layer is not None and isinstance(layer, nn.modules.lazy.LazyModuleMixin)
    before = {k: t.clone() for k, t in layer.state_dict().items()} if layer is not None and not lazy else {}
    result = call(layer, *inputs) if call else layer(*inputs)
    if lazy:
        before = {k: t.clone() for k, t in layer.state_dict().items()}
    outputs = list(result) if isinstance(result, (tuple, list)) else [result]
    outputs = [o for o in outputs if o is not None]
    flat = []
    for o in outputs:
        flat.extend(o if isinstance(o, (tuple, list)) else [o])
    for key, t in before.items():
        out[f"{name}.{key}"] = t
        if not lazy and not torch.equal(t, layer.state_dict()[key]):  # a buffer the forward moved
            out[f"{name}.after.{key}"] = layer.state_dict()[key].clone()
    for k, t in enumerate(inputs):
        out[f"{name}.x{k}"] = t.detach()
    for k, o in enumerate(flat):
        out[f"{name}.y{k}"] = o.detach()
    y = flat[0]
    if not y.is_floating_point() or not y.requires_grad:
        return
    g = torch.randn(y.shape)
    out[f"{name}.g"] = g
    params = list(layer.named_parameters()) if layer is not None else []
    wrt = [t for t in inputs if t.requires_grad] + [p for _, p in params]
    grads = torch.autograd.grad(y, wrt, g, allow_unused=True)
    floats = [k for k, t in enumerate(inputs) if t.requires_grad]
    for k, grad in zip(floats, grads):
        if grad is not None:
            out[f"{name}.grad_x{k}"] = grad
    for (key, _), grad in zip(params, grads[len(floats):]):
        if grad is not None:
            out[f"{name}.grad.{key}"] = grad


def cases():
    torch.manual_seed(0)
    out = {}
    r = torch.randn
    # ---- convolutions
    record(out, "conv2d_same_reflect", nn.Conv2d(3, 4, (3, 4), padding="same", padding_mode="reflect",
                                                 dilation=(1, 2)), [r(2, 3, 7, 8)])
    record(out, "conv1d_same_circular", nn.Conv1d(2, 3, 4, padding="same", padding_mode="circular"), [r(2, 2, 9)])
    record(out, "conv2d_replicate", nn.Conv2d(2, 3, 3, stride=2, padding=(1, 2), padding_mode="replicate"),
           [r(1, 2, 7, 6)])
    record(out, "conv3d_valid_unbatched", nn.Conv3d(2, 2, 2, padding="valid"), [r(2, 4, 4, 4)])
    record(out, "conv2d_unbatched", nn.Conv2d(3, 2, 3, padding=1), [r(3, 5, 5)])
    record(out, "conv1d_same_even", nn.Conv1d(2, 2, 4, padding="same", dilation=1, bias=False), [r(1, 2, 7)])
    record(out, "conv_transpose2d_output_size", nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1), [r(1, 3, 5, 5)],
           lambda m, x: m(x, output_size=[10, 9]))
    record(out, "conv_transpose1d_unbatched", nn.ConvTranspose1d(2, 3, 4, stride=3), [r(2, 5)],
           lambda m, x: m(x, output_size=[17]))
    # ---- recurrent and transformer stacks
    record(out, "lstm_proj", nn.LSTM(4, 6, num_layers=2, proj_size=3, bidirectional=True, batch_first=True),
           [r(2, 5, 4), r(4, 2, 3), r(4, 2, 6)], lambda m, x, h, c: m(x, (h, c)))
    pad_mask = torch.tensor([[False, False, False, True, True], [False, False, False, False, False]])
    out["pad_mask"] = pad_mask
    causal = nn.Transformer.generate_square_subsequent_mask(5)
    out["causal_mask"] = causal
    encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True), 2,
                                    norm=nn.LayerNorm(8))
    record(out, "transformer_encoder", encoder, [r(2, 5, 8)],
           lambda m, x: m(x, mask=causal, src_key_padding_mask=pad_mask))
    decoder = nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, activation="gelu",
                                                               norm_first=True), 2)
    record(out, "transformer_decoder", decoder, [r(5, 2, 8), r(7, 2, 8)],
           lambda m, x, mem: m(x, mem, tgt_mask=causal))
    transformer = nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=2, dim_feedforward=16,
                                 dropout=0.0, batch_first=True)
    record(out, "transformer", transformer, [r(2, 6, 8), r(2, 5, 8)],
           lambda m, src, tgt: m(src, tgt, tgt_mask=causal, src_key_padding_mask=torch.zeros(2, 6, dtype=torch.bool)))
    # ---- embedding, batch norm, activations
    emb = nn.Embedding(6, 3, padding_idx=2)
    with torch.no_grad():
        emb.weight[2] = 1.0  # a padding row that is not zero: read as it is, never trained
    record(out, "embedding_padding", emb, [torch.tensor([[2, 0, 5], [2, 2, 1]])])
    record(out, "batch_norm3d", nn.BatchNorm3d(3), [r(2, 3, 2, 3, 2)])
    x = r(2, 3, 4) * 3
    for name, layer in [("gelu_tanh", nn.GELU(approximate="tanh")), ("relu6", nn.ReLU6()),
                        ("hardsigmoid", nn.Hardsigmoid()), ("selu", nn.SELU()), ("celu", nn.CELU(0.5)),
                        ("prelu", nn.PReLU(3, init=0.1)), ("glu", nn.GLU(dim=1)), ("softmin", nn.Softmin(dim=2)),
                        ("softsign", nn.Softsign()), ("hardshrink", nn.Hardshrink(0.7)),
                        ("softshrink", nn.Softshrink(0.7)), ("tanhshrink", nn.Tanhshrink()),
                        ("logsigmoid", nn.LogSigmoid()), ("threshold", nn.Threshold(0.3, -2.0))]:
        record(out, name, layer, [x[:, :2] if name == "glu" else x])
    # ---- pools and shapes
    record(out, "adaptive_avg_none", nn.AdaptiveAvgPool2d((None, 3)), [r(2, 3, 5, 7)])
    record(out, "adaptive_max1d", nn.AdaptiveMaxPool1d(3, return_indices=True), [r(2, 3, 8)])
    pool = nn.MaxPool2d(2, stride=2, return_indices=True)
    record(out, "max_unpool2d", nn.MaxUnpool2d(2, stride=2), [r(1, 2, 5, 5)],
           lambda m, x: m(*pool(x), output_size=[5, 5]))
    pool1 = nn.MaxPool1d(3, stride=2, padding=1, return_indices=True)
    record(out, "max_unpool1d", nn.MaxUnpool1d(3, stride=2, padding=1), [r(2, 2, 9)], lambda m, x: m(*pool1(x)))
    # ---- volumes: 3-D pools and ConvTranspose3d
    record(out, "max_pool3d", nn.MaxPool3d((2, 3, 2), stride=(1, 2, 2), padding=1, ceil_mode=True, return_indices=True),
           [r(2, 3, 4, 6, 5)])
    record(out, "avg_pool3d", nn.AvgPool3d(3, stride=2, padding=1, count_include_pad=False), [r(1, 2, 5, 6, 7)])
    record(out, "adaptive_avg3d", nn.AdaptiveAvgPool3d((2, None, 3)), [r(2, 3, 5, 4, 7)])
    record(out, "adaptive_max3d", nn.AdaptiveMaxPool3d(2, return_indices=True), [r(1, 2, 5, 6, 7)])
    pool3 = nn.MaxPool3d(2, stride=2, return_indices=True)
    record(out, "max_unpool3d", nn.MaxUnpool3d(2, stride=2), [r(1, 2, 4, 5, 4)],
           lambda m, x: m(*pool3(x), output_size=[4, 5, 4]))
    record(out, "conv_transpose3d", nn.ConvTranspose3d(4, 6, (3, 2, 3), stride=2, padding=(1, 0, 1), groups=2),
           [r(2, 4, 3, 4, 3)], lambda m, x: m(x, output_size=[6, 8, 6]))
    record(out, "conv_transpose3d_unbatched", nn.ConvTranspose3d(2, 3, 2, dilation=2, bias=False), [r(2, 3, 3, 2)])
    # ---- losses with class weights and pos_weight (buffers in the state_dict)
    record(out, "cross_entropy_weighted", nn.CrossEntropyLoss(weight=torch.tensor([1.0, 3.0, 0.5]), label_smoothing=0.1),
           [r(5, 3), torch.tensor([0, 1, 2, 1, 0])])
    record(out, "bce_logits_pos_weight", nn.BCEWithLogitsLoss(pos_weight=torch.tensor([2.0, 0.5])),
           [r(3, 2), torch.rand(3, 2)])
    record(out, "pixel_shuffle", nn.PixelShuffle(2), [r(2, 8, 3, 2)])
    record(out, "pixel_unshuffle", nn.PixelUnshuffle(2), [r(1, 2, 4, 6)])
    record(out, "unflatten", nn.Unflatten(1, (2, -1)), [r(3, 6, 2)])
    record(out, "reflection_pad1d", nn.ReflectionPad1d((3, 1)), [r(2, 3, 5)])
    record(out, "replication_pad3d", nn.ReplicationPad3d((1, 0, 2, 1, 0, 1)), [r(1, 2, 2, 3, 2)])
    record(out, "constant_pad3d", nn.ConstantPad3d(1, 2.5), [r(1, 1, 2, 2, 2)])
    record(out, "circular_pad2d", None, [r(1, 2, 3, 4)], lambda m, x: F.pad(x, (2, 1, 1, 2), mode="circular"))
    record(out, "upsampling_bilinear", nn.UpsamplingBilinear2d(scale_factor=2), [r(1, 2, 3, 4)])
    record(out, "upsampling_nearest", nn.UpsamplingNearest2d(size=(5, 7)), [r(1, 2, 3, 4)])
    lookup_and_shuffle_cases(out)
    return out


def lookup_and_shuffle_cases(out):
    """Bilinear, EmbeddingBag (every mode, 2-D inputs and offsets, per_sample_weights,
    padding_idx, include_last_offset, max_norm), Embedding's max_norm (the weight it
    renormalizes in place is saved as <case>.after.weight), Softmax2d, ChannelShuffle,
    AlphaDropout and FeatureAlphaDropout (eval: the identity; training: the constants of
    their affine map, alpha_dropout.consts = [a, b, c], kept units a * x + b, dropped ones
    c, read off PyTorch's outputs on zeros and ones)."""
    r = torch.randn
    record(out, "bilinear", nn.Bilinear(4, 3, 5), [r(2, 6, 4), r(2, 6, 3)])
    record(out, "bilinear_no_bias", nn.Bilinear(3, 2, 4, bias=False), [r(5, 3), r(5, 2)])
    idx = torch.tensor([1, 2, 4, 5, 4, 3, 2, 0, 9, 9])
    offsets = torch.tensor([0, 3, 3, 8])  # bags [1 2 4], [], [5 4 3 2 0], [9 9]
    record(out, "embedding_bag_sum_2d", nn.EmbeddingBag(10, 3, mode="sum"), [torch.tensor([[1, 2, 4], [5, 4, 4], [0, 9, 3]])])
    record(out, "embedding_bag_mean_offsets", nn.EmbeddingBag(10, 3), [idx, offsets], lambda m, x, o: m(x, o))
    record(out, "embedding_bag_max_offsets", nn.EmbeddingBag(10, 3, mode="max"), [idx, offsets], lambda m, x, o: m(x, o))
    record(out, "embedding_bag_sum_weighted", nn.EmbeddingBag(10, 3, mode="sum"), [idx, offsets, r(10)],
           lambda m, x, o, w: m(x, o, per_sample_weights=w))
    record(out, "embedding_bag_mean_padding", nn.EmbeddingBag(10, 3, padding_idx=2),
           [torch.tensor([[1, 2, 4], [2, 2, 2], [0, 9, 2]])])
    record(out, "embedding_bag_max_padding", nn.EmbeddingBag(10, 3, mode="max", padding_idx=-1), [idx, offsets],
           lambda m, x, o: m(x, o))
    record(out, "embedding_bag_last_offset", nn.EmbeddingBag(10, 3, mode="sum", include_last_offset=True),
           [idx[:8], torch.tensor([0, 2, 2, 5, 8])], lambda m, x, o: m(x, o))
    # A 2-D input with include_last_offset: B - 1 bags. Only "sum" here: PyTorch 1.13's
    # "mean" reads past its buffers on this path and "max" corrupts the heap.
    record(out, "embedding_bag_last_offset_2d", nn.EmbeddingBag(10, 3, mode="sum", include_last_offset=True),
           [torch.tensor([[1, 2], [3, 4], [0, 5]])])
    record(out, "embedding_bag_max_norm", nn.EmbeddingBag(10, 3, max_norm=1.0, mode="sum"), [idx, offsets],
           lambda m, x, o: m(x, o))
    record(out, "embedding_max_norm", nn.Embedding(8, 4, max_norm=1.5), [torch.tensor([[1, 3, 3], [0, 7, 1]])])
    record(out, "embedding_max_norm_l1", nn.Embedding(8, 4, max_norm=2.0, norm_type=1.0), [torch.tensor([5, 2, 6, 2])])
    record(out, "softmax2d", nn.Softmax2d(), [r(2, 3, 4, 5)])
    record(out, "softmax2d_unbatched", nn.Softmax2d(), [r(3, 2, 2)])
    # PyTorch 1.13 has no derivative for channel_shuffle: the values only.
    record(out, "channel_shuffle", nn.ChannelShuffle(3), [r(2, 6, 2, 3)], lambda m, x: m(x.detach()))
    record(out, "channel_shuffle_1d", nn.ChannelShuffle(2), [r(2, 4, 5)], lambda m, x: m(x.detach()))
    record(out, "alpha_dropout_eval", nn.AlphaDropout(0.3).eval(), [r(4, 5)])
    record(out, "feature_alpha_dropout_eval", nn.FeatureAlphaDropout(0.3).eval(), [r(2, 3, 4)])
    zeros = F.alpha_dropout(torch.zeros(4096), 0.3, True)
    ones = F.alpha_dropout(torch.ones(4096), 0.3, True)
    out["alpha_dropout.consts"] = torch.stack([ones.max() - zeros.max(), zeros.max(), zeros.min()])


if __name__ == "__main__":
    write_safetensors(OUT, cases())
    print(f"{OUT}: {OUT.stat().st_size} bytes")
