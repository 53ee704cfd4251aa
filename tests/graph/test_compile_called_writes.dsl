# Whole tensors that a function called inside a lowered branch or loop writes in place
# (Note [Tensors a lowered region's calls write], graph/capture_writes.cpp), beyond
# BatchNorm (tests/graph/test_compile_batchnorm_regions.dsl): a buffer the function
# closes over, a tensor made before the loop, statistics passed as arguments; and a
# window that runs past the end at a replay (Note [A window a graph replays]).
fn lowered(gm) = "unrolled" not in gm.explain()

fn accumulate(a, v) { a.add_(v) }
fn reset(b) { b.zero_() }

test "a closed-over buffer that a called function writes whole, on one side of a gate" {
  let seen = zeros([3], dtype=f64)
  let twin = zeros([3], dtype=f64)
  fn gate(x, buf) {
    if x.sum() > 0 { accumulate(buf, x * 2.0) } else { reset(buf) }
    return x.sum() + buf.sum()
  }
  let gm = compile(fn(x) = gate(x, seen), ones([3], dtype=f64), mode="script")
  expect(lowered(gm), gm.explain())
  for x in [ones([3], dtype=f64), tensor([1.0, 2.0, 0.5], dtype=f64), -ones([3], dtype=f64), ones([3], dtype=f64) * 3.0] {
    expect_close(gm(x), gate(x, twin), rtol=0, atol=0)
    expect_close(seen, twin, rtol=0, atol=0)
  }
}

test "a tensor made before a scan that a called function accumulates into at every step" {
  fn total(x) {
    let acc = zeros([2], dtype=f64)
    for t in range(x.shape[0]) { accumulate(acc, x[t] * (t + 1.0)) }
    return acc
  }
  let gm = compile(total, ones([4, 2], dtype=f64), mode="script")
  expect("-> scan (carries: f64[2] written at" in gm.explain(), gm.explain())
  for n in [4, 4, 2, 6] {
    let x = randn([n, 2], dtype=f64)
    expect_close(gm(x), total(x), rtol=0, atol=0)
  }
}

test "running statistics passed as the caller's arguments: the taken side moves them, as eager" {
  fn f(x, mean, var) {
    let y = x
    if x.sum() > 0 { y = batch_norm(x, mean, var, training=true) }
    return y
  }
  let m = zeros([2], dtype=f64)
  let v = ones([2], dtype=f64)
  let m2 = zeros([2], dtype=f64)
  let v2 = ones([2], dtype=f64)
  let gm = compile(f, ones([4, 2], dtype=f64), m, v, mode="script")
  for x in [randn([4, 2], dtype=f64) + 1.0, -ones([4, 2], dtype=f64), randn([4, 2], dtype=f64) + 2.0] {
    expect_close(gm(x, m, v), f(x, m2, v2), rtol=0, atol=0)
    expect_close(m, m2, rtol=0, atol=0)
    expect_close(v, v2, rtol=0, atol=0)
  }
}

test "a window that runs past the end at a replay: an error naming its line, not other values" {
  fn f(x, s) {
    let acc = zeros([2])
    for k in range(3) { acc = acc + x[s + k:s + k + 2] }
    return acc
  }
  let gm = compile(f, arange(6.0), tensor(0), mode="script")
  expect_close(gm(arange(6.0), tensor(1)), f(arange(6.0), tensor(1)), rtol=0, atol=0)
  expect_error(fn() = gm(arange(6.0), tensor(3)), "runs past the end at this call")
  expect_error(fn() = gm(arange(6.0), tensor(3)), "test_compile_called_writes.dsl:61:37: a window")
  expect_close(gm(arange(6.0), tensor(2)), f(arange(6.0), tensor(2)), rtol=0, atol=0)
}

test "a called function's write inside an if inside a scan: both nodes carry the tensor, or the loop's variable" {
  fn bump(t, v) { t.add_(v) }
  fn only_called(x) {
    let acc = zeros([2], dtype=f64)
    for t in range(x.shape[0]) {
      if x[t].sum() > 0 { bump(acc, x[t]) }
    }
    return acc * 1.0
  }
  fn also_assigned(x) {
    let acc = zeros([2], dtype=f64)
    for t in range(x.shape[0]) {
      acc = acc * 0.5
      if x[t].sum() > 0 { bump(acc, x[t]) }
    }
    return acc
  }
  for f in [only_called, also_assigned] {
    let gm = compile(f, randn([5, 2], dtype=f64), mode="script")
    expect(lowered(gm) and " = cond(" in gm.ir(), gm.explain())
    for k in range(3) {
      let x = randn([5, 2], dtype=f64)
      expect_close(gm(x), f(x), rtol=0, atol=0)
    }
  }
}
