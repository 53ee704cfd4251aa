# The natively answered parts of an optimizer step (Note [A step's checks, natively
# first], interp/builtins/builtins_optim.cpp): each answers the plain case and says
# none/false otherwise, so the interpreted loop runs and names what is wrong.
import optim

test "optim_groups_kept_: true for a plain optimizer, false for a kind the step cannot read" {
  let p = randn([3], requires_grad=true)
  let opt = optim.Adam([p], lr=0.1)
  let kinds = {"lr": ">= 0", "betas": "betas", "eps": ">= 0", "weight_decay": ">= 0", "amsgrad": "bool", "maximize": "bool"}
  expect(optim_groups_kept_(opt.param_groups, kinds, opt.params, opt.state), "as made")
  opt.param_groups[0]["betas"] = (0.9, "x")
  expect(not optim_groups_kept_(opt.param_groups, kinds, opt.params, opt.state), "a pair with a str")
  (p * p).sum().backward()
  expect_error(fn() = opt.step(), "param_groups[0]['betas'] must be a pair of numbers")
  opt.param_groups[0]["betas"] = [0.9, 0.99]
  expect(optim_groups_kept_(opt.param_groups, kinds, opt.params, opt.state), "a list pair")
  expect(not optim_groups_kept_(opt.param_groups, kinds, opt.params, []), "a state per parameter")
  expect(not optim_groups_kept_(opt.param_groups, kinds, [p, p], opt.state), "as many params")
  opt.param_groups[0]["amsgrad"] = 1
  expect(not optim_groups_kept_(opt.param_groups, kinds, opt.params, opt.state), "an int for a bool")
}

test "optim_step_lists_: the params with a grad, their states by position, grads negated on request" {
  let a = ones([2], requires_grad=true)
  let frozen = ones([2], requires_grad=true)
  let b = ones([3], requires_grad=true)
  (a.sum() * 2 + b.sum() * 3).backward()
  let states = [{"s": 0}, {"s": 1}, {"s": 2}, {"s": 3}]
  let lists = optim_step_lists_([a, frozen, b], states, 1, true)
  expect(len(lists[0]) == 2 and lists[0][1] is b, "frozen is left out")
  expect_close(lists[1][0], full([2], -2.0), 0.0)
  expect_close(lists[1][1], full([3], -3.0), 0.0)
  expect(lists[2][0]["s"] == 1 and lists[2][1]["s"] == 3, "states[first + k]")
  expect(optim_step_lists_([a, 5], states, 0, false) == none, "a param that is not a tensor")
  expect(optim_step_lists_([a, b], states, 3, false) == none, "a state past the list")
}

test "optim_adam_advance_: all states or none" {
  let st1 = {"step": 2, "exp_avg": zeros(2), "exp_avg_sq": zeros(2)}
  let st2 = {"step": 5.0, "exp_avg": zeros(2), "exp_avg_sq": zeros(2)}
  let r = optim_adam_advance_([st1, st2], false)
  expect(r[2] == [3, 6.0] and st1["step"] == 3 and type(st2["step"]) == "float", "advanced, kinds kept")
  let fresh = {}
  expect(optim_adam_advance_([st1, fresh], false) == none and st1["step"] == 3, "a fresh state: nothing changes")
  expect(optim_adam_advance_([st1], true) == none, "amsgrad without its maximum")
}

test "Adam over several steps: a frozen parameter keeps no state, maximize mirrors minimizing the negative" {
  manual_seed(0)
  let w0 = randn([4])
  let x = randn([4])
  fn run(maximize) {
    let w = w0.clone().requires_grad_()
    let frozen = ones([2], requires_grad=true)
    let u = (w0 * 0.5).clone().requires_grad_()
    let opt = optim.Adam([w, frozen, u], lr=0.05, maximize=maximize)
    for i in range(4) {
      opt.zero_grad()
      let loss = ((w * x).sum() - 1.0) ** 2 + (u * u).sum()
      (-loss if maximize else loss).backward()
      opt.step()
    }
    return [w, u, opt]
  }
  let plain = run(false)
  let maxed = run(true)
  expect_close(plain[0], maxed[0], 0.0)
  expect_close(plain[1], maxed[1], 0.0)
  expect(plain[2].state[2]["step"] == 4 and len(plain[2].state[1]) == 0, "steps by position")
}
