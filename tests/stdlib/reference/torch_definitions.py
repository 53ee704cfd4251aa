"""Functions of PyTorch releases after 1.13, written by their definition in 1.13's ops,
for the generators that need them as references."""
import math

import torch


def sdpa(q, k, v, mask=None, is_causal=False, scale=None):
    """scaled_dot_product_attention (PyTorch >= 2.0, dropout_p=0): softmax(q k^T * scale
    + mask) v, a bool mask keeping where it is true, is_causal keeping the lower triangle."""
    L, S = q.shape[-2], k.shape[-2]
    s = q @ k.transpose(-2, -1) * (1.0 / math.sqrt(q.shape[-1]) if scale is None else scale)
    if is_causal:
        s = s.masked_fill(~torch.ones(L, S, dtype=torch.bool).tril(), float("-inf"))
    if mask is not None:
        s = s.masked_fill(~mask, float("-inf")) if mask.dtype == torch.bool else s + mask
    return torch.softmax(s, -1) @ v
