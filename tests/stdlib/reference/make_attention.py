"""Writes attention.safetensors: PyTorch's MultiheadAttention (batch-first and
sequence-first, with bool and float attn_mask, key_padding_mask, need_weights and
per-head weights), TransformerEncoderLayer (post- and pre-norm, relu and gelu, masks)
and TransformerDecoderLayer, each as its state_dict under PyTorch's keys prefixed by
the case name, its inputs and PyTorch's outputs, for tests/stdlib/test_nn_transformer.dsl.

    /usr/bin/python3 tests/stdlib/reference/make_attention.py

Layers run in eval mode (no dropout) with gradients enabled, so PyTorch takes its
reference path, not the inference fast path.
"""
import pathlib
import sys

import torch
import torch.nn as nn

sys.path.insert(0, str(pathlib.Path(__file__).parents[3] / "scripts" / "reference"))
from safetensors_file import write_safetensors  # noqa: E402

OUT = pathlib.Path(__file__).with_name("attention.safetensors")


def randomize_biases(m):
    with torch.no_grad():
        for name, p in m.named_parameters():
            if name.endswith("bias"):
                p.copy_(torch.randn_like(p) * 0.5)


def padding_mask(batch, length):
    """True where a key is padding: the last positions of each row, never all of them."""
    m = torch.zeros(batch, length, dtype=torch.bool)
    for b in range(batch):
        m[b, length - b - 1:] = b > 0
    return m


def cases():
    torch.manual_seed(0)
    t = {}

    def put(name, module, **tensors):
        for k, v in module.state_dict().items():
            t[f"{name}.{k}"] = v
        for k, v in tensors.items():
            t[f"{name}.{k}"] = v

    mha = nn.MultiheadAttention(8, 2, batch_first=True).eval()
    randomize_biases(mha)
    q, k = torch.randn(3, 5, 8), torch.randn(3, 6, 8)
    kpm = padding_mask(3, 6)
    am = torch.rand(5, 6) > 0.7
    am[:, 0] = False  # every query sees key 0
    fam = torch.randn(5, 6)
    out, w = mha(q, k, k, key_padding_mask=kpm, attn_mask=am)
    out_f, w_f = mha(q, k, k, attn_mask=fam, average_attn_weights=False)
    out_n, _ = mha(q, k, k, key_padding_mask=kpm, need_weights=False)
    am3 = torch.randn(3 * 2, 5, 6)
    out_3, w_3 = mha(q, k, k, attn_mask=am3)
    put("mha", mha, query=q, key=k, key_padding_mask=kpm, attn_mask=am, float_mask=fam, attn_mask3=am3,
        out=out, weights=w, out_float=out_f, weights_float=w_f, out_no_weights=out_n, out_mask3=out_3,
        weights_mask3=w_3)

    seq = nn.MultiheadAttention(6, 3, bias=False).eval()
    x = torch.randn(4, 2, 6)  # [L, B, E]
    causal = nn.Transformer.generate_square_subsequent_mask(4)
    out_s, w_s = seq(x, x, x, attn_mask=causal)
    put("mha_seq", seq, x=x, out=out_s, weights=w_s)

    enc = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0, batch_first=True).eval()
    randomize_biases(enc)
    src = torch.randn(3, 6, 8)
    put("enc", enc, src=src, key_padding_mask=kpm, out=enc(src, src_key_padding_mask=kpm))

    enc_pre = nn.TransformerEncoderLayer(8, 4, dim_feedforward=12, dropout=0.0, activation="gelu",
                                         batch_first=True, norm_first=True).eval()
    randomize_biases(enc_pre)
    causal6 = nn.Transformer.generate_square_subsequent_mask(6)
    put("enc_pre", enc_pre, src=src, out=enc_pre(src, src_mask=causal6))

    dec = nn.TransformerDecoderLayer(8, 2, dim_feedforward=16, dropout=0.0, batch_first=True).eval()
    randomize_biases(dec)
    tgt = torch.randn(3, 5, 8)
    causal5 = nn.Transformer.generate_square_subsequent_mask(5)
    put("dec", dec, tgt=tgt, memory=src, memory_key_padding_mask=kpm,
        out=dec(tgt, src, tgt_mask=causal5, memory_key_padding_mask=kpm))

    dec_pre = nn.TransformerDecoderLayer(8, 2, dim_feedforward=16, dropout=0.0, batch_first=True,
                                         norm_first=True).eval()
    randomize_biases(dec_pre)
    put("dec_pre", dec_pre, out=dec_pre(tgt, src, tgt_mask=causal5))
    return t


if __name__ == "__main__":
    write_safetensors(OUT, cases())
    print(f"{OUT}: {OUT.stat().st_size} bytes")
