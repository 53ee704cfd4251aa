# break and continue on a tensor condition under compile(mode="script") (Note [Break
# and continue on a tensor condition], interp/eval/script/exits.cpp): the rest of
# the step runs in the branches of the if that may leave it, a break sets the loop's
# flag. Each compiled function is checked against eager, in f64, on inputs that leave
# the loop at other steps than the example did.

import nn

# Newton's iterations with a fixed budget and an early exit: a scan whose steps pass
# their carries through once the flag is set.
fn sqrt_budget(a) {
  let x = a * 0.0 + 1.0
  for i in range(40) {
    x = 0.5 * (x + a / x)
    if (x * x - a).abs().max() < 1e-10 {
      break
    }
  }
  return x
}

test "for with a break on a tensor: a scan with a flag, equal to eager at every exit step" {
  let gm = compile(sqrt_budget, tensor([2.0, 9.0], dtype=f64), mode="script")
  let ir = gm.ir()
  expect(ir.count(" = scan(") == 1 and ir.count(" = cond(") == 2, ir)
  let text = gm.explain()
  expect("for over 40 rows -> scan (carries: x, (break); a break sets (break), and each later step passes its carries through)" in text, text)
  expect("test_loop_exits.dsl:15:5: if on a tensor that may leave the step -> cond (outputs: (break)" in text, text)
  for a in [tensor([4.0, 16.0], dtype=f64), tensor([1e6, 1e-6], dtype=f64), tensor([1.0, 1.0], dtype=f64)] {
    expect_close(gm(a), sqrt_budget(a), rtol=0, atol=0)
  }
  # A plain compile() traces, meets the if, and captures again with the loop lowered.
  let traced = compile(sqrt_budget, tensor([2.0, 9.0], dtype=f64))
  expect(traced.ir().count(" = scan(") == 1, traced.ir())
  expect_close(traced(tensor([1e6, 1e-6], dtype=f64)), sqrt_budget(tensor([1e6, 1e-6], dtype=f64)), rtol=0, atol=0)
}

# The same loop written `while true`: the first trip runs as traced, the rest lowers
# to a while_loop on `not (break)`; the statements after the if run in its else.
fn sqrt_until(a) {
  let x = a * 0.0 + 1.0
  let steps = 0
  while true {
    x = 0.5 * (x + a / x)
    if (x * x - a).abs().max() < 1e-10 {
      break
    }
    steps = steps + 1
  }
  return x, steps
}

test "while true with a break on a tensor: its remaining trips are a while_loop, any trip count" {
  let gm = compile(sqrt_until, tensor([2.0, 9.0], dtype=f64), mode="script")
  expect(gm.ir().count(" = while_loop(") == 1, gm.ir())
  expect("while on a tensor -> while_loop (carries: x, steps, (break); a break sets (break), which ends the loop)" in gm.explain(),
         gm.explain())
  for a in [tensor([4.0, 16.0], dtype=f64), tensor([1e8, 1e-8], dtype=f64), tensor([1.0, 1.0], dtype=f64)] {
    let (x, steps) = gm(a)
    let (want_x, want_steps) = sqrt_until(a)
    expect_close(x, want_x, rtol=0, atol=0)
    expect(steps.item() == want_steps, f"{steps} steps, eager {want_steps}")
  }
}

# continue skips the rest of the step; break and continue in one body, and an elif.
fn clipped_sum(xs) {
  let total = xs[0] * 0.0
  let kept = 0
  for x in xs {
    if x.sum() < 0 {
      continue
    } elif x.max() > 5.0 {
      break
    }
    total = total + x
    kept = kept + 1
  }
  return total, kept
}

test "continue and break in one if/elif: rows skipped and the loop left as eager does" {
  manual_seed(3)
  let gm = compile(clipped_sum, randn([6, 3], dtype=f64), mode="script")
  # A for keeps its plain numbers as numbers, so the counter unrolls it; each step
  # after the first is a cond on the flag.
  expect("for unrolled: variable 'kept' is 0 before the body" in gm.explain(), gm.explain())
  expect(gm.ir().count(" = scan(") == 0 and gm.ir().count(" = cond(") >= 6, gm.ir())
  let cases = [randn([6, 3], dtype=f64), randn([6, 3], dtype=f64) + 1.0, randn([6, 3], dtype=f64) * 4.0,
               tensor([[1.0, 2.0], [-3.0, 1.0], [9.0, 0.0], [1.0, 1.0]], dtype=f64)]
  for xs in cases[:3] {
    let (total, kept) = gm(xs)
    let (want_total, want_kept) = clipped_sum(xs)
    expect_close(total, want_total, rtol=0, atol=0)
    expect(kept.item() == want_kept, f"{kept} kept, eager {want_kept}")
  }
  let small = compile(clipped_sum, cases[3], mode="script")
  let (total, kept) = small(cases[3])
  expect(list(total.tolist()) == [1.0, 2.0] and kept.item() == 1, f"{total} {kept}")
}

