# Differential tests, round 3: compiled functions against eager in f64 (values,
# gradients, parameters after optimizer steps, buffers after calls), each compiled
# once and called on inputs that take other paths, so a constant baked from the first
# call shows. In-place writes inside lowered loops and branches, aliases of what they
# write (Note [Aliases of a variable written in place], graph/capture_writes.cpp),
# indices that are tensors (Note [An index a graph replays], Note [A view taken with
# a tensor index]) and numbers read from tensor arguments (Note [Numbers read from
# tensor arguments], interp/builtins/builtins_args.cpp).
import nn
import optim

fn same(a, b) { expect_close(a, b, rtol=1e-12, atol=1e-12) }
fn same_int(a, b) { expect(bool((a == b).all()), f"{a} vs {b}") }

# ---- hand-written recurrences writing into preallocated tensors -------------------------

let W = randn([4, 4], dtype=f64) * 0.3
let U = randn([3, 4], dtype=f64) * 0.3
fn rnn(x) {
  let out = zeros([x.shape[0], x.shape[1], 4], dtype=f64)
  let h = zeros([x.shape[0], 4], dtype=f64)
  for t in range(x.shape[1]) {
    h = tanh(h @ W + x[:, t] @ U)
    out[:, t] = h
  }
  return out, h
}

test "a batch-first RNN writing out[:, t] = h: one scan, as eager, traced or scripted" {
  let gs = compile(rnn, randn([2, 5, 3], dtype=f64), mode="script")
  let gt = compile(rnn, randn([2, 5, 3], dtype=f64))
  expect(" = scan(" in gs.ir(), gs.ir())
  for k in range(3) {
    let x = randn([2, 5, 3], dtype=f64)
    let (a, b) = gs(x)
    let (c, d) = rnn(x)
    let (e, f) = gt(x)
    same(a, c)
    same(b, d)
    same(e, c)
  }
}

let E = randn([6, 4], dtype=f64)
let Wo = randn([4, 6], dtype=f64)
fn greedy(h0) {
  let tokens = zeros([h0.shape[0], 5], dtype=i64)
  let h = h0
  for t in range(5) {
    let tok = (h @ Wo).argmax(-1)
    tokens[:, t] = tok
    h = tanh(h + E[tok])
  }
  return tokens
}

test "greedy decoding writes each step's tokens into a preallocated i64 tensor" {
  let gm = compile(greedy, randn([3, 4], dtype=f64), mode="script")
  for k in range(4) {
    let h = randn([3, 4], dtype=f64)
    same_int(gm(h), greedy(h))
  }
}

fn beam(x) {
  let scores = zeros([3], dtype=f64)
  let idx = zeros([4, 3], dtype=i64)
  for step in range(4) {
    let cand = (scores.unsqueeze(1) + x[step].unsqueeze(0)).reshape([-1])
    let (v, i) = cand.topk(3)
    scores.copy_(v)
    idx[step] = i
  }
  return scores, idx
}

test "a beam-like top-k search: scores.copy_(v) and idx[step] = i in a scan" {
  let gm = compile(beam, randn([4, 5], dtype=f64), mode="script")
  for k in range(3) {
    let x = randn([4, 5], dtype=f64)
    let (a, b) = gm(x)
    let (c, d) = beam(x)
    same(a, c)
    same_int(b, d)
  }
}

fn hist2(x) {
  let hist = zeros([8], dtype=f64)
  let k = 1
  while x.abs().sum() > 0.1 and k < 8 {
    hist[k - 1] = x.sum()
    hist[-1] = hist[-1] + 1.0
    x = x * 0.5
    k = k + 1
  }
  return hist
}

test "hist[k - 1] and hist[-1] in a while, for any trip count" {
  let gm = compile(hist2, tensor([1.0, 2.0], dtype=f64), mode="script")
  for x in [tensor([1.0, 2.0], dtype=f64), tensor([0.05, 0.01], dtype=f64), tensor([-30.0, 0.3], dtype=f64)] {
    same(gm(x), hist2(x))
  }
}

