#!/usr/bin/env python3
"""Expected parameter trajectories and learning-rate sequences for the `optim` stdlib
module, computed with PyTorch. Writes tests/stdlib/optim/test_reference*.dsl: test blocks that
run the same problem in nabla and compare, with the functions of
tests/stdlib/optim/optim_reference_check.inc (hand-written; its W0 .. BB and the default
step count are this file's).

    /usr/bin/python3 scripts/reference/optim_reference.py

The problem: three f64 parameters W [2,3], b [3], c [2]; the loss
sum(0.5*A*W*W + B*W) + sum(0.5*a*b*b + bb*b) (c takes no part, so its grad stays none
and the optimizer must leave it alone); 5 steps of zero_grad, backward, step (8 for
RAdam, whose rectified step starts at the 6th).

To add a case: a row in CASES (one group), GROUP_CASES (two groups, optionally with a
scheduler stepped after each step), SCHEDS (a scheduler's lr sequence with one group and
with two), COMPOSED (a SequentialLR or ChainedScheduler: its lr sequences as SCHEDS's,
and its state_dict and a resumed run) or CYCLES (a scheduler that also cycles momentum
or beta1: every group's lr and momentum at each epoch); then regenerate the file with
the command above.
"""
import contextlib
import io
import math
import pathlib

import torch

from dsl_test_files import write_test_files

torch.set_default_dtype(torch.float64)

W0 = [[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]]
B0 = [0.3, -0.2, 0.8]
C0 = [1.0, -1.0]
A = [[1.0, 2.0, 0.5], [3.0, 1.5, 0.8]]
BW = [[0.1, -0.3, 0.2], [0.0, 0.4, -0.1]]
AB = [2.0, 0.7, 1.2]
BB = [-0.5, 0.1, 0.3]
STEPS = 5
RADAM_STEPS = 8
RPROP_STEPS = 9   # Rprop: step sizes that overshoot, flip and shrink; ASGD: averaging


def fmt(x):
    if isinstance(x, list):
        return "[" + ", ".join(fmt(v) for v in x) + "]"
    return repr(float(x))


def run(make, sched=None, steps=STEPS):
    W = torch.tensor(W0, requires_grad=True)
    b = torch.tensor(B0, requires_grad=True)
    c = torch.tensor(C0, requires_grad=True)
    opt = make([W, b, c])
    s = sched(opt) if sched else None
    A_, BW_, AB_, BB_ = map(torch.tensor, (A, BW, AB, BB))
    for _ in range(steps):
        opt.zero_grad()
        loss = (0.5 * A_ * W * W + BW_ * W).sum() + (0.5 * AB_ * b * b + BB_ * b).sum()
        loss.backward()
        opt.step()
        if s:
            s.step()
    return W.tolist(), b.tolist(), c.tolist()