# A break inside an if inside an if: the inner one's continuation is the rest of the
# outer block, then the rest of the body.
fn nested_exit(xs) {
  let acc = xs[0] * 0.0
  for x in xs {
    if x.sum() > 0 {
      acc = acc + x
      if acc.sum() > 3.0 {
        break
      }
      acc = acc * 1.5
    }
    acc = acc - 0.25
  }
  return acc
}

test "a break nested in ifs skips the rest of each enclosing block" {
  manual_seed(4)
  let gm = compile(nested_exit, randn([8, 2], dtype=f64), mode="script")
  for k in range(6) {
    let xs = randn([8, 2], dtype=f64) + (k - 2) * 0.5
    expect_close(gm(xs), nested_exit(xs), rtol=0, atol=0)
  }
}

# A loop over a list of layers runs as usual; after a lowered break each step is a
# cond on the flag.
model Stack() {
  layers = [nn.Linear(3, 3).double() for _ in range(4)]
  forward(x) {
    for layer in self.layers {
      x = tanh(layer(x))
      if x.abs().max() < 0.5 {
        break
      }
    }
    return x
  }
}

test "a loop over layers breaks on a tensor: later layers run under a cond on the flag" {
  manual_seed(5)
  let m = Stack()
  let gm = compile(m, randn([2, 3], dtype=f64), mode="script")
  expect(gm.ir().count(" = cond(") >= 4, gm.ir())
  for scale in [0.01, 1.0, 10.0] {
    let x = randn([2, 3], dtype=f64) * scale
    expect_close(gm(x), m(x), rtol=0, atol=0)
  }
}

# A while on a tensor condition with a break and a continue, a counter in the condition.
fn collatz_like(x) {
  let n = 0
  while x.sum() > 1.0 and n < 50 {
    n = n + 1
    if x.sum() > 100.0 {
      x = x * 0.1
      continue
    }
    if x.max() < 0.5 {
      break
    }
    x = x * 0.7
  }
  return x, n
}

test "a while on a tensor with continue and break: the condition and the flag both end it" {
  let gm = compile(collatz_like, tensor([3.0, 2.0, 1.0], dtype=f64), mode="script")
  expect(gm.ir().count(" = while_loop(") == 1, gm.ir())
  # Out by the condition, by continue then the condition, by break, and no trip.
  for x in [tensor([3.0, 2.0, 1.0], dtype=f64), tensor([500.0, 800.0, 1.0], dtype=f64),
            tensor([0.45, 0.45, 0.45], dtype=f64), tensor([0.2, 0.1, 0.1], dtype=f64)] {
    let (got, n) = gm(x)
    let (want, want_n) = collatz_like(x)
    expect_close(got, want, rtol=0, atol=0)
    expect(n.item() == want_n, f"{n} trips, eager {want_n}")
  }
}

# Gradients: a loss through a scan that may break, trained against eager.
let W = tensor([0.9, -0.4, 0.7], dtype=f64).requires_grad_()
fn damped_loss(xs) {
  let h = xs[0] * 0.0
  for x in xs {
    h = tanh(h * W + x)
    if (h * h).sum() > 1.5 {
      break
    }
  }
  return (h * h * h).sum()
}

fn grads_of(gm, f, x) {
  W.grad = none
  let got = gm(x)
  let got_grad = W.grad
  W.grad = none
  let want = f(x)
  want.backward()
  let want_grad = W.grad
  W.grad = none
  return [got, want, got_grad, want_grad]
}

test "a training step through a loop that breaks: loss and gradient equal eager's" {
  manual_seed(6)
  let gm = compile(damped_loss, randn([7, 3], dtype=f64), train=true, mode="script")
  for scale in [0.1, 0.8, 1.2, 1.6, 3.0] {
    let r = grads_of(gm, damped_loss, randn([7, 3], dtype=f64) * scale)
    expect_close(r[0], r[1], rtol=1e-12, atol=1e-12)
    expect_close(r[2], r[3], rtol=1e-10, atol=1e-12)
  }
}

