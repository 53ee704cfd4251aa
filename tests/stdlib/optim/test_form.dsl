# Note [The optimizer form] (stdlib/optim.dsl): every optimizer is a model of one form,
# its methods repeated line for line. These check, for every optimizer, what the form
# gives: the same methods, its own name, opt.lr and the other hyperparameters through
# __getattr__ / __setattr__, add_param_group, zero_grad, parameters without a grad left
# alone, maximize, state dicts that continue exactly, and a quadratic minimised
# (test_reference.dsl compares the trajectories with PyTorch). Add a new optimizer to
# `makers` below. `nabla test tests/stdlib/optim/test_form.dsl`.
import optim

let target = tensor([1.5, -2.0, 0.5, 3.0])
let scale = tensor([1.0, 4.0, 0.5, 2.0])
fn quad(x) = (scale * (x - target) * (x - target)).sum()

# Every optimizer, by name, with hyperparameters that minimise quad in 1000 steps.
let makers = {
  "SGD": fn(ps) = optim.SGD(ps, lr=0.05, momentum=0.9),
  "Adam": fn(ps) = optim.Adam(ps, lr=0.05),
  "AdamW": fn(ps) = optim.AdamW(ps, lr=0.05, weight_decay=0),
  "RMSprop": fn(ps) = optim.RMSprop(ps, lr=0.01),
  "Adagrad": fn(ps) = optim.Adagrad(ps, lr=0.5),
  "Adamax": fn(ps) = optim.Adamax(ps, lr=0.05),
  "NAdam": fn(ps) = optim.NAdam(ps, lr=0.05),
  "RAdam": fn(ps) = optim.RAdam(ps, lr=0.05),
  "Adadelta": fn(ps) = optim.Adadelta(ps, lr=10.0),
  "Rprop": fn(ps) = optim.Rprop(ps, lr=0.05),
  "ASGD": fn(ps) = optim.ASGD(ps, lr=0.05),
  "SparseAdam": fn(ps) = optim.SparseAdam(ps, lr=0.05),
}

fn train(opt, xs, n) {
  for i in range(n) {
    opt.zero_grad()
    let loss = 0.0
    for x in xs { loss = loss + quad(x) }
    loss.backward()
    opt.step()
  }
}

test "every optimizer has the form's methods, its own name and an _options row in its constructor's order" {
  for name in makers {
    expect(dir(getattr(optim, name)) == ['add_param_group', 'doc', 'load_state_dict', 'name', 'state_dict', 'step', 'zero_grad'],
           f"{name}: {dir(getattr(optim, name))}")
    let opt = makers[name]([zeros([4], requires_grad=true)])
    expect(type(opt) == name, f"{type(opt)}")
    expect(list(opt.defaults) == list(optim._options[name]), f"{name}: {list(opt.defaults)}")
    expect(len(opt.param_groups) == 1 and len(opt.params) == 1 and len(opt.state) == 1, name)
  }
}

test "every optimizer minimises a quadratic" {
  for name in makers {
    let x = zeros([4], requires_grad=true)
    train(makers[name]([x]), [x], 1000)
    expect_close(x, target, atol=1e-3)
  }
}

test "every optimizer's hyperparameters read group 0 and set every group" {
  for name in makers {
    let opt = makers[name]([{"params": [zeros([4], requires_grad=true)], "lr": 0.3}, {"params": [zeros([2], requires_grad=true)]}])
    expect(opt.lr == 0.3 and opt.param_groups[1]["lr"] == opt.defaults["lr"], name)
    opt.lr = 0.125
    expect(opt.param_groups[0]["lr"] == 0.125 and opt.param_groups[1]["lr"] == 0.125, name)
    if name == "SparseAdam" {   # every optimizer but Rprop and SparseAdam has one (as PyTorch's)
      opt.betas = (0.5, 0.75)
      expect(opt.param_groups[1]["betas"] == (0.5, 0.75) and opt.betas == (0.5, 0.75), name)
    } elif name != "Rprop" {
      opt.weight_decay = 1e-3
      expect(opt.param_groups[1]["weight_decay"] == 1e-3 and opt.weight_decay == 1e-3, name)
    } else {
      opt.etas = (0.25, 1.5)
      expect(opt.param_groups[1]["etas"] == (0.25, 1.5) and opt.etas == (0.25, 1.5), name)
    }
    expect(opt.defaults["lr"] != 0.125, name)
    expect_error(f"optim.{name}([tensor([1.0], requires_grad=true)]).lr = -1.0", f"optim.{name}: lr must be >= 0, got -1.0")
    expect_error(f"optim.{name}([tensor([1.0], requires_grad=true)]).learning_rate", f"optim.{name} has no attribute 'learning_rate'")
  }
}

test "every optimizer leaves a parameter without a grad alone, and zero_grad clears grads" {
  for name in makers {
    let w = tensor([1.0, 2.0], requires_grad=true)
    let unused = tensor([3.0, 4.0], requires_grad=true)
    let opt = makers[name]([w, unused])
    (w * w).sum().backward()
    opt.step()
    expect_close(unused, tensor([3.0, 4.0]))
    expect(w.tolist() != [1.0, 2.0], f"{name} stepped w")
    # Adagrad makes every state at construction, as PyTorch's: step 0 until it steps.
    expect(len(opt.state[1]) == 0 or (name == "Adagrad" and opt.state[1]["step"] == 0), f"{name}: {opt.state[1]}")
    expect(w.is_leaf and w.grad_fn == none, name)
    opt.zero_grad()
    expect(w.grad == none, name)
    (w * w).sum().backward()
    opt.zero_grad(set_to_none=false)
    expect_close(w.grad, zeros([2]))
  }
}