CASES = [
    ("SGD lr=0.1", "optim.SGD(ps, lr=0.1)", lambda ps: torch.optim.SGD(ps, lr=0.1)),
    ("SGD momentum", "optim.SGD(ps, lr=0.1, momentum=0.9)",
     lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9)),
    ("SGD nesterov", "optim.SGD(ps, lr=0.1, momentum=0.9, nesterov=true)",
     lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9, nesterov=True)),
    ("SGD momentum dampening weight_decay", "optim.SGD(ps, lr=0.05, momentum=0.8, dampening=0.1, weight_decay=0.01)",
     lambda ps: torch.optim.SGD(ps, lr=0.05, momentum=0.8, dampening=0.1, weight_decay=0.01)),
    ("Adam lr=0.1", "optim.Adam(ps, lr=0.1)", lambda ps: torch.optim.Adam(ps, lr=0.1)),
    ("Adam defaults", "optim.Adam(ps)", lambda ps: torch.optim.Adam(ps)),
    ("Adam betas weight_decay", "optim.Adam(ps, lr=0.05, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1)",
     lambda ps: torch.optim.Adam(ps, lr=0.05, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1)),
    ("Adam amsgrad", "optim.Adam(ps, lr=0.1, amsgrad=true)",
     lambda ps: torch.optim.Adam(ps, lr=0.1, amsgrad=True)),
    ("AdamW lr=0.1", "optim.AdamW(ps, lr=0.1)", lambda ps: torch.optim.AdamW(ps, lr=0.1)),
    ("AdamW weight_decay=0.5", "optim.AdamW(ps, lr=0.1, weight_decay=0.5)",
     lambda ps: torch.optim.AdamW(ps, lr=0.1, weight_decay=0.5)),
    ("RMSprop lr=0.01", "optim.RMSprop(ps, lr=0.01)", lambda ps: torch.optim.RMSprop(ps, lr=0.01)),
    ("RMSprop momentum weight_decay", "optim.RMSprop(ps, lr=0.01, alpha=0.9, momentum=0.9, weight_decay=0.1)",
     lambda ps: torch.optim.RMSprop(ps, lr=0.01, alpha=0.9, momentum=0.9, weight_decay=0.1)),
    ("RMSprop centered", "optim.RMSprop(ps, lr=0.01, centered=true, momentum=0.5)",
     lambda ps: torch.optim.RMSprop(ps, lr=0.01, centered=True, momentum=0.5)),
    ("Adagrad lr=0.1", "optim.Adagrad(ps, lr=0.1)", lambda ps: torch.optim.Adagrad(ps, lr=0.1)),
    ("Adagrad defaults", "optim.Adagrad(ps)", lambda ps: torch.optim.Adagrad(ps)),
    ("Adagrad lr_decay weight_decay initial_accumulator_value",
     "optim.Adagrad(ps, lr=0.1, lr_decay=0.05, weight_decay=0.1, initial_accumulator_value=0.2, eps=1e-6)",
     lambda ps: torch.optim.Adagrad(ps, lr=0.1, lr_decay=0.05, weight_decay=0.1, initial_accumulator_value=0.2, eps=1e-6)),
    ("Adagrad maximize", "optim.Adagrad(ps, lr=0.05, weight_decay=0.1, maximize=true)",
     lambda ps: torch.optim.Adagrad(ps, lr=0.05, weight_decay=0.1, maximize=True)),
    ("Adamax lr=0.1", "optim.Adamax(ps, lr=0.1)", lambda ps: torch.optim.Adamax(ps, lr=0.1)),
    ("Adamax defaults", "optim.Adamax(ps)", lambda ps: torch.optim.Adamax(ps)),
    ("Adamax betas weight_decay", "optim.Adamax(ps, lr=0.05, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1)",
     lambda ps: torch.optim.Adamax(ps, lr=0.05, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1)),
    ("Adamax maximize", "optim.Adamax(ps, lr=0.1, weight_decay=0.1, maximize=true)",
     lambda ps: torch.optim.Adamax(ps, lr=0.1, weight_decay=0.1, maximize=True)),
    ("NAdam lr=0.1", "optim.NAdam(ps, lr=0.1)", lambda ps: torch.optim.NAdam(ps, lr=0.1)),
    ("NAdam defaults", "optim.NAdam(ps)", lambda ps: torch.optim.NAdam(ps)),
    ("NAdam betas weight_decay momentum_decay",
     "optim.NAdam(ps, lr=0.05, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1, momentum_decay=0.1)",
     lambda ps: torch.optim.NAdam(ps, lr=0.05, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1, momentum_decay=0.1)),
    ("RAdam lr=0.1", "optim.RAdam(ps, lr=0.1)", lambda ps: torch.optim.RAdam(ps, lr=0.1), RADAM_STEPS),
    ("RAdam defaults", "optim.RAdam(ps)", lambda ps: torch.optim.RAdam(ps), RADAM_STEPS),
    ("RAdam betas weight_decay", "optim.RAdam(ps, lr=0.05, betas=(0.8, 0.9), eps=1e-6, weight_decay=0.1)",
     lambda ps: torch.optim.RAdam(ps, lr=0.05, betas=(0.8, 0.9), eps=1e-6, weight_decay=0.1), RADAM_STEPS),
    ("RAdam before its rectified steps", "optim.RAdam(ps, lr=0.1, weight_decay=0.1)",
     lambda ps: torch.optim.RAdam(ps, lr=0.1, weight_decay=0.1)),
    ("Adadelta defaults", "optim.Adadelta(ps)", lambda ps: torch.optim.Adadelta(ps)),
    ("Adadelta rho eps weight_decay", "optim.Adadelta(ps, lr=0.5, rho=0.8, eps=1e-4, weight_decay=0.1)",
     lambda ps: torch.optim.Adadelta(ps, lr=0.5, rho=0.8, eps=1e-4, weight_decay=0.1)),
    ("Adadelta maximize", "optim.Adadelta(ps, lr=2.0, weight_decay=0.05, maximize=true)",
     lambda ps: torch.optim.Adadelta(ps, lr=2.0, weight_decay=0.05, maximize=True)),
    ("Rprop defaults", "optim.Rprop(ps)", lambda ps: torch.optim.Rprop(ps), RPROP_STEPS),
    ("Rprop etas step_sizes", "optim.Rprop(ps, lr=0.3, etas=(0.3, 1.5), step_sizes=(0.01, 0.4))",
     lambda ps: torch.optim.Rprop(ps, lr=0.3, etas=(0.3, 1.5), step_sizes=(0.01, 0.4)), RPROP_STEPS),
    ("Rprop maximize", "optim.Rprop(ps, lr=0.05, maximize=true)",
     lambda ps: torch.optim.Rprop(ps, lr=0.05, maximize=True), RPROP_STEPS),
    ("ASGD defaults", "optim.ASGD(ps)", lambda ps: torch.optim.ASGD(ps)),
    ("ASGD averaging from t0 weight_decay", "optim.ASGD(ps, lr=0.1, lambd=0.01, alpha=0.5, t0=2, weight_decay=0.1)",
     lambda ps: torch.optim.ASGD(ps, lr=0.1, lambd=0.01, alpha=0.5, t0=2, weight_decay=0.1), RPROP_STEPS),
    ("ASGD maximize", "optim.ASGD(ps, lr=0.05, t0=0, maximize=true)",
     lambda ps: torch.optim.ASGD(ps, lr=0.05, t0=0, maximize=True)),
]