# Grad of grad through the breaking scan: a gradient penalty.
fn damped_penalty(xs) {
  let g = grad(damped_loss(xs), [W], create_graph=true)[0]
  return (g * g).sum()
}

test "grad of grad through a loop that breaks" {
  manual_seed(7)
  let gm = compile(damped_penalty, randn([7, 3], dtype=f64), train=true, mode="script")
  for scale in [0.1, 0.8, 1.2, 1.6, 3.0] {
    let r = grads_of(gm, damped_penalty, randn([7, 3], dtype=f64) * scale)
    expect_close(r[0], r[1], rtol=1e-12, atol=1e-12)
    expect_close(r[2], r[3], rtol=1e-10, atol=1e-12)
  }
}

# A plain loop with plain breaks is untouched: it runs, and unrolls, as before.
fn first_big(x) {
  let picked = 0
  for k in range(10) {
    if [1, 4, 9, 16][k % 4] > 5 {
      picked = k
      break
    }
  }
  return x * picked
}

fn returns_in_loop(x) {
  for k in range(3) {
    if x.sum() > 0 {
      return x
    }
    x = x + 1.0
  }
  return x
}

fn breaks_in_with(x) {
  for k in range(3) {
    no_grad {
      if x.sum() > 0 {
        break
      }
    }
    x = x + 1.0
  }
  return x
}

fn breaks_in_profile(x) {
  for k in range(3) {
    profile(print=false) {
      if x.sum() > 0 {
        break
      }
    }
    x = x + 1.0
  }
  return x
}

test "plain breaks stay plain; a return in a loop lowers; a break inside no_grad lowers, inside profile it is an error that says what lowers" {
  let gm = compile(first_big, ones([2], dtype=f64), mode="script")
  expect_close(gm(ones([2], dtype=f64)), ones([2], dtype=f64) * 2.0)
  expect(" = cond(" not in gm.ir() and " = scan(" not in gm.ir(), gm.ir())
  # a return inside a lowered loop lowers (Note [Returns inside a lowered loop]; tests/graph/test_compile_gaps.dsl)
  let gr = compile(returns_in_loop, ones([2], dtype=f64), mode="script")
  for s in [1.0, -0.5, -1.5, -5.0] {
    expect_close(gr(ones([2], dtype=f64) * s), returns_in_loop(ones([2], dtype=f64) * s), rtol=0, atol=0)
  }
  # Note [Exits inside a context block]
  let gw = compile(breaks_in_with, ones([2]), mode="script")
  for s in [1.0, -0.5, -1.5, -5.0] {
    expect_close(gw(ones([2]) * s), breaks_in_with(ones([2]) * s), rtol=0, atol=0)
  }
  expect_error("compile(breaks_in_profile, ones([2]), mode=\"script\")",
               "a 'break', 'continue' or 'return' inside a 'profile' block cannot be lowered to a cond (only no_grad, enable_grad, autocast and detect_anomaly blocks may hold one)")
}

# A continue on a tensor in a loop on a plain counter: the loop unrolls (the counter
# stays a number), each step a cond whose else-branch is the rest of the step. The
# count is a plain result, a constant of the capture.
fn skip_odd(x) {
  let i = 0
  let s = x * 0.0
  while i < 6 {
    i = i + 1
    if (x * i).sum() % 2.0 > 1.0 {
      continue
    }
    s = s + x * i
  }
  return s, i
}

fn counted_loss(x) {
  let (s, i) = skip_odd(x)
  return i, s.sum()
}

test "a continue in an unrolled loop; a plain number among the results is a constant" {
  let gm = compile(skip_odd, tensor([0.3, 0.2], dtype=f64), mode="script")
  let note = "if on a tensor that may leave the step -> cond (outputs: s; the rest of the step runs in its branches) (6 times)"
  expect(note in gm.explain(), gm.explain())
  for x in [tensor([0.7, 0.1], dtype=f64), tensor([0.05, 0.3], dtype=f64), tensor([-0.4, 0.9], dtype=f64)] {
    let (s, i) = gm(x)
    let (want_s, want_i) = skip_odd(x)
    expect_close(s, want_s, rtol=0, atol=0)
    expect(type(i) == "int" and i == want_i, f"{i}")
  }
  expect_error("compile(counted_loss, tensor([0.3, 0.2], dtype=f64), train=true)", "the function's (first) result must be the scalar loss")
}
