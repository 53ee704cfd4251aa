"""Reference cases of scaled_dot_product_attention (attention.cpp).

PyTorch 1.13 has no torch.nn.functional.scaled_dot_product_attention, so the
expected values are computed by hand: softmax(q k^T * scale + mask) v, with the
mask -inf above the top-left aligned diagonal when is_causal (query i sees keys
j <= i, as PyTorch 2's tril(ones(L, S))), a bool attn_mask (true: attend) as -inf
where false, a float one added, and grouped-query attention as the key and value
heads repeat_interleave'd up to the query's (PyTorch 2.5's enable_gqa). The second
output is the dropout keep-mask (empty without dropout); dropout cases are
gradchecked only (the sweep reseeds the generator, so the mask is fixed there)."""
import math

import torch
from lib import case, randn


def sdpa(q, k, v, mask=None, is_causal=False, scale=None, enable_gqa=False):
    if scale is None:
        scale = 1.0 / math.sqrt(q.shape[-1])
    if enable_gqa:
        groups = q.shape[-3] // k.shape[-3]
        k, v = k.repeat_interleave(groups, -3), v.repeat_interleave(groups, -3)
    s = q @ k.transpose(-1, -2) * scale
    if is_causal:
        L, S = q.shape[-2], k.shape[-2]
        keep = torch.ones(L, S, dtype=torch.bool).tril()
        s = s.masked_fill(~keep, float("-inf"))
    if mask is not None:
        s = s.masked_fill(~mask, float("-inf")) if mask.dtype == torch.bool else s + mask
    return s.softmax(-1) @ v, torch.zeros(0, dtype=torch.bool)


def attn_case(name, qs, ks, vs, is_causal=False, scale=None, dtype=torch.float64, mask=None, dropout_p=0.0,
              enable_gqa=False, **kw):
    attrs = {"dropout_p": dropout_p, "is_causal": is_causal, "scale": scale, "enable_gqa": enable_gqa}
    inputs = [randn(*qs, dtype=dtype), randn(*ks, dtype=dtype), randn(*vs, dtype=dtype), mask]
    if mask is not None and mask.dtype != torch.bool and "grad" not in kw:
        kw["grad"] = [0, 1, 2, 3]
    if dropout_p > 0:
        kw["forward"] = False
    return case("scaled_dot_product_attention", inputs, attrs,
                lambda q, k, v, m: sdpa(q, k, v, m, is_causal, scale, enable_gqa), name=name, **kw)


def bool_mask(*shape):
    """A random bool mask whose first key is always visible, so no row is all -inf."""
    m = randn(*shape) > 0
    m[..., 0] = True
    return m


CASES = [
    attn_case("sdpa", (2, 4, 3), (2, 5, 3), (2, 5, 2)),
    attn_case("sdpa_causal", (2, 5, 4), (2, 5, 4), (2, 5, 3), is_causal=True),
    attn_case("sdpa_causal_rect", (2, 3, 2), (2, 5, 2), (2, 5, 4), is_causal=True),
    attn_case("sdpa_causal_tall", (2, 5, 3), (2, 3, 3), (2, 3, 2), is_causal=True),
    attn_case("sdpa_scale", (2, 4, 4), (2, 4, 4), (2, 4, 4), scale=0.3),
    attn_case("sdpa_causal_scale", (2, 4, 3), (2, 4, 3), (2, 4, 3), is_causal=True, scale=1.7),
    attn_case("sdpa_broadcast", (2, 2, 3, 4), (1, 5, 4), (2, 1, 5, 3)),
    attn_case("sdpa_no_batch", (4, 3), (5, 3), (5, 2), is_causal=True),
    attn_case("sdpa_f32", (2, 4, 3), (2, 5, 3), (2, 5, 2), is_causal=True, dtype=torch.float32, grad=[],
              atol=1e-6, rtol=1e-5),
    # attn_mask: bool over [L, S], a key-padding style [B, 1, 1, S], per head [B, H, L, S]
    attn_case("sdpa_bool_mask", (2, 4, 3), (2, 5, 3), (2, 5, 2), mask=bool_mask(4, 5)),
    attn_case("sdpa_bool_mask_padding", (2, 2, 3, 4), (2, 2, 5, 4), (2, 2, 5, 3), mask=bool_mask(2, 1, 1, 5)),
    attn_case("sdpa_bool_mask_heads", (2, 2, 3, 2), (2, 2, 4, 2), (2, 2, 4, 2), mask=bool_mask(2, 2, 3, 4)),
    attn_case("sdpa_float_mask", (2, 4, 3), (2, 5, 3), (2, 5, 2), mask=randn(4, 5)),
    attn_case("sdpa_float_mask_heads", (2, 2, 3, 4), (2, 2, 5, 4), (2, 2, 5, 3), mask=randn(1, 2, 3, 5)),
    attn_case("sdpa_float_mask_row", (3, 4), (5, 4), (5, 2), mask=randn(5)),
    # grouped-query attention: 4 query heads on 2 (and 1) key/value heads
    attn_case("sdpa_gqa", (2, 4, 3, 4), (2, 2, 5, 4), (2, 2, 5, 3), enable_gqa=True),
    attn_case("sdpa_gqa_causal", (1, 4, 5, 2), (1, 1, 5, 2), (1, 1, 5, 3), enable_gqa=True, is_causal=True),
    attn_case("sdpa_gqa_mask", (2, 4, 3, 2), (2, 2, 4, 2), (2, 2, 4, 2), enable_gqa=True, mask=bool_mask(2, 4, 3, 4)),
    attn_case("sdpa_gqa_float_mask", (2, 4, 3, 2), (2, 2, 4, 2), (2, 2, 4, 2), enable_gqa=True, mask=randn(2, 1, 3, 4)),
    # dropout on the weights (gradchecked with the sweep's fixed mask)
    attn_case("sdpa_dropout", (2, 4, 3), (2, 5, 3), (2, 5, 2), dropout_p=0.3),
    attn_case("sdpa_dropout_mask", (2, 2, 4, 3), (2, 2, 4, 3), (2, 2, 4, 2), dropout_p=0.5,
              mask=randn(4, 4)),
]