# Two parameter groups (W alone; b and c) whose own lr, weight_decay, ... override the
# constructor's; the last cases also run a scheduler, which scales each group's lr from
# its own base lr. (name, nabla optimizer, torch optimizer, nabla scheduler, torch scheduler)
GROUP_CASES = [
    ("SGD two groups momentum nesterov weight_decay",
     'optim.SGD([{"params": [ps[0]], "lr": 0.05, "weight_decay": 0.1}, {"params": [ps[1], ps[2]]}], '
     'lr=0.1, momentum=0.9, weight_decay=0.01, nesterov=true)',
     lambda ps: torch.optim.SGD([{"params": [ps[0]], "lr": 0.05, "weight_decay": 0.1}, {"params": ps[1:]}],
                                lr=0.1, momentum=0.9, weight_decay=0.01, nesterov=True), None, None),
    ("SGD two groups momentum dampening",
     'optim.SGD([{"params": [ps[0]], "momentum": 0.5, "dampening": 0.2}, {"params": [ps[1], ps[2]], "lr": 0.02}], '
     'lr=0.1, momentum=0.9)',
     lambda ps: torch.optim.SGD([{"params": [ps[0]], "momentum": 0.5, "dampening": 0.2},
                                 {"params": ps[1:], "lr": 0.02}], lr=0.1, momentum=0.9), None, None),
    ("Adam two groups",
     'optim.Adam([{"params": [ps[0]], "lr": 0.05, "betas": (0.8, 0.99), "weight_decay": 0.1}, {"params": [ps[1], ps[2]]}], '
     'lr=0.1, eps=1e-6)',
     lambda ps: torch.optim.Adam([{"params": [ps[0]], "lr": 0.05, "betas": (0.8, 0.99), "weight_decay": 0.1},
                                  {"params": ps[1:]}], lr=0.1, eps=1e-6), None, None),
    ("AdamW two groups",
     'optim.AdamW([{"params": [ps[0]], "weight_decay": 0.5}, {"params": [ps[1], ps[2]], "lr": 0.02, "amsgrad": true}], lr=0.1)',
     lambda ps: torch.optim.AdamW([{"params": [ps[0]], "weight_decay": 0.5},
                                   {"params": ps[1:], "lr": 0.02, "amsgrad": True}], lr=0.1), None, None),
    ("RMSprop two groups",
     'optim.RMSprop([{"params": [ps[0]], "momentum": 0.9, "centered": true}, {"params": [ps[1], ps[2]], "lr": 0.05}], '
     'lr=0.01, weight_decay=0.1)',
     lambda ps: torch.optim.RMSprop([{"params": [ps[0]], "momentum": 0.9, "centered": True},
                                     {"params": ps[1:], "lr": 0.05}], lr=0.01, weight_decay=0.1), None, None),
    ("SGD two groups with StepLR",
     'optim.SGD([{"params": [ps[0]], "lr": 0.2}, {"params": [ps[1], ps[2]]}], lr=0.05, momentum=0.9)',
     lambda ps: torch.optim.SGD([{"params": [ps[0]], "lr": 0.2}, {"params": ps[1:]}], lr=0.05, momentum=0.9),
     "fn(o) = optim.StepLR(o, 2, gamma=0.5)", lambda o: torch.optim.lr_scheduler.StepLR(o, 2, gamma=0.5)),
    ("Adam two groups with CosineAnnealingLR",
     'optim.Adam([{"params": [ps[0]], "lr": 0.2}, {"params": [ps[1], ps[2]]}], lr=0.05)',
     lambda ps: torch.optim.Adam([{"params": [ps[0]], "lr": 0.2}, {"params": ps[1:]}], lr=0.05),
     "fn(o) = optim.CosineAnnealingLR(o, 4, eta_min=0.01)",
     lambda o: torch.optim.lr_scheduler.CosineAnnealingLR(o, 4, eta_min=0.01)),
    ("SGD two groups with SequentialLR",
     'optim.SGD([{"params": [ps[0]], "lr": 0.2}, {"params": [ps[1], ps[2]]}], lr=0.05, momentum=0.9)',
     lambda ps: torch.optim.SGD([{"params": [ps[0]], "lr": 0.2}, {"params": ps[1:]}], lr=0.05, momentum=0.9),
     "fn(o) = optim.SequentialLR(o, [optim.lr_scheduler.LinearLR(o, start_factor=0.2, total_iters=2), "
     "optim.lr_scheduler.ExponentialLR(o, gamma=0.8)], milestones=[2])",
     lambda o: torch.optim.lr_scheduler.SequentialLR(o, [torch.optim.lr_scheduler.LinearLR(o, start_factor=0.2, total_iters=2),
                                                         torch.optim.lr_scheduler.ExponentialLR(o, gamma=0.8)],
                                                     milestones=[2])),
    # Adagrad sums start at the constructor's initial_accumulator_value, a group's own
    # (0.5) unused, as PyTorch 1.13's.
    ("Adagrad two groups",
     'optim.Adagrad([{"params": [ps[0]], "lr": 0.05, "lr_decay": 0.1}, '
     '{"params": [ps[1], ps[2]], "weight_decay": 0.1, "initial_accumulator_value": 0.5}], lr=0.1, initial_accumulator_value=0.1)',
     lambda ps: torch.optim.Adagrad([{"params": [ps[0]], "lr": 0.05, "lr_decay": 0.1},
                                     {"params": ps[1:], "weight_decay": 0.1, "initial_accumulator_value": 0.5}],
                                    lr=0.1, initial_accumulator_value=0.1), None, None),
    ("Adamax two groups",
     'optim.Adamax([{"params": [ps[0]], "betas": (0.8, 0.9), "maximize": true}, {"params": [ps[1], ps[2]], "lr": 0.02}], '
     'lr=0.1, weight_decay=0.1)',
     lambda ps: torch.optim.Adamax([{"params": [ps[0]], "betas": (0.8, 0.9), "maximize": True},
                                    {"params": ps[1:], "lr": 0.02}], lr=0.1, weight_decay=0.1), None, None),
    ("NAdam two groups",
     'optim.NAdam([{"params": [ps[0]], "momentum_decay": 0.05}, {"params": [ps[1], ps[2]], "lr": 0.02, "weight_decay": 0.1}], '
     'lr=0.1)',
     lambda ps: torch.optim.NAdam([{"params": [ps[0]], "momentum_decay": 0.05},
                                   {"params": ps[1:], "lr": 0.02, "weight_decay": 0.1}], lr=0.1), None, None),
    ("RAdam two groups",
     'optim.RAdam([{"params": [ps[0]], "betas": (0.8, 0.9)}, {"params": [ps[1], ps[2]], "lr": 0.02, "weight_decay": 0.1}], '
     'lr=0.1)',
     lambda ps: torch.optim.RAdam([{"params": [ps[0]], "betas": (0.8, 0.9)},
                                   {"params": ps[1:], "lr": 0.02, "weight_decay": 0.1}], lr=0.1), None, None, RADAM_STEPS),
    ("Adadelta two groups",
     'optim.Adadelta([{"params": [ps[0]], "rho": 0.5, "maximize": true}, {"params": [ps[1], ps[2]], "lr": 0.5}], '
     'lr=2.0, weight_decay=0.1)',
     lambda ps: torch.optim.Adadelta([{"params": [ps[0]], "rho": 0.5, "maximize": True},
                                      {"params": ps[1:], "lr": 0.5}], lr=2.0, weight_decay=0.1), None, None),
    ("Rprop two groups with StepLR (the step sizes start at each group's lr)",
     'optim.Rprop([{"params": [ps[0]], "etas": (0.4, 1.3)}, {"params": [ps[1], ps[2]], "lr": 0.1, "step_sizes": (0.001, 0.2)}], '
     'lr=0.05)',
     lambda ps: torch.optim.Rprop([{"params": [ps[0]], "etas": (0.4, 1.3)},
                                   {"params": ps[1:], "lr": 0.1, "step_sizes": (0.001, 0.2)}], lr=0.05),
     "fn(o) = optim.StepLR(o, 2, gamma=0.5)", lambda o: torch.optim.lr_scheduler.StepLR(o, 2, gamma=0.5), RPROP_STEPS),
    ("ASGD two groups with ExponentialLR",
     'optim.ASGD([{"params": [ps[0]], "t0": 3, "lambd": 0.01}, {"params": [ps[1], ps[2]], "lr": 0.05, "weight_decay": 0.1}], '
     'lr=0.1, alpha=0.6)',
     lambda ps: torch.optim.ASGD([{"params": [ps[0]], "t0": 3, "lambd": 0.01},
                                  {"params": ps[1:], "lr": 0.05, "weight_decay": 0.1}], lr=0.1, alpha=0.6),
     "fn(o) = optim.lr_scheduler.ExponentialLR(o, gamma=0.8)",
     lambda o: torch.optim.lr_scheduler.ExponentialLR(o, gamma=0.8), RPROP_STEPS),
    # The momentum (beta1) the schedulers cycle is the one the steps use.
    ("SGD momentum with CyclicLR",
     'optim.SGD([{"params": [ps[0]]}, {"params": [ps[1], ps[2]], "lr": 0.02}], lr=0.05, momentum=0.5)',
     lambda ps: torch.optim.SGD([{"params": [ps[0]]}, {"params": ps[1:], "lr": 0.02}], lr=0.05, momentum=0.5),
     "fn(o) = optim.CyclicLR(o, [0.01, 0.02], 0.2, step_size_up=2, base_momentum=0.6, max_momentum=[0.9, 0.95])",
     lambda o: torch.optim.lr_scheduler.CyclicLR(o, [0.01, 0.02], 0.2, step_size_up=2, base_momentum=0.6,
                                                 max_momentum=[0.9, 0.95])),
    ("Adam with OneCycleLR (beta1 cycled)",
     'optim.Adam([{"params": [ps[0]]}, {"params": [ps[1], ps[2]], "betas": (0.8, 0.99)}], lr=0.05)',
     lambda ps: torch.optim.Adam([{"params": [ps[0]]}, {"params": ps[1:], "betas": (0.8, 0.99)}], lr=0.05),
     "fn(o) = optim.OneCycleLR(o, [0.3, 0.1], total_steps=6)",
     lambda o: torch.optim.lr_scheduler.OneCycleLR(o, [0.3, 0.1], total_steps=6)),
    ("NAdam with OneCycleLR three_phase linear",
     'optim.NAdam([ps[0], ps[1], ps[2]], lr=0.05)',
     lambda ps: torch.optim.NAdam(ps, lr=0.05),
     'fn(o) = optim.OneCycleLR(o, 0.2, epochs=2, steps_per_epoch=4, anneal_strategy="linear", three_phase=true)',
     lambda o: torch.optim.lr_scheduler.OneCycleLR(o, 0.2, epochs=2, steps_per_epoch=4, anneal_strategy="linear",
                                                   three_phase=True)),
]