fn hist_small(x) {
  let hist = zeros([3], dtype=f64)
  let k = 0
  while x.abs().sum() > 0.1 {
    hist[k] = x.sum()
    x = x * 0.5
    k = k + 1
  }
  return hist
}

test "a step index out of range when the graph replays is an error, as in eager" {
  let x = tensor([0.3, 0.0], dtype=f64)
  let gm = compile(hist_small, x, mode="script")
  same(gm(x), hist_small(x))
  expect_error(fn() = hist_small(tensor([10.0, 0.0], dtype=f64)), "out of range")
  expect_error(fn() = gm(tensor([10.0, 0.0], dtype=f64)), "out of bounds")
}

fn pos_acc(x) {
  let acc = zeros([3], dtype=f64)
  let n = zeros([], dtype=f64)
  for row in x {
    if row.sum() > 0 {
      acc.add_(row)
      n += 1.0
    }
  }
  return acc / (n + 1.0)
}

test "acc.add_(row) on one side of a cond inside a scan" {
  let gm = compile(pos_acc, randn([6, 3], dtype=f64), mode="script")
  for k in range(4) {
    let x = randn([6, 3], dtype=f64)
    same(gm(x), pos_acc(x))
  }
}

fn outer(x) {
  let out = zeros([3, 4], dtype=f64)
  for i in range(3) {
    for j in range(4) {
      out[i, j] = x[i] * x[j] + out[i, j - 1]
    }
  }
  return out
}

test "nested scans writing into the same outer tensor" {
  let gm = compile(outer, randn([4], dtype=f64), mode="script")
  for k in range(3) {
    let x = randn([4], dtype=f64)
    same(gm(x), outer(x))
  }
}

fn neg_write(x) {
  let out = zeros([4], dtype=f64)
  for i in range(4) {
    out[i - 1] = x[i] + out[i - 1]
  }
  return out
}

test "out[i - 1] = ... in a scan writes the last row at i = 0, as eager" {
  let gm = compile(neg_write, randn([4], dtype=f64), mode="script")
  for k in range(3) {
    let x = randn([4], dtype=f64)
    same(gm(x), neg_write(x))
  }
}

fn counts(x) {
  let c = zeros([5], dtype=i64)
  for row in x {
    c[row.argmax()] += 1
  }
  return c
}

test "a histogram through a computed index in a scan" {
  let gm = compile(counts, randn([6, 5], dtype=f64), mode="script")
  for k in range(3) {
    let x = randn([6, 5], dtype=f64)
    same_int(gm(x), counts(x))
  }
}

# ---- Note [Aliases of a variable written in place] (graph/capture_writes.cpp) ---------

fn alias_read(x) {
  let out = zeros([4], dtype=f64)
  let a = out
  let s = zeros([], dtype=f64)
  for i in range(4) {
    a[i] = x[i] + 1.0
    s = s + out.sum()
  }
  return s, out
}

test "an alias of the written tensor read inside the scan sees each step's writes" {
  let gm = compile(alias_read, randn([4], dtype=f64), mode="script")
  for k in range(3) {
    let x = randn([4], dtype=f64)
    let (p, q) = gm(x)
    let (r, t) = alias_read(x)
    same(p, r)
    same(q, t)
  }
}

fn view_read(x) {
  let out = zeros([2, 3], dtype=f64)
  let v = out[0]
  let s = zeros([], dtype=f64)
  for i in range(3) {
    out[0, i] = x[i]
    s = s + v.sum()
  }
  return s
}

test "a view made before the loop, read inside it, sees the writes" {
  let gm = compile(view_read, randn([3], dtype=f64), mode="script")
  for k in range(3) {
    let x = randn([3], dtype=f64)
    same(gm(x), view_read(x))
  }
}

fn view_first(x) {
  let out = zeros([2, 3], dtype=f64)
  let v = out[1]
  let s = zeros([], dtype=f64)
  for i in range(3) {
    v[i] = x[i] + out[0].sum()
    out[0, i] = x[i] * 2.0 + v.sum()
    s = s + out.sum() * v[0]
  }
  return s + out.sum()
}

