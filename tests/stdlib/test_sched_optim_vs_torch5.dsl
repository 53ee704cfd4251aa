# Round 5 of the differential tests against PyTorch 1.13 (see test_promotion_vs_torch5.dsl):
# the learning-rate schedulers with the arguments tests/stdlib/optim leaves out (a gamma
# above 1, repeated and unsorted milestones, cosine past T_max, T_max = 1, eta_min above
# the lr, one-iteration ramps, warm restarts with T_mult, CyclicLR's uneven and
# one-step cycles with momentum, OneCycleLR without or with only warmup), 30 epochs of
# group 0's lr and momentum (beta1 for Adam) element by element; and the optimizers with
# their rarely used flags together, 12 steps on a quartic. PyTorch's values are in
# tests/stdlib/reference/vs_torch5.safetensors (make_vs_torch5.py, SCHEDULES and
# OPTIMIZERS, under the same names).
import optim

let ref = load("tests/stdlib/reference/vs_torch5.safetensors")
let S = optim.lr_scheduler

let SCHEDULES = [
  ("step_gamma_above_1", fn(o) = S.StepLR(o, 4, gamma=1.5), "SGD"),
  ("step_every_epoch", fn(o) = S.StepLR(o, 1), "SGD"),
  ("multistep_repeated", fn(o) = S.MultiStepLR(o, [2, 2, 5, 30], gamma=0.5), "SGD"),
  ("multistep_unsorted", fn(o) = S.MultiStepLR(o, [7, 3]), "SGD"),
  ("exponential_growth", fn(o) = S.ExponentialLR(o, 1.1), "SGD"),
  ("cosine_past_t_max", fn(o) = S.CosineAnnealingLR(o, 7, eta_min=0.01), "SGD"),
  ("cosine_t_max_1", fn(o) = S.CosineAnnealingLR(o, 1), "SGD"),
  ("cosine_eta_min_above", fn(o) = S.CosineAnnealingLR(o, 10, eta_min=0.5), "SGD"),
  ("linear_down", fn(o) = S.LinearLR(o, start_factor=1.0, end_factor=0.1, total_iters=1), "SGD"),
  ("linear_small_start", fn(o) = S.LinearLR(o, start_factor=0.01, end_factor=0.5, total_iters=7), "SGD"),
  ("constant_factor_1", fn(o) = S.ConstantLR(o, factor=1.0, total_iters=3), "SGD"),
  ("polynomial_square", fn(o) = S.PolynomialLR(o, total_iters=7, power=2.0), "SGD"),
  ("polynomial_one_iter", fn(o) = S.PolynomialLR(o, total_iters=1, power=0.3), "SGD"),
  ("warm_restarts_t_mult_2", fn(o) = S.CosineAnnealingWarmRestarts(o, 3, T_mult=2, eta_min=0.01), "SGD"),
  ("warm_restarts_t0_1", fn(o) = S.CosineAnnealingWarmRestarts(o, 1, T_mult=3), "SGD"),
  ("cyclic_up_down", fn(o) = S.CyclicLR(o, 0.01, 0.1, step_size_up=3, step_size_down=5), "SGDm"),
  ("cyclic_exp_range_momentum", fn(o) = S.CyclicLR(o, 0.01, 0.1, step_size_up=2, mode="exp_range", gamma=0.9,
                                                   base_momentum=0.5, max_momentum=0.8), "SGDm"),
  ("cyclic_steps_1", fn(o) = S.CyclicLR(o, 0.01, 0.1, step_size_up=1, step_size_down=1), "SGDm"),
  ("one_cycle_short_warmup", fn(o) = S.OneCycleLR(o, 0.5, total_steps=30, pct_start=0.1, div_factor=10.0,
                                                  final_div_factor=100.0), "SGDm"),
  ("one_cycle_three_phase_odd", fn(o) = S.OneCycleLR(o, 0.5, total_steps=31, anneal_strategy="linear", three_phase=true,
                                                     base_momentum=0.7, max_momentum=0.9), "SGDm"),
  ("one_cycle_epochs_adam", fn(o) = S.OneCycleLR(o, 0.5, epochs=3, steps_per_epoch=11, pct_start=0.5), "Adam"),
  ("one_cycle_no_warmup", fn(o) = S.OneCycleLR(o, 0.5, total_steps=31, pct_start=0.0), "SGDm"),
  ("one_cycle_all_warmup", fn(o) = S.OneCycleLR(o, 0.5, total_steps=31, pct_start=1.0), "SGDm"),
]