# Optimizers whose state_dict() after the run is compared with PyTorch's too: every
# parameter's state (numbers and tensors) and every group's hyperparameters.
STATE_CASES = [
    ("Adadelta", "optim.Adadelta(ps, lr=0.5, weight_decay=0.1)", lambda ps: torch.optim.Adadelta(ps, lr=0.5, weight_decay=0.1)),
    ("Rprop", "optim.Rprop(ps, lr=0.05, etas=(0.4, 1.3))", lambda ps: torch.optim.Rprop(ps, lr=0.05, etas=(0.4, 1.3))),
    ("ASGD", "optim.ASGD(ps, lr=0.1, lambd=0.01, t0=2)", lambda ps: torch.optim.ASGD(ps, lr=0.1, lambd=0.01, t0=2)),
]

PAIRS = {"betas": ["beta1", "beta2"], "etas": ["etaminus", "etaplus"], "step_sizes": ["step_size_min", "step_size_max"]}


# PyTorch's state_dict() as nabla's flat one: {name: number or nested list}.
def flat_state(opt):
    sd = opt.state_dict()
    out = {}
    for k, g in enumerate(sd["param_groups"]):
        prefix = "" if k == 0 else f"param_groups.{k}."
        for name, v in g.items():
            if name in ("params", "foreach", "differentiable"):
                continue
            if name in PAIRS:
                out[prefix + PAIRS[name][0]], out[prefix + PAIRS[name][1]] = v
            else:
                out[prefix + name] = v
    for i, st in sd["state"].items():
        for name, v in st.items():
            out[f"state.{i}.{name}"] = v.tolist() if torch.is_tensor(v) else v
    return out


def print_state_tests():
    for name, dsl_opt, make in STATE_CASES:
        W = torch.tensor(W0, requires_grad=True)
        b = torch.tensor(B0, requires_grad=True)
        c = torch.tensor(C0, requires_grad=True)
        opt = make([W, b, c])
        A_, BW_, AB_, BB_ = map(torch.tensor, (A, BW, AB, BB))
        for _ in range(RPROP_STEPS):
            opt.zero_grad()
            loss = (0.5 * A_ * W * W + BW_ * W).sum() + (0.5 * AB_ * b * b + BB_ * b).sum()
            loss.backward()
            opt.step()
        want = flat_state(opt)
        print(f'test "{name} state_dict matches PyTorch\'s after {RPROP_STEPS} steps" {{')
        print(f"  let ps = [tensor(W0, dtype=f64, requires_grad=true), tensor(B0, dtype=f64, requires_grad=true), tensor(C0, dtype=f64, requires_grad=true)]")
        print(f"  let opt = {dsl_opt}")
        print(f"  check_state_dict(opt, {RPROP_STEPS}, {dsl(want)})")
        print("}\n")


# LBFGS on the Rosenbrock function: (name, nabla kwargs, torch kwargs); each test
# compares the losses step(closure) returns, the point and the evaluation counts.
LBFGS_CASES = [
    ("LBFGS lr=0.5 no line search", "lr=0.5, max_iter=10, history_size=5", dict(lr=0.5, max_iter=10, history_size=5)),
    ("LBFGS lr=0.3 history_size=3", "lr=0.3, max_iter=8, history_size=3", dict(lr=0.3, max_iter=8, history_size=3)),
    ("LBFGS strong_wolfe", 'line_search_fn="strong_wolfe", max_iter=10, history_size=5',
     dict(line_search_fn="strong_wolfe", max_iter=10, history_size=5)),
    ("LBFGS strong_wolfe max_eval tolerances", 'line_search_fn="strong_wolfe", max_iter=30, max_eval=20, tolerance_grad=1e-5, tolerance_change=1e-7',
     dict(line_search_fn="strong_wolfe", max_iter=30, max_eval=20, tolerance_grad=1e-5, tolerance_change=1e-7)),
]


