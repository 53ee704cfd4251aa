# The elementwise ops floor ... logit in the fused loops: the parametric ones carry
# their attributes into the fused steps (Note [Scalar attributes of unary ops]), so a
# fused chain equals eager bit for bit, defaults and given attributes alike.

test "rounding, remainder, atan2, logaddexp and the activations fuse and equal eager" {
  manual_seed(27)
  fn f(x, y) {
    let r = x.floor() + x.ceil() * 0.5 - x.round() + x.trunc() + remainder(x, y) + atan2(x, y)
    let a = hardswish(x) + mish(y) + logaddexp(x, y) + (x % 0.75)
    let p = softplus(x) + softplus(y, beta=2.0, threshold=1.0) + elu(x) + elu(y, alpha=0.5)
    let q = leaky_relu(x) + leaky_relu(y, negative_slope=0.2) + hardtanh(x) + hardtanh(y, min_val=-0.5, max_val=2.0)
    return r + a + p + q + logit(sigmoid(x)) + logit(sigmoid(y), eps=0.2)
  }
  for dt in [f32, f64] {
    let x = randn([37, 300], dtype=dt) * 3.0
    let y = randn([300], dtype=dt) * 3.0
    let gm = compile(f, x, y)
    gm.optimize("fuse")
    expect("fused(" in gm.ir(), gm.ir())
    expect_close(gm(x, y), f(x, y), rtol=0, atol=0)
  }
}
