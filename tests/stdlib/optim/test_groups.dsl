# Parameter groups: param_groups, add_param_group, opt.lr over groups, state dicts of
# several groups, schedulers over groups (test_reference.dsl compares the trajectories with
# PyTorch). `nabla test tests/stdlib/optim/test_groups.dsl`.
import optim

let target = tensor([1.5, -2.0, 0.5, 3.0])
fn quad(x) = ((x - target) * (x - target)).sum()

fn train(opt, xs, n) {
  for i in range(n) {
    opt.zero_grad()
    let loss = 0.0
    for x in xs { loss = loss + quad(x) }
    loss.backward()
    opt.step()
  }
}

fn fresh() = zeros([4], requires_grad=true)

test "param_groups fill every hyperparameter, a group's own keys first" {
  let a = fresh()
  let b = fresh()
  let opt = optim.SGD([{"params": [a], "lr": 0.5}, {"params": [b]}], lr=0.1, momentum=0.9)
  expect(len(opt.param_groups) == 2)
  let g0 = opt.param_groups[0]
  let g1 = opt.param_groups[1]
  expect(g0["lr"] == 0.5 and g1["lr"] == 0.1, f"{g0['lr']} {g1['lr']}")
  expect(g0["momentum"] == 0.9 and g1["momentum"] == 0.9 and g1["nesterov"] == false)
  expect(len(g0["params"]) == 1 and len(opt.params) == 2 and len(opt.state) == 2)
  expect(opt.defaults["lr"] == 0.1)
  # A plain list is one group with the constructor's values.
  let one = optim.Adam([a, b], lr=0.01)
  expect(len(one.param_groups) == 1 and one.param_groups[0]["betas"] == (0.9, 0.999))
  expect(len(one.param_groups[0]["params"]) == 2)
}

test "a group's lr set through param_groups is the one step() uses" {
  let x = fresh()
  let y = fresh()
  let opt = optim.SGD([{"params": [x]}], lr=0.5)
  for g in opt.param_groups { g["lr"] = 0.01 }
  train(opt, [x], 3)
  train(optim.SGD([y], lr=0.01), [y], 3)
  expect_close(x, y)
  expect(opt.lr == 0.01)
}

test "opt.lr reads group 0 and sets every group; defaults keep the constructor's" {
  let a = fresh()
  let b = fresh()
  let opt = optim.Adam([{"params": [a], "lr": 0.3}, {"params": [b]}], lr=0.1)
  expect(opt.lr == 0.3)
  opt.lr = 0.05
  expect(opt.param_groups[0]["lr"] == 0.05 and opt.param_groups[1]["lr"] == 0.05)
  opt.betas = (0.8, 0.9)
  expect(opt.param_groups[1]["betas"] == (0.8, 0.9) and opt.betas == (0.8, 0.9))
  expect(opt.defaults["lr"] == 0.1)
  expect_error("optim.Adam([tensor([1.0], requires_grad=true)]).lr = -1.0", "lr must be >= 0, got -1.0")
}

test "every group steps with its own hyperparameters" {
  # Two groups in one optimizer equal two optimizers of one group each.
  let a = fresh()
  let b = fresh()
  let opt = optim.AdamW([{"params": [a], "lr": 0.2, "weight_decay": 0.5}, {"params": [b]}], lr=0.05)
  train(opt, [a, b], 4)
  let a1 = fresh()
  let b1 = fresh()
  train(optim.AdamW([a1], lr=0.2, weight_decay=0.5), [a1], 4)
  train(optim.AdamW([b1], lr=0.05), [b1], 4)
  expect_close(a, a1)
  expect_close(b, b1)
}

test "add_param_group adds parameters that step with the defaults" {
  let a = fresh()
  let b = fresh()
  let opt = optim.SGD([a], lr=0.1, momentum=0.5)
  opt.add_param_group({"params": [b], "lr": 0.02})
  expect(len(opt.param_groups) == 2 and opt.param_groups[1]["momentum"] == 0.5)
  expect(len(opt.params) == 2 and len(opt.state) == 2)
  train(opt, [a, b], 3)
  let b1 = fresh()
  train(optim.SGD([b1], lr=0.02, momentum=0.5), [b1], 3)
  expect_close(b, b1)
  expect_error("let w = tensor([1.0], requires_grad=true)\nlet o = optim.SGD([w])\no.add_param_group({'params': [w]})",
               "add_param_group(): param_group['params'][0] appears twice")
}

fn round_trip(make) {
  # As behaviour.dsl's, with two groups: 6 steps straight equal 3 steps, a state dict,
  # and 3 steps of a fresh optimizer that loaded it.
  let xa = [fresh(), fresh()]
  train(make(xa), xa, 6)
  let xb = [fresh(), fresh()]
  let b = make(xb)
  train(b, xb, 3)
  let sd = b.state_dict()
  let fresh_opt = make(xb)
  fresh_opt.lr = 123.0
  fresh_opt.load_state_dict(sd)
  train(fresh_opt, xb, 3)
  expect_close(xb[0], xa[0], rtol=1e-6, atol=1e-7)
  expect_close(xb[1], xa[1], rtol=1e-6, atol=1e-7)
}