def print_lbfgs_tests():
    for name, dsl_args, kwargs in LBFGS_CASES:
        x = torch.tensor([-1.5, 2.0], requires_grad=True)
        opt = torch.optim.LBFGS([x], **kwargs)

        def closure():
            opt.zero_grad()
            loss = (1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2
            loss.backward()
            return loss
        losses = [opt.step(closure).item() for _ in range(4)]
        st = opt.state[x]
        print(f'test "{name} matches PyTorch on the Rosenbrock function" {{')
        print(f"  check_lbfgs(fn(ps) = optim.LBFGS(ps{', ' + dsl_args if dsl_args else ''}), {fmt(losses)}, {fmt(x.tolist())}, "
              f"{st['func_evals']}, {st['n_iter']})")
        print("}\n")


def group_lrs(make_sched, n):
    p, q = torch.zeros(1, requires_grad=True), torch.zeros(1, requires_grad=True)
    opt = torch.optim.SGD([{"params": [p], "lr": 0.1}, {"params": [q], "lr": 0.02}], lr=0.5)
    s = make_sched(opt)
    out = [[g["lr"] for g in opt.param_groups]]
    for _ in range(n):
        opt.step()
        s.step()
        out.append([g["lr"] for g in opt.param_groups])
    return out


def lrs(make_sched, n, lr=0.1):
    p = torch.zeros(1, requires_grad=True)
    opt = torch.optim.SGD([p], lr=lr)
    s = make_sched(opt)
    out = [opt.param_groups[0]["lr"]]
    for _ in range(n):
        opt.step()
        s.step()
        out.append(opt.param_groups[0]["lr"])
    return out


L = torch.optim.lr_scheduler

# Schedulers of schedulers (their children made first, in list order, as they are used):
# (name, nabla scheduler of opt, torch scheduler, steps before the state_dict test).
COMPOSED = [
    # A warmup, then a cosine whose T_max is passed (PyTorch's step past T_max uses the base lr).
    ("SequentialLR LinearLR then CosineAnnealingLR",
     "optim.SequentialLR(opt, [optim.lr_scheduler.LinearLR(opt, start_factor=0.1, total_iters=3), "
     "optim.CosineAnnealingLR(opt, 5, eta_min=0.001)], milestones=[3])",
     lambda o: L.SequentialLR(o, [L.LinearLR(o, start_factor=0.1, total_iters=3), L.CosineAnnealingLR(o, 5, eta_min=0.001)],
                              milestones=[3]), 5),
    ("SequentialLR ConstantLR then ExponentialLR",
     "optim.lr_scheduler.SequentialLR(opt, [optim.lr_scheduler.ConstantLR(opt, factor=0.1, total_iters=2), "
     "optim.lr_scheduler.ExponentialLR(opt, gamma=0.9)], milestones=[2])",
     lambda o: L.SequentialLR(o, [L.ConstantLR(o, factor=0.1, total_iters=2), L.ExponentialLR(o, gamma=0.9)],
                              milestones=[2]), 4),
    ("SequentialLR three schedulers",
     "optim.SequentialLR(opt, [optim.LinearWarmup(opt, 3), optim.StepLR(opt, 2, gamma=0.5), "
     "optim.lr_scheduler.LambdaLR(opt, fn(e) = 1.0 / (1 + e))], milestones=[3, 7])",
     lambda o: L.SequentialLR(o, [L.LinearLR(o, start_factor=1 / 3, end_factor=1.0, total_iters=2),
                                  L.StepLR(o, 2, gamma=0.5), L.LambdaLR(o, lambda e: 1.0 / (1 + e))],
                              milestones=[3, 7]), 8),
    ("ChainedScheduler ConstantLR and ExponentialLR",
     "optim.ChainedScheduler([optim.lr_scheduler.ConstantLR(opt, factor=0.1, total_iters=2), "
     "optim.lr_scheduler.ExponentialLR(opt, gamma=0.9)])",
     lambda o: L.ChainedScheduler([L.ConstantLR(o, factor=0.1, total_iters=2), L.ExponentialLR(o, gamma=0.9)]), 3),
    # A chained cosine moves the lr the others left; MultiStepLR and PolynomialLR compose.
    ("ChainedScheduler LinearLR, CosineAnnealingLR, MultiStepLR and PolynomialLR",
     "optim.lr_scheduler.ChainedScheduler([optim.lr_scheduler.LinearLR(opt, start_factor=0.5, total_iters=4), "
     "optim.CosineAnnealingLR(opt, 4), optim.lr_scheduler.MultiStepLR(opt, [2, 5, 5]), "
     "optim.PolynomialLR(opt, total_iters=10, power=0.5)])",
     lambda o: L.ChainedScheduler([L.LinearLR(o, start_factor=0.5, total_iters=4), L.CosineAnnealingLR(o, 4),
                                   L.MultiStepLR(o, [2, 5, 5]), L.PolynomialLR(o, total_iters=10, power=0.5)]), 6),
    # LambdaLR sets the lr outright from the initial lr, whatever ConstantLR did before it.
    ("ChainedScheduler ConstantLR and LambdaLR",
     "optim.ChainedScheduler([optim.lr_scheduler.ConstantLR(opt, factor=0.5, total_iters=3), "
     "optim.lr_scheduler.LambdaLR(opt, fn(e) = 0.9 ** e), optim.StepLR(opt, 2, gamma=0.5)])",
     lambda o: L.ChainedScheduler([L.ConstantLR(o, factor=0.5, total_iters=3), L.LambdaLR(o, lambda e: 0.9 ** e),
                                   L.StepLR(o, 2, gamma=0.5)]), 4),
]

SCHEDS = [
    ("StepLR", "optim.StepLR(opt, 3, gamma=0.5)", lambda o: torch.optim.lr_scheduler.StepLR(o, 3, gamma=0.5)),
    ("StepLR default gamma", "optim.StepLR(opt, 2)", lambda o: torch.optim.lr_scheduler.StepLR(o, 2)),
    ("CosineAnnealingLR", "optim.CosineAnnealingLR(opt, 10, eta_min=0.001)",
     lambda o: torch.optim.lr_scheduler.CosineAnnealingLR(o, 10, eta_min=0.001)),
    ("CosineAnnealingLR eta_min=0", "optim.CosineAnnealingLR(opt, 4)",
     lambda o: torch.optim.lr_scheduler.CosineAnnealingLR(o, 4)),
    # LinearWarmup(opt, W) is LinearLR(start_factor=1/W, end_factor=1, total_iters=W-1).
    ("LinearWarmup", "optim.LinearWarmup(opt, 5)",
     lambda o: torch.optim.lr_scheduler.LinearLR(o, start_factor=1 / 5, end_factor=1.0, total_iters=4)),
    ("MultiStepLR", "optim.lr_scheduler.MultiStepLR(opt, milestones=[6, 2], gamma=0.3)",
     lambda o: torch.optim.lr_scheduler.MultiStepLR(o, milestones=[6, 2], gamma=0.3)),
    ("ExponentialLR", "optim.lr_scheduler.ExponentialLR(opt, gamma=0.8)",
     lambda o: torch.optim.lr_scheduler.ExponentialLR(o, gamma=0.8)),
    ("LambdaLR", "optim.lr_scheduler.LambdaLR(opt, fn(e) = 1.0 / (1 + e))",
     lambda o: torch.optim.lr_scheduler.LambdaLR(o, lambda e: 1.0 / (1 + e))),
    ("LinearLR", "optim.lr_scheduler.LinearLR(opt, start_factor=0.25, end_factor=0.75, total_iters=6)",
     lambda o: torch.optim.lr_scheduler.LinearLR(o, start_factor=0.25, end_factor=0.75, total_iters=6)),
    ("ConstantLR", "optim.lr_scheduler.ConstantLR(opt, factor=0.5, total_iters=3)",
     lambda o: torch.optim.lr_scheduler.ConstantLR(o, factor=0.5, total_iters=3)),
    ("CosineAnnealingWarmRestarts", "optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, 3, T_mult=2, eta_min=0.01)",
     lambda o: torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(o, 3, T_mult=2, eta_min=0.01)),
    ("PolynomialLR", "optim.PolynomialLR(opt, total_iters=6, power=2.0)",
     lambda o: torch.optim.lr_scheduler.PolynomialLR(o, total_iters=6, power=2.0)),
    ("PolynomialLR defaults", "optim.lr_scheduler.PolynomialLR(opt)",
     lambda o: torch.optim.lr_scheduler.PolynomialLR(o)),
    ("PolynomialLR power=0.5", "optim.PolynomialLR(opt, total_iters=9, power=0.5)",
     lambda o: torch.optim.lr_scheduler.PolynomialLR(o, total_iters=9, power=0.5)),
    # SGD without momentum still has the key, so CyclicLR cycles it by default.
    ("CyclicLR triangular", "optim.CyclicLR(opt, 0.01, 0.1, step_size_up=3, step_size_down=2)",
     lambda o: torch.optim.lr_scheduler.CyclicLR(o, 0.01, 0.1, step_size_up=3, step_size_down=2)),
    ("CyclicLR triangular2", 'optim.CyclicLR(opt, 0.01, 0.1, step_size_up=2, mode="triangular2", cycle_momentum=false)',
     lambda o: torch.optim.lr_scheduler.CyclicLR(o, 0.01, 0.1, step_size_up=2, mode="triangular2", cycle_momentum=False)),
    ("CyclicLR exp_range", 'optim.lr_scheduler.CyclicLR(opt, 0.01, 0.1, step_size_up=3, mode="exp_range", gamma=0.9)',
     lambda o: torch.optim.lr_scheduler.CyclicLR(o, 0.01, 0.1, step_size_up=3, mode="exp_range", gamma=0.9)),
    ("CyclicLR scale_fn", 'optim.CyclicLR(opt, 0.01, 0.1, step_size_up=2, scale_fn=fn(x) = 1.0 / (1 + x), scale_mode="iterations")',
     lambda o: torch.optim.lr_scheduler.CyclicLR(o, 0.01, 0.1, step_size_up=2, scale_fn=lambda x: 1.0 / (1 + x),
                                                 scale_mode="iterations")),
    ("OneCycleLR cos", "optim.OneCycleLR(opt, max_lr=1.0, total_steps=14)",
     lambda o: torch.optim.lr_scheduler.OneCycleLR(o, max_lr=1.0, total_steps=14)),
    ("OneCycleLR linear epochs", 'optim.OneCycleLR(opt, 0.5, epochs=2, steps_per_epoch=7, pct_start=0.25, anneal_strategy="linear")',
     lambda o: torch.optim.lr_scheduler.OneCycleLR(o, 0.5, epochs=2, steps_per_epoch=7, pct_start=0.25,
                                                   anneal_strategy="linear")),
    ("OneCycleLR three_phase", "optim.lr_scheduler.OneCycleLR(opt, 0.4, total_steps=14, div_factor=10.0, final_div_factor=100.0, three_phase=true)",
     lambda o: torch.optim.lr_scheduler.OneCycleLR(o, 0.4, total_steps=14, div_factor=10.0, final_div_factor=100.0,
                                                   three_phase=True)),
] + [(name, dsl, make) for name, dsl, make, _ in COMPOSED]


# Schedulers that cycle momentum (or beta1) with two parameter groups: (name, nabla
# optimizer of ps (two tensors), torch optimizer, nabla scheduler of opt, torch
# scheduler, the group key cycled: "momentum" or "betas").
CYCLES = [
    ("CyclicLR SGD per-group values",
     'optim.SGD([{"params": [ps[0]], "lr": 0.1}, {"params": [ps[1]], "lr": 0.02}], lr=0.5, momentum=0.9)',
     lambda ps: torch.optim.SGD([{"params": [ps[0]], "lr": 0.1}, {"params": [ps[1]], "lr": 0.02}], lr=0.5, momentum=0.9),
     "optim.CyclicLR(opt, [0.01, 0.02], [0.1, 0.3], step_size_up=2, step_size_down=3, base_momentum=[0.8, 0.7], max_momentum=0.95)",
     lambda o: torch.optim.lr_scheduler.CyclicLR(o, [0.01, 0.02], [0.1, 0.3], step_size_up=2, step_size_down=3,
                                                 base_momentum=[0.8, 0.7], max_momentum=0.95), "momentum"),
    ("CyclicLR triangular2 RMSprop",
     'optim.RMSprop([{"params": [ps[0]]}, {"params": [ps[1]], "lr": 0.02}], lr=0.1)',
     lambda ps: torch.optim.RMSprop([{"params": [ps[0]]}, {"params": [ps[1]], "lr": 0.02}], lr=0.1),
     'optim.CyclicLR(opt, 0.01, 0.1, step_size_up=2, mode="triangular2")',
     lambda o: torch.optim.lr_scheduler.CyclicLR(o, 0.01, 0.1, step_size_up=2, mode="triangular2"), "momentum"),
    ("CyclicLR exp_range SGD",
     'optim.SGD([{"params": [ps[0]]}, {"params": [ps[1]], "lr": 0.02}], lr=0.1)',
     lambda ps: torch.optim.SGD([{"params": [ps[0]]}, {"params": [ps[1]], "lr": 0.02}], lr=0.1),
     'optim.CyclicLR(opt, 0.01, 0.1, step_size_up=3, mode="exp_range", gamma=0.8)',
     lambda o: torch.optim.lr_scheduler.CyclicLR(o, 0.01, 0.1, step_size_up=3, mode="exp_range", gamma=0.8), "momentum"),
    ("OneCycleLR cos SGD momentum",
     'optim.SGD([{"params": [ps[0]]}, {"params": [ps[1]], "lr": 0.02}], lr=0.1, momentum=0.9)',
     lambda ps: torch.optim.SGD([{"params": [ps[0]]}, {"params": [ps[1]], "lr": 0.02}], lr=0.1, momentum=0.9),
     "optim.OneCycleLR(opt, [1.0, 0.5], total_steps=10, base_momentum=[0.8, 0.85], max_momentum=0.9)",
     lambda o: torch.optim.lr_scheduler.OneCycleLR(o, [1.0, 0.5], total_steps=10, base_momentum=[0.8, 0.85],
                                                   max_momentum=0.9), "momentum"),
    ("OneCycleLR linear Adam beta1",
     'optim.Adam([{"params": [ps[0]]}, {"params": [ps[1]], "betas": (0.8, 0.9)}], lr=0.1)',
     lambda ps: torch.optim.Adam([{"params": [ps[0]]}, {"params": [ps[1]], "betas": (0.8, 0.9)}], lr=0.1),
     'optim.OneCycleLR(opt, 0.3, total_steps=10, pct_start=0.4, anneal_strategy="linear")',
     lambda o: torch.optim.lr_scheduler.OneCycleLR(o, 0.3, total_steps=10, pct_start=0.4, anneal_strategy="linear"),
     "betas"),
    ("OneCycleLR three_phase AdamW beta1",
     'optim.AdamW([{"params": [ps[0]]}, {"params": [ps[1]], "lr": 0.02}], lr=0.1)',
     lambda ps: torch.optim.AdamW([{"params": [ps[0]]}, {"params": [ps[1]], "lr": 0.02}], lr=0.1),
     "optim.OneCycleLR(opt, 0.3, epochs=3, steps_per_epoch=4, three_phase=true, base_momentum=0.7)",
     lambda o: torch.optim.lr_scheduler.OneCycleLR(o, 0.3, epochs=3, steps_per_epoch=4, three_phase=True,
                                                   base_momentum=0.7), "betas"),
    ("OneCycleLR without cycle_momentum",
     'optim.Adagrad([{"params": [ps[0]]}, {"params": [ps[1]], "lr": 0.02}], lr=0.1)',
     lambda ps: torch.optim.Adagrad([{"params": [ps[0]]}, {"params": [ps[1]], "lr": 0.02}], lr=0.1),
     "optim.OneCycleLR(opt, 0.3, total_steps=10, cycle_momentum=false)",
     lambda o: torch.optim.lr_scheduler.OneCycleLR(o, 0.3, total_steps=10, cycle_momentum=False), None),
]


# Every group's [lrs, momenta (or beta1s)] at epoch 0 and after each of n steps.
def cycle_values(make_opt, make_sched, n, key):
    ps = [torch.zeros(1, requires_grad=True), torch.zeros(1, requires_grad=True)]
    opt = make_opt(ps)
    s = make_sched(opt)

    def snapshot():
        lrs = [g["lr"] for g in opt.param_groups]
        moms = [] if key is None else [g[key] if key == "momentum" else g[key][0] for g in opt.param_groups]
        return [lrs, moms]
    out = [snapshot()]
    for _ in range(n):
        opt.step()
        s.step()
        out.append(snapshot())
    return out


def print_cycle_tests():
    for name, opt_dsl, make_opt, dsl, make_sched, key in CYCLES:
        print(f'test "{name} lrs and momenta match PyTorch" {{')
        print("  let ps = [tensor([0.0], requires_grad=true), tensor([0.0], requires_grad=true)]")
        print(f"  let opt = {opt_dsl}")
        print(f"  let sched = {dsl}")
        key_dsl = "none" if key is None else f'"{key}"'
        print(f"  check_cycle(sched, opt, {key_dsl}, {fmt(cycle_values(make_opt, make_sched, 10, key))})")
        print("}\n")


OUT_DIR = pathlib.Path(__file__).parents[2] / "tests" / "stdlib" / "optim"
CHECK_INC = "optim_reference_check.inc"
# The names of CHECK_INC's that the test blocks use.
SHARED = ["W0", "B0", "C0", "run", "check", "check_lrs", "check_group_lrs", "check_state_dict", "check_lbfgs",
          "check_composed_state", "check_cycle"]
GENERATED = f"# Generated by scripts/reference/optim_reference.py with PyTorch {torch.__version__} - do not edit."


def main():
    """Writes the test blocks print_all prints into files of at most 700 lines."""
    text = io.StringIO()
    with contextlib.redirect_stdout(text):
        print_all()
    tests = []
    for line in text.getvalue().splitlines():
        if line.startswith('test "'):
            tests.append([])
        tests[-1].append(line)
    header = [GENERATED, "import optim", f'import "{CHECK_INC}" as r', ""] + [f"let {n} = r.{n}" for n in SHARED] + [""]
    for path in write_test_files(OUT_DIR / "test_reference", header, tests):
        print(path)


def print_all():
    for name, dsl, make, *rest in CASES:
        steps = rest[0] if rest else STEPS
        W, b, c = run(make, steps=steps)
        steps_arg = f", steps={steps}" if steps != STEPS else ""
        print(f'test "{name} matches PyTorch after {steps} steps" {{')
        print(f"  check(run(fn(ps) = {dsl}{steps_arg}), [{fmt(W)}, {fmt(b)}, {fmt(c)}])")
        print("}\n")
        if name.split()[0] in ("Adam", "AdamW") and "amsgrad" not in name:
            # The same through the tensor-op path instead of the fused native update.
            print(f'test "{name} matches PyTorch after {STEPS} steps without the fused update" {{')
            print("  optim._use_fused(false)")
            print(f"  check(run(fn(ps) = {dsl}), [{fmt(W)}, {fmt(b)}, {fmt(c)}])")
            print("  optim._use_fused(true)")
            print("}\n")
    for name, dsl, make, sched_dsl, sched, *rest in GROUP_CASES:
        steps = rest[0] if rest else STEPS
        W, b, c = run(make, sched, steps)
        sched_arg = f", sched={sched_dsl}" if sched_dsl else ""
        steps_arg = f", steps={steps}" if steps != STEPS else ""
        print(f'test "{name} matches PyTorch after {steps} steps" {{')
        print(f"  check(run(fn(ps) = {dsl}{sched_arg}{steps_arg}), [{fmt(W)}, {fmt(b)}, {fmt(c)}])")
        print("}\n")
    for name, dsl, make in SCHEDS:
        print_sched_test(f"{name} lr sequences of two groups match PyTorch",
                         ['let opt = optim.SGD([{"params": [tensor([0.0], requires_grad=true)], "lr": 0.1},',
                          '                     {"params": [tensor([0.0], requires_grad=true)], "lr": 0.02}], lr=0.5)'],
                         dsl, "check_group_lrs", group_lrs(make, 8))
    for name, dsl, make in SCHEDS:
        print_sched_test(f"{name} lr sequence matches PyTorch",
                         ["let opt = optim.SGD([tensor([0.0], requires_grad=true)], lr=0.1)"], dsl, "check_lrs", lrs(make, 14))
    print_plateau_tests()
    print_cycle_tests()
    print_composed_state_tests()
    print_state_tests()
    print_lbfgs_tests()


def dsl(v):
    """v (dicts, lists, numbers, bools, strs) as a nabla literal."""
    if isinstance(v, dict):
        return "{" + ", ".join(f"{dsl(k)}: {dsl(x)}" for k, x in v.items()) + "}"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(dsl(x) for x in v) + "]"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return '"' + v + '"'
    return repr(v)


# A composed scheduler's state_dict() after `steps` steps (its schedulers' states cut
# to base_lrs and last_epoch; their keys apart), and the lrs of a new optimizer and
# scheduler loaded from those states, over 3 more steps.
def composed_state(make, steps):
    def made():
        opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)
        return opt, make(opt)
    opt, s = made()
    for _ in range(steps):
        opt.step()
        s.step()
    sd = s.state_dict()
    want = {k: v for k, v in sd.items() if k != "_schedulers"}
    want["_schedulers"] = [{"base_lrs": c["base_lrs"], "last_epoch": c["last_epoch"]} for c in sd["_schedulers"]]
    keys = [sorted(c.keys()) for c in sd["_schedulers"]]
    opt2, s2 = made()
    opt2.load_state_dict(opt.state_dict())
    s2.load_state_dict(sd)
    resumed = []
    for _ in range(3):
        opt2.step()
        s2.step()
        resumed.append(opt2.param_groups[0]["lr"])
    return want, keys, resumed


