# The lower_quant pass against eager: a statically quantized model, recorded as it
# runs, quantizes every layer's input and gets f32 back from every int8 op; lowered,
# the relu and the next layer's quantize run in the int8 op's epilogue and the
# activations stay u8 between layers. Every rewrite is exact, so the lowered graph
# agrees with eager bit for bit.

fn ir_has(gm, text) = text in gm.ir()

# Symmetric i8 weights per output channel (axis 0), with their scales.
fn qweight(w) {
  let s = w.abs().reshape([w.shape[0], -1]).max(dim=1)[0] / 127.0
  return (quantize_per_channel(w, s, zeros([w.shape[0]], dtype=i64), 0, i8), s)
}

test "relu and the next quantize fold into the int8 linear, bit for bit" {
  manual_seed(40)
  let (w1, s1) = qweight(randn([48, 96]))
  let b1 = randn([48])
  let (w2, s2) = qweight(randn([32, 48]))
  let (w3, s3) = qweight(randn([10, 32]))
  let b3 = randn([10])
  fn mlp(x) {
    let h1 = quantized_linear(quantize_per_tensor(x, 0.03, 128, u8), w1, s1, b1, input_scale=0.03, input_zero_point=128)
    let h2 = quantized_linear(quantize_per_tensor(relu(h1), 0.05, 0, u8), w2, s2, none, input_scale=0.05,
                              input_zero_point=0)
    # no relu between the second and third layers: an affine u8 activation
    return quantized_linear(quantize_per_tensor(h2, 0.2, 120, u8), w3, s3, b3, input_scale=0.2, input_zero_point=120)
  }
  let x = randn([64, 96])
  let gm = compile(mlp, x)
  gm.optimize()
  let ir = gm.ir()
  expect(ir.count("quantize_per_tensor(") == 1, "only the model input is quantized:\n" + ir)
  expect(not ir_has(gm, "relu("), ir)
  expect(ir_has(gm, "relu=true") and ir_has(gm, "output_scale=0.05") and ir_has(gm, "output_scale=0.2"), ir)
  for batch in [64, 1] {
    let xb = randn([batch, 96]) * 1.5
    let g = compile(mlp, xb)
    g.optimize()
    expect_close(g(xb), mlp(xb), rtol=0, atol=0)
  }
}

test "a convolution chain stays u8 between layers, bit for bit" {
  manual_seed(41)
  let (k1, s1) = qweight(randn([8, 3, 3, 3]))
  let kb1 = randn([8])
  let (k2, s2) = qweight(randn([4, 8, 3, 3]))
  fn cnn(x) {
    let h = quantized_conv2d(quantize_per_tensor(x, 0.04, 100, u8), k1, s1, kb1, input_scale=0.04,
                             input_zero_point=100, padding=[1, 1])
    let q = quantize_per_tensor(relu(h), 0.06, 0, u8)
    return quantized_conv2d(q, k2, s2, none, input_scale=0.06, input_zero_point=0, stride=[2, 2], padding=[1, 1])
  }
  let x = randn([2, 3, 12, 12])
  let gm = compile(cnn, x)
  gm.optimize()
  expect(ir_has(gm, "relu=true") and ir_has(gm, "output_scale=0.06"), gm.ir())
  expect(gm.ir().count("quantize_per_tensor(") == 1, gm.ir())
  expect_close(gm(x), cnn(x), rtol=0, atol=0)
}

test "a dequantize and quantize with the same parameters cancel" {
  manual_seed(42)
  let (w, s) = qweight(randn([6, 5]))
  fn f(q) = quantized_linear(quantize_per_tensor(dequantize_per_tensor(q, 0.1, 7), 0.1, 7, u8), w, s, none,
                             input_scale=0.1, input_zero_point=7)
  let q = quantize_per_tensor(randn([3, 5]), 0.1, 7, u8)
  let gm = compile(f, q)
  gm.optimize("lower_quant,dce")
  expect(not ir_has(gm, "dequantize_per_tensor(") and not ir_has(gm, "quantize_per_tensor("), gm.ir())
  expect_close(gm(q), f(q), rtol=0, atol=0)
}

test "explain names the int8 results it leaves in f32" {
  manual_seed(43)
  let (w, s) = qweight(randn([6, 5]))
  fn f(x) {
    let h = quantized_linear(quantize_per_tensor(x, 0.1, 0, u8), w, s, none, input_scale=0.1, input_zero_point=0)
    # h is returned too, so it must exist in f32; the i8 quantize cannot be an epilogue's
    return (h, quantize_per_tensor(h, 0.2, 0, u8), quantize_per_tensor(h * 2.0, 0.2, 0, i8))
  }
  let x = randn([3, 5])
  let gm = compile(f, x)
  let report = gm.optimize("lower_quant", explain=true)
  expect("not folded into quantized_linear: the quantized_linear result has other consumers" in report, report)
  let (a, b, c) = gm(x)
  let (ea, eb, ec) = f(x)
  expect_close(a, ea, rtol=0, atol=0)
  expect_close(b, eb, rtol=0, atol=0)
  expect_close(c, ec, rtol=0, atol=0)
}

test "the quantize moves above max_pool2d and flatten, so a CNN stays u8 to its linear head" {
  manual_seed(44)
  let (k, ks) = qweight(randn([6, 1, 3, 3]))
  let (w, ws) = qweight(randn([10, 6 * 6 * 6]))
  fn cnn(x) {
    let h = quantized_conv2d(quantize_per_tensor(x, 0.03, 90, u8), k, ks, none, input_scale=0.03,
                             input_zero_point=90, padding=[1, 1])
    let p = max_pool2d(relu(h), 2).flatten(1)
    return quantized_linear(quantize_per_tensor(p, 0.05, 0, u8), w, ws, none, input_scale=0.05, input_zero_point=0)
  }
  let x = randn([3, 1, 12, 12])
  let gm = compile(cnn, x)
  gm.optimize()
  let ir = gm.ir()
  expect(ir.count("quantize_per_tensor(") == 1 and not ("relu(" in ir), ir)
  expect("max_pool2d(" in ir and "u8[3, 6, 6, 6]" in ir, "the max pool reads and writes u8:\n" + ir)
  expect_close(gm(x), cnn(x), rtol=0, atol=0)
}