fn optimizer_for(kind, p) {
  if kind == "Adam" { return optim.Adam([p], lr=0.1) }
  return optim.SGD([p], lr=0.1, momentum=0.9 if kind == "SGDm" else 0)
}

# Group 0's lr and momentum (beta1 for Adam) at each of 30 epochs, a step of each between.
fn schedule(make, kind) {
  let p = tensor([0.0], requires_grad=true)
  let opt = optimizer_for(kind, p)
  let sched = make(opt)
  let lrs = []
  let momenta = []
  for i in range(30) {
    let g = opt.param_groups[0]
    lrs.append(g["lr"])
    momenta.append(g["betas"][0] if "betas" in g else g["momentum"])
    opt.step()
    sched.step()
  }
  return (tensor(lrs, dtype=f64), tensor(momenta, dtype=f64))
}

test "30 epochs of every scheduler with odd arguments: lr and momentum match PyTorch's" {
  for (name, make, kind) in SCHEDULES {
    let (lrs, momenta) = schedule(make, kind)
    expect_close(lrs, ref[f"sched_{name}.lr"], rtol=1e-12, atol=1e-15, msg=f"{name}: lr")
    expect_close(momenta, ref[f"sched_{name}.momentum"], rtol=1e-12, atol=1e-15, msg=f"{name}: momentum")
  }
}

let OPTIMIZERS = [
  ("sgd_nesterov_maximize_decay", fn(ps) = optim.SGD(ps, lr=0.1, momentum=0.9, nesterov=true, weight_decay=0.1,
                                                     maximize=true)),
  ("sgd_dampening_maximize", fn(ps) = optim.SGD(ps, lr=0.1, momentum=0.9, dampening=0.5, maximize=true)),
  ("adam_amsgrad_maximize_decay", fn(ps) = optim.Adam(ps, lr=0.1, amsgrad=true, maximize=true, weight_decay=0.2)),
  ("adam_beta1_0_big_eps", fn(ps) = optim.Adam(ps, lr=0.05, betas=(0.0, 0.5), eps=0.1)),
  ("adamw_amsgrad_decay", fn(ps) = optim.AdamW(ps, lr=0.1, amsgrad=true, weight_decay=0.3)),
  ("rmsprop_everything", fn(ps) = optim.RMSprop(ps, lr=0.01, alpha=0.5, centered=true, momentum=0.5, weight_decay=0.1,
                                                maximize=true)),
  ("adagrad_decays_eps", fn(ps) = optim.Adagrad(ps, lr=0.1, weight_decay=0.2, lr_decay=0.1, eps=0.5)),
  ("adamax_decay_eps", fn(ps) = optim.Adamax(ps, lr=0.1, weight_decay=0.2, eps=0.5)),
  ("radam_eps_decay", fn(ps) = optim.RAdam(ps, lr=0.1, eps=0.5, weight_decay=0.1)),
  ("adadelta_rho_decay", fn(ps) = optim.Adadelta(ps, lr=0.5, rho=0.5, weight_decay=0.1)),
  ("rprop_etas_sizes", fn(ps) = optim.Rprop(ps, lr=0.05, etas=(0.3, 1.5), step_sizes=(0.01, 0.1))),
]

test "12 steps of the optimizers with their rarely used flags together match PyTorch's" {
  let coef = tensor([[1.0, 2.0, 0.5], [0.1, 3.0, 1.0]], dtype=f64)
  for (name, make) in OPTIMIZERS {
    let W = tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], dtype=f64, requires_grad=true)
    let opt = make([W])
    for i in range(12) {
      opt.zero_grad()
      let loss = (W ** 4 * coef).sum() + (W ** 2).sum() * 0.3 + W[0, 0] * W[1, 1]
      loss.backward()
      opt.step()
    }
    expect_close(W, ref[f"optim_{name}.W"], rtol=1e-10, atol=1e-12, msg=name)
  }
}