def print_composed_state_tests():
    for name, dsl_sched, make, steps in COMPOSED:
        want, keys, resumed = composed_state(make, steps)
        print(f'test "{name} state_dict is PyTorch\'s after {steps} steps and resumes" {{')
        print(f"  let make = fn(opt) = {dsl_sched}")
        print("  let opt = optim.SGD([tensor([0.0], requires_grad=true)], lr=0.1)")
        print("  let sched = make(opt)")
        print(f"  for i in range({steps}) {{")
        print("    opt.step()")
        print("    sched.step()")
        print("  }")
        print(f"  check_composed_state(sched.state_dict(), {dsl(want)}, {dsl(keys)})")
        print("  let opt2 = optim.SGD([tensor([0.0], requires_grad=true)], lr=0.1)")
        print("  let sched2 = make(opt2)")
        print("  sched2.load_state_dict(sched.state_dict())")
        print(f"  let want = {fmt(resumed)}")
        print("  for i in range(len(want)) {")
        print("    opt2.step()")
        print("    sched2.step()")
        print("    expect_close(opt2.lr, want[i], rtol=1e-12, atol=1e-15)")
        print("  }")
        print("}\n")


# ReduceLROnPlateau, stepped with a metric: the lrs after each step for a fixed
# sequence of metrics, in min mode (relative threshold, cooldown, a floor) and max
# mode (absolute threshold).
PLATEAU_METRICS = [1.0, 0.9, 0.95, 0.96, 0.97, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99]
PLATEAUS = [
    ("min", "patience=1, cooldown=1, factor=0.5, min_lr=0.02, threshold=0.01",
     dict(patience=1, cooldown=1, factor=0.5, min_lr=0.02, threshold=0.01)),
    ("max", "mode=\"max\", patience=2, factor=0.3, threshold=0.05, threshold_mode=\"abs\"",
     dict(mode="max", patience=2, factor=0.3, threshold=0.05, threshold_mode="abs")),
]