test "a state dict of two groups keeps each group's hyperparameters" {
  round_trip(fn(xs) = optim.SGD([{"params": [xs[0]], "lr": 0.02}, {"params": [xs[1]]}], lr=0.05, momentum=0.9))
  round_trip(fn(xs) = optim.Adam([{"params": [xs[0]], "betas": (0.8, 0.9)}, {"params": [xs[1]], "lr": 0.3}], lr=0.1))
  round_trip(fn(xs) = optim.RMSprop([{"params": [xs[0]]}, {"params": [xs[1]], "momentum": 0.5}], lr=0.01))
  let opt = optim.Adam([{"params": [fresh()], "lr": 0.2}, {"params": [fresh()], "betas": (0.5, 0.6)}])
  let sd = opt.state_dict()
  expect(sd["lr"] == 0.2 and sd["param_groups.1.lr"] == 1e-3 and sd["param_groups.1.beta1"] == 0.5)
  for k in sd { expect(type(sd[k]) in ["int", "float", "bool", "tensor"], f"{k}: {type(sd[k])}") }
  expect_error("optim.Adam([tensor([1.0], requires_grad=true)]).load_state_dict(optim.Adam([{'params': [tensor([1.0], requires_grad=true)]}, {'params': [tensor([1.0], requires_grad=true)]}]).state_dict())",
               "load_state_dict(): the state dict has 2 parameter group(s), the optimizer 1")
}

test "a state dict in the single-group flat format loads" {
  let x = fresh()
  let opt = optim.SGD([x], lr=0.5)
  opt.load_state_dict({"lr": 0.1, "momentum": 0.9, "dampening": 0, "weight_decay": 0, "nesterov": false,
                       "maximize": false, "state.0.momentum_buffer": ones([4])})
  expect(opt.lr == 0.1 and opt.momentum == 0.9)
  expect_close(opt.state[0]["momentum_buffer"], ones([4]))
  let s = optim.StepLR(opt, 2)
  s.load_state_dict({"base_lr": 0.4, "last_epoch": 2})
  expect_close(opt.lr, 0.04)
  expect(s.base_lrs == [0.4])
}

test "schedulers scale every group from its own base lr" {
  let opt = optim.SGD([{"params": [fresh()], "lr": 1.0}, {"params": [fresh()], "lr": 0.1}])
  let s = optim.StepLR(opt, 1, gamma=0.5)
  s.step()
  s.step()
  expect_close(s.get_last_lr()[0], 0.25)
  expect_close(s.get_last_lr()[1], 0.025)
  let sd = s.state_dict()
  let opt2 = optim.SGD([{"params": [fresh()], "lr": 7.0}, {"params": [fresh()], "lr": 7.0}])
  let s2 = optim.StepLR(opt2, 1, gamma=0.5)
  s2.load_state_dict(sd)
  expect(s2.get_last_lr() == s.get_last_lr(), f"{s2.get_last_lr()}")
  let w = optim.LinearWarmup(optim.Adam([{"params": [fresh()], "lr": 1.0}, {"params": [fresh()], "lr": 0.5}]), 2)
  expect(w.get_last_lr() == [0.5, 0.25], f"{w.get_last_lr()}")
}

test "a tensor put into a group's params by hand is an error at step()" {
  expect_error("let opt = optim.SGD([tensor([1.0], requires_grad=true)])\nopt.param_groups[0]['params'].append(tensor([2.0], requires_grad=true))\nopt.step()",
               "the parameter groups hold 2 tensors, the optimizer was given 1 (add tensors with add_param_group()")
}

test "a group keeps keys of the user's own, as PyTorch does, and saves them" {
  let a = fresh()
  let opt = optim.Adam([{"params": [a], "name": "encoder"}], lr=0.1)
  expect(opt.param_groups[0]["name"] == "encoder", f"{opt.param_groups[0]}")
  train(opt, [a], 2)
  let again = optim.Adam([{"params": [fresh()], "name": "other"}], lr=0.1)
  again.load_state_dict(opt.state_dict())
  expect(again.param_groups[0]["name"] == "encoder", f"{again.param_groups[0]}")
}

test "a frozen tensor (requires_grad false) is accepted and left alone, as in PyTorch" {
  let a = fresh()
  let frozen = ones([4])
  let opt = optim.SGD([a, frozen], lr=0.1)
  train(opt, [a], 3)
  expect(frozen.grad == none)
  expect_close(frozen, ones([4]))
  expect((a - zeros([4])).abs().sum().item() > 0, "the trained tensor moved")
}

test "one group of several parameters given as a dict steps every one of them" {
  for make in [fn(g) = optim.SGD(g, lr=0.1, momentum=0.9), fn(g) = optim.Adam(g, lr=0.1),
               fn(g) = optim.AdamW(g, lr=0.1), fn(g) = optim.RMSprop(g, lr=0.1)] {
    let ps = [ones([3], requires_grad=true), ones([2], requires_grad=true)]
    let opt = make([{"params": ps}])
    expect(len(opt.state) == 2, f"{len(opt.state)} states for 2 parameters")
    (sum(ps[0] * ps[0]) + sum(ps[1] * ps[1])).backward()
    opt.step()
    expect(ps[0].tolist()[0] < 1 and ps[1].tolist()[0] < 1, f"{ps}")
  }
}

test "the schedulers are also under PyTorch's path, optim.lr_scheduler" {
  let p = zeros([2], requires_grad=true)
  let opt = optim.SGD([p], lr=0.1)
  let sched = optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
  expect(type(sched) == "StepLR")
  sched.step()
  sched.step()
  expect_close(tensor(sched.get_last_lr()[0]), tensor(0.05))
  expect(optim.lr_scheduler.CosineAnnealingLR == optim.CosineAnnealingLR)
}

test "a group's params may be one tensor, as PyTorch's" {
  let w = zeros([2], requires_grad=true)
  let b = zeros([1], requires_grad=true)
  let opt = optim.SGD([{"params": w, "lr": 0.5}, {"params": [b]}], lr=0.1)
  expect(len(opt.param_groups[0]["params"]) == 1 and opt.param_groups[0]["lr"] == 0.5)
  expect_error(fn() = optim.SGD(w, lr=0.1), "a single tensor: wrap it")
}
