"""Writes gaps.safetensors for tests/stdlib/test_nn_gaps.dsl: PyTorch's InstanceNorm1d,
InstanceNorm2d and InstanceNorm3d (affine and tracked running statistics: outputs and
running statistics after two training steps, then the output in eval) and
MultiheadAttention with kdim and vdim (separate q/k/v projection weights), with
add_zero_attn and bias=False, and with add_bias_kv, each as its state_dict under PyTorch's keys
prefixed by the case name, its inputs and PyTorch's outputs.

    /usr/bin/python3 tests/stdlib/reference/make_gaps.py

The file is written by scripts/reference/safetensors_file.py (there is no safetensors
package here).
"""
import pathlib
import sys

import torch
import torch.nn as nn

sys.path.insert(0, str(pathlib.Path(__file__).parents[3] / "scripts" / "reference"))
from safetensors_file import write_safetensors  # noqa: E402

OUT = pathlib.Path(__file__).with_name("gaps.safetensors")


def randomize(m):
    """Random affine parameters and running statistics (variances positive)."""
    with torch.no_grad():
        for name, p in list(m.named_parameters()) + list(m.named_buffers()):
            if name == "num_batches_tracked":
                continue
            p.copy_(torch.rand_like(p) + 0.5 if name == "running_var" else torch.randn_like(p) * 0.5)


def instance_norm_case(put, name, module, shape):
    """The state_dict before training, two training steps (outputs and the running
    statistics after them), then eval's output."""
    randomize(module)
    put(name, module)
    x1, x2 = torch.randn(*shape) * 2 + 0.5, torch.randn(*shape) - 0.3
    with torch.no_grad():
        module.train()
        y1, y2 = module(x1), module(x2)
        after = {f"after.{k}": v.clone() for k, v in module.state_dict().items()}
        module.eval()
        y_eval = module(x1)
    put(name, None, x1=x1, x2=x2, y1=y1, y2=y2, y_eval=y_eval, **after)


def cases():
    torch.manual_seed(38)
    t = {}

    def put(name, module, **tensors):
        if module is not None:
            for k, v in module.state_dict().items():
                t[f"{name}.{k}"] = v.clone()  # as it is now: training moves the buffers in place
        for k, v in tensors.items():
            t[f"{name}.{k}"] = v

    instance_norm_case(put, "in1d", nn.InstanceNorm1d(4, momentum=0.2, affine=True, track_running_stats=True),
                       (3, 4, 7))
    instance_norm_case(put, "in2d", nn.InstanceNorm2d(3, track_running_stats=True), (2, 3, 5, 4))
    instance_norm_case(put, "in3d", nn.InstanceNorm3d(2, eps=1e-3, affine=True), (2, 2, 3, 4, 5))

    mha = nn.MultiheadAttention(8, 2, kdim=5, vdim=3, batch_first=True).eval()
    randomize(mha)
    q, k, v = torch.randn(3, 4, 8), torch.randn(3, 6, 5), torch.randn(3, 6, 3)
    kpm = torch.zeros(3, 6, dtype=torch.bool)
    kpm[1, 4:] = True
    out, w = mha(q, k, v, key_padding_mask=kpm)
    out_n, _ = mha(q, k, v, need_weights=False)
    put("mha_kv", mha, query=q, key=k, value=v, key_padding_mask=kpm, out=out, weights=w, out_no_weights=out_n)

    zero = nn.MultiheadAttention(6, 3, kdim=4, vdim=4, bias=False, add_zero_attn=True).eval()
    randomize(zero)
    xq, xk = torch.randn(5, 2, 6), torch.randn(7, 2, 4)  # [L, B, E], [S, B, kdim]
    am = torch.rand(5, 7) > 0.6
    kpm2 = torch.zeros(2, 7, dtype=torch.bool)
    kpm2[0, 5:] = True
    out_z, w_z = zero(xq, xk, xk, attn_mask=am, key_padding_mask=kpm2, average_attn_weights=False)
    put("mha_zero", zero, query=xq, key=xk, attn_mask=am, key_padding_mask=kpm2, out=out_z, weights=w_z)

    both = nn.MultiheadAttention(8, 4, add_bias_kv=True, add_zero_attn=True, batch_first=True).eval()
    randomize(both)
    bq, bk = torch.randn(2, 3, 8), torch.randn(2, 5, 8)
    fam = torch.randn(3, 5)
    out_b, w_b = both(bq, bk, bk, attn_mask=fam)
    put("mha_bias_kv", both, query=bq, key=bk, float_mask=fam, out=out_b, weights=w_b)
    return t


def main():
    tensors = cases()
    write_safetensors(OUT, tensors)
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes): {', '.join(tensors)}")


if __name__ == "__main__":
    main()