def plateau_lrs(kwargs):
    p = torch.zeros(1, requires_grad=True)
    opt = torch.optim.SGD([p], lr=0.1)
    s = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, **kwargs)
    out = []
    for m in PLATEAU_METRICS:
        s.step(m)
        out.append(opt.param_groups[0]["lr"])
    return out


def print_plateau_tests():
    for name, dsl, kwargs in PLATEAUS:
        print(f'test "ReduceLROnPlateau ({name}) lrs match PyTorch" {{')
        print("  let opt = optim.SGD([tensor([0.0], requires_grad=true)], lr=0.1)")
        print(f"  let sched = optim.lr_scheduler.ReduceLROnPlateau(opt, {dsl})")
        print(f"  let metrics = {fmt(PLATEAU_METRICS)}")
        print(f"  let want = {fmt(plateau_lrs(kwargs))}")
        print("  for i in range(len(metrics)) {")
        print("    sched.step(metrics[i])")
        print("    expect_close(opt.lr, want[i], rtol=1e-12, atol=1e-15)")
        print("  }")
        print("}\n")


# A test block: the optimizer's lines, the scheduler `dsl`, then checker(sched, opt, want).
def print_sched_test(title, opt_lines, dsl, checker, want):
    print(f'test "{title}" {{')
    for line in opt_lines:
        print("  " + line)
    print(f"  let sched = {dsl}")
    print(f"  {checker}(sched, opt, {fmt(want)})")
    print("}\n")

if __name__ == "__main__":
    main()
