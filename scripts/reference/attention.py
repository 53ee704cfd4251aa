"""Reference cases of scaled_dot_product_attention (attention.cpp).

PyTorch 1.13 has no torch.nn.functional.scaled_dot_product_attention, so the
expected values are computed by hand: softmax(q k^T * scale + mask) v, with the
mask -inf above the top-left aligned diagonal when is_causal (query i sees keys
j <= i, as PyTorch 2's tril(ones(L, S)))."""
import math

import torch
from lib import case, randn


def sdpa(q, k, v, is_causal=False, scale=None):
    if scale is None:
        scale = 1.0 / math.sqrt(q.shape[-1])
    s = q @ k.transpose(-1, -2) * scale
    if is_causal:
        L, S = q.shape[-2], k.shape[-2]
        keep = torch.ones(L, S, dtype=torch.bool).tril()
        s = s.masked_fill(~keep, float("-inf"))
    return s.softmax(-1) @ v


def attn_case(name, qs, ks, vs, is_causal=False, scale=None, dtype=torch.float64, **kw):
    attrs = {"is_causal": is_causal, "scale": scale}
    return case("scaled_dot_product_attention", [randn(*qs, dtype=dtype), randn(*ks, dtype=dtype),
                                                 randn(*vs, dtype=dtype)], attrs,
                lambda q, k, v: sdpa(q, k, v, is_causal, scale), name=name, **kw)


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
]
