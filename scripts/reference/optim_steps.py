"""Reference cases of the optimizer-step rows adam_step_ and sgd_step_ (autograd/ops/optim.cpp).

They write their inputs and return nothing, so each case lists the inputs it writes
(`updated`) and the sweep compares those, after the call, with what PyTorch 1.13's
own single-tensor steps (torch.optim.adam.adam, adamw.adamw, sgd.sgd) leave in the
same tensors. The step count is a 0-dim f64 tensor (PyTorch's state["step"]), the
hyperparameters an f64 tensor read by the kernel (Adam's [lr, beta1, beta2, eps,
weight_decay], SGD's [lr, momentum, dampening, weight_decay]; without a momentum
buffer SGD takes no momentum); a nonzero found_inf (0-dim f32) skips the step: nothing
changes, the count included. Not differentiable; the written inputs of the cases are
contiguous, so no layout rerun."""
import torch
import torch.optim.adam as adam_mod
import torch.optim.adamw as adamw_mod
import torch.optim.sgd as sgd_mod
from lib import case, randn, rand


def f64(v):
    return torch.tensor(v, dtype=torch.float64)


def adam_reference(decoupled):
    """PyTorch's Adam (or AdamW) step on the given tensors, in place."""
    step_fn = adamw_mod.adamw if decoupled else adam_mod.adam

    def run(p, g, m, v, step, hyper, found_inf=None):
        if found_inf is not None and found_inf.item() != 0:
            return ()
        lr, beta1, beta2, eps, weight_decay = hyper.tolist()
        step_fn([p], [g], [m], [v], [], [step], amsgrad=False, beta1=beta1, beta2=beta2, lr=lr,
                weight_decay=weight_decay, eps=eps, maximize=False)
        return ()
    return run


def sgd_reference(nesterov):
    """PyTorch's SGD step in place; step 0: the momentum buffer is not there yet."""
    def run(p, g, buf, step, hyper, found_inf=None):
        if found_inf is not None and found_inf.item() != 0:
            return ()
        lr, momentum, dampening, weight_decay = hyper.tolist()
        if buf is None:
            momentum = 0.0
        bufs = [None if momentum == 0 or step is None or step.item() == 0 else buf]
        sgd_mod.sgd([p], [g], bufs, weight_decay=weight_decay, momentum=momentum, lr=lr,
                    dampening=dampening, nesterov=nesterov, maximize=False)
        if momentum != 0:
            buf.copy_(bufs[0])
        if step is not None:
            step += 1
        return ()
    return run


def adam_case(name, shape, decoupled=False, beta1=0.9, beta2=0.999, eps=1e-8, weight_decay=0.0, step=0.0,
              found_inf=None, dtype=torch.float64):
    inputs = [randn(*shape, dtype=dtype), randn(*shape, dtype=dtype), 0.1 * randn(*shape, dtype=dtype),
              rand(*shape, low=0.01, high=0.2, dtype=dtype), f64(step), f64([0.01, beta1, beta2, eps, weight_decay]),
              found_inf]
    rtol = 1e-7 if dtype == torch.float64 else 1e-6
    return case("adam_step_", inputs, {"decoupled": decoupled}, adam_reference(decoupled),
                name=name, grad=[], layouts=False, updated=[0, 2, 3, 4], rtol=rtol, atol=1e-12)


def sgd_case(name, shape, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False, step=0.0,
             found_inf=None, dtype=torch.float64):
    with_momentum = momentum != 0
    inputs = [randn(*shape, dtype=dtype), randn(*shape, dtype=dtype),
              randn(*shape, dtype=dtype) if with_momentum else None, f64(step) if with_momentum else None,
              f64([0.05, momentum, dampening, weight_decay]), found_inf]
    written = [0, 2, 3] if with_momentum else [0]
    return case("sgd_step_", inputs, {"nesterov": nesterov}, sgd_reference(nesterov),
                name=name, grad=[], layouts=False, updated=written, atol=1e-12)


CASES = [
    adam_case("adam_step_first", [3, 4]),
    adam_case("adam_step_later", [5], step=6.0, beta1=0.8, beta2=0.99, eps=1e-6),
    adam_case("adam_step_l2", [2, 3], step=2.0, weight_decay=0.1),
    adam_case("adam_step_decoupled", [2, 3], step=3.0, weight_decay=0.1, decoupled=True),
    adam_case("adam_step_f32", [4, 3], step=1.0, weight_decay=0.01, dtype=torch.float32),
    adam_case("adam_step_found_inf", [3], step=4.0, found_inf=torch.tensor(1.0)),
    adam_case("adam_step_found_none", [3], step=4.0, found_inf=torch.tensor(0.0)),
    adam_case("adam_step_empty", [0, 3]),
    sgd_case("sgd_step_plain", [3, 2]),
    sgd_case("sgd_step_momentum_first", [4], momentum=0.9, dampening=0.1),
    sgd_case("sgd_step_momentum_later", [4], momentum=0.9, dampening=0.1, weight_decay=0.01, step=3.0),
    sgd_case("sgd_step_nesterov", [2, 2], momentum=0.9, nesterov=True, step=2.0),
    sgd_case("sgd_step_f32", [5], momentum=0.5, weight_decay=0.1, step=1.0, dtype=torch.float32),
    sgd_case("sgd_step_found_inf", [3], momentum=0.9, step=2.0, found_inf=torch.tensor(2.0)),
]