test "a tensor and a view of it, both written in a scan, see each other's writes" {
  let gm = compile(view_first, randn([3], dtype=f64), mode="script")
  for k in range(3) {
    let x = randn([3], dtype=f64)
    same(gm(x), view_first(x))
  }
}

fn nested_alias(x) {
  let out = zeros([3, 3], dtype=f64)
  let a = out
  let s = zeros([], dtype=f64)
  for i in range(3) {
    for j in range(3) {
      out[i, j] = x[i] - x[j] + a.sum() * 0.1
      s = s + a[i].sum()
    }
    s = s * 0.5 + a.sum()
  }
  return s, out
}

test "an alias read in an inner scan sees the inner writes" {
  let gm = compile(nested_alias, randn([3], dtype=f64), mode="script")
  for k in range(3) {
    let x = randn([3], dtype=f64)
    let (p, q) = gm(x)
    let (r, t) = nested_alias(x)
    same(p, r)
    same(q, t)
  }
}

fn put(b, i, v) { b[i] = v }
fn alias_write(x) {
  let out = zeros([4], dtype=f64)
  let a = out
  while x.abs().sum() > 0.1 {
    out[0] = out[0] + 1.0
    put(a, 1, a[1] + x.sum())
    x = x * 0.5
  }
  return out
}

test "a write through an alias in a helper, inside a while: the capture run leaves nothing behind" {
  let gm = compile(alias_write, ones([2], dtype=f64), mode="script")
  for s in [1.0, 0.01, 5.0] {
    let x = ones([2], dtype=f64) * s
    same(gm(x), alias_write(x))
  }
}

fn cond_alias(x) {
  let out = x * 1.0
  let a = out
  let v = out[1:]
  if x.sum() > 0 {
    v.mul_(2.0)
    out[0] = 5.0
    out[2] = a[0] + v[0]
  } else {
    v[0] = a.sum()
  }
  return out, a.sum()
}

test "aliases and views inside a lowered if, on both sides" {
  let gm = compile(cond_alias, ones([4], dtype=f64), mode="script")
  for x in [ones([4], dtype=f64), -ones([4], dtype=f64), tensor([1.0, -3.0, 2.0, 0.5], dtype=f64)] {
    let (p, q) = gm(x)
    let (r, t) = cond_alias(x)
    same(p, r)
    same(q, t)
  }
}

fn two_loops(x) {
  let out = zeros([3], dtype=f64)
  for i in range(3) { out[i] = x[i] }
  let a = out
  let s = zeros([], dtype=f64)
  for i in range(3) {
    out = out * 2.0
    s = s + a.sum()
  }
  return s, out
}

test "an alias of a variable that a later loop reassigns keeps the old tensor" {
  let gm = compile(two_loops, randn([3], dtype=f64), mode="script")
  for k in range(3) {
    let x = randn([3], dtype=f64)
    let (p, q) = gm(x)
    let (r, t) = two_loops(x)
    same(p, r)
    same(q, t)
  }
}

let wa = randn([3], dtype=f64, requires_grad=true)
fn galias(x) {
  let out = zeros([4, 3], dtype=f64)
  let a = out
  let s = zeros([], dtype=f64)
  for i in range(4) {
    out[i] = tanh(x[i] * wa + a.sum(0))
    s = s + (a.sum(0) * x[i]).sum()
  }
  return s
}

test "gradients through alias reads in a training scan" {
  let gm = compile(galias, randn([4, 3], dtype=f64), train=true, mode="script")
  for k in range(3) {
    let x = randn([4, 3], dtype=f64)
    wa.grad = none
    let a = gm(x)
    let ga = wa.grad.clone()
    wa.grad = none
    let b = galias(x)
    b.backward()
    same(a, b.detach())
    same(ga, wa.grad)
    wa.grad = none
  }
}