test "add_param_group adds a group that steps as an optimizer of its own would" {
  for name in makers {
    let a = zeros([4], requires_grad=true)
    let b = zeros([4], requires_grad=true)
    let opt = makers[name]([a])
    opt.add_param_group({"params": [b], "lr": 0.02})
    expect(len(opt.param_groups) == 2 and len(opt.params) == 2 and len(opt.state) == 2, name)
    train(opt, [a, b], 3)
    let b1 = zeros([4], requires_grad=true)
    let alone = makers[name]([b1])
    alone.lr = 0.02
    train(alone, [b1], 3)
    expect_close(b, b1)
  }
}

test "every optimizer's state dict continues training exactly" {
  for name in makers {
    # 6 steps straight equal 3 steps, a state dict, and 3 steps of a fresh optimizer
    # (another lr meanwhile) that loaded it.
    let xa = [zeros([4], requires_grad=true), zeros([4], requires_grad=true)]
    let groups = fn(xs) = [{"params": [xs[0]]}, {"params": [xs[1]], "lr": 0.02}]
    train(makers[name](groups(xa)), xa, 6)
    let xb = [zeros([4], requires_grad=true), zeros([4], requires_grad=true)]
    let b = makers[name](groups(xb))
    train(b, xb, 3)
    let sd = b.state_dict()
    for k in sd { expect(type(sd[k]) in ["int", "float", "bool", "tensor"], f"{name} {k}: {type(sd[k])}") }
    let fresh = makers[name](groups(xb))
    fresh.lr = 123.0
    fresh.load_state_dict(sd)
    train(fresh, xb, 3)
    expect_close(xb[0], xa[0], rtol=1e-6, atol=1e-7)
    expect_close(xb[1], xa[1], rtol=1e-6, atol=1e-7)
  }
}

test "the new optimizers' state dicts hold PyTorch's state keys" {
  let keys = {"Adagrad": ["step", "sum"], "Adamax": ["step", "exp_avg", "exp_inf"],
              "NAdam": ["step", "mu_product", "exp_avg", "exp_avg_sq"], "RAdam": ["step", "exp_avg", "exp_avg_sq"],
              "Adadelta": ["step", "square_avg", "acc_delta"], "Rprop": ["step", "prev", "step_size"],
              "ASGD": ["step", "eta", "mu", "ax"]}
  for name in keys {
    let w = tensor([1.0, 2.0], requires_grad=true)
    let opt = makers[name]([w])
    (w * w).sum().backward()
    opt.step()
    opt.step()
    expect(list(opt.state[0]) == keys[name], f"{name}: {list(opt.state[0])}")
    expect(opt.state_dict()["state.0.step"] == 2, name)
  }
  let sd = optim.NAdam([tensor([1.0], requires_grad=true)], betas=(0.8, 0.9), momentum_decay=0.01).state_dict()
  expect(sd["beta1"] == 0.8 and sd["beta2"] == 0.9 and sd["momentum_decay"] == 0.01 and not ("maximize" in sd))
}

test "maximize ascends: the steps of f with maximize=true are those of -f" {
  for make in [fn(ps, up) = optim.SGD(ps, lr=0.1, momentum=0.5, maximize=up), fn(ps, up) = optim.Adam(ps, lr=0.1, maximize=up),
               fn(ps, up) = optim.Adagrad(ps, lr=0.1, weight_decay=0.1, maximize=up),
               fn(ps, up) = optim.Adamax(ps, lr=0.1, weight_decay=0.1, maximize=up),
               fn(ps, up) = optim.Adadelta(ps, lr=1.0, weight_decay=0.1, maximize=up),
               fn(ps, up) = optim.Rprop(ps, lr=0.1, maximize=up),
               fn(ps, up) = optim.ASGD(ps, lr=0.1, t0=2, weight_decay=0.1, maximize=up)] {
    let x = zeros([4], requires_grad=true)
    let y = zeros([4], requires_grad=true)
    let up = make([x], true)
    let down = make([y], false)
    for i in range(4) {
      up.zero_grad()
      down.zero_grad()
      (-quad(x)).backward()
      quad(y).backward()
      up.step()
      down.step()
    }
    expect_close(x, y, rtol=0, atol=0)
  }
}

test "Adagrad's sums start at initial_accumulator_value at construction, as PyTorch's" {
  let w = tensor([1.0, 2.0], requires_grad=true)
  let opt = optim.Adagrad([w], initial_accumulator_value=0.25)
  expect(opt.state[0]["step"] == 0)
  expect_close(opt.state[0]["sum"], tensor([0.25, 0.25]))
  let sd = opt.state_dict()
  expect(sd["state.0.step"] == 0 and sd["state.0.sum"].tolist() == [0.25, 0.25])
  # A group added later starts its sums at its first step, from its own value.
  let b = tensor([1.0], requires_grad=true)
  opt.add_param_group({"params": [b], "initial_accumulator_value": 1.0})
  expect(len(opt.state[1]) == 0)
  (b * 3.0).sum().backward()
  opt.step()
  expect(opt.state[1]["step"] == 1)
  expect_close(opt.state[1]["sum"], tensor([10.0]))
}
