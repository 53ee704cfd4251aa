"""How the make_newuser*.py generators store a case: its model's state_dict under
PyTorch's keys and its tensors, each prefixed by the case name, and its parameters'
gradients under NAME.grad.KEY (what the tests' models load and compare)."""
import torch


def put(t, name, module=None, **tensors):
    if module is not None:
        for k, v in module.state_dict().items():
            t[f"{name}.{k}"] = v.clone()  # a later optimizer step must not change what was stored
    for k, v in tensors.items():
        t[f"{name}.{k}"] = v.detach().clone() if isinstance(v, torch.Tensor) else torch.tensor(v)


def put_grads(t, name, module):
    for k, p in module.named_parameters():
        if p.grad is not None:
            t[f"{name}.grad.{k}"] = p.grad.clone()
