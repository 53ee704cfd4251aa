# Mixed precision: autocast regions and the GradScaler.
import nn
import optim

test "autocast runs products in bf16 and losses in f32; gradients come back in f32" {
  let x = randn([8, 16], requires_grad=true)
  let fc = nn.Linear(16, 4)
  autocast(dtype=bf16) {
    let y = fc(x)
    expect(y.dtype == bf16, f"linear in autocast gives {y.dtype}")
    let loss = cross_entropy(y, tensor([0, 1, 2, 3, 0, 1, 2, 3]))
    expect(loss.dtype == f32, f"cross_entropy in autocast gives {loss.dtype}")
    loss.backward()
  }
  expect(x.grad.dtype == f32 and fc.weight.grad.dtype == f32)
  let plain = fc(x)
  expect(plain.dtype == f32, "outside the region ops keep f32")
  let y32 = linear(x, fc.weight, fc.bias)
  let y16 = none
  autocast(bf16) { y16 = linear(x, fc.weight, fc.bias) }
  expect_close(to_dtype(y16, f32), y32, rtol=0.05, atol=0.05)
  expect_error("autocast(i64) { }", "autocast: dtype must be bf16 or f16")
}

test "GradScaler scales the loss, unscales gradients and steps" {
  let w = tensor([1.0, -2.0], requires_grad=true)
  let opt = optim.SGD([w], lr=0.1)
  let scaler = optim.GradScaler(init_scale=1024.0)
  let loss = (w * w).sum()
  scaler.scale(loss).backward()
  expect_close(w.grad, tensor([2048.0, -4096.0]))
  expect(scaler.step(opt))
  expect_close(w, tensor([0.8, -1.6]))
  scaler.update()
  expect(scaler.get_scale() == 1024.0)
}

test "GradScaler skips the step on Inf and backs off; grows after clean steps" {
  let w = tensor([1.0], requires_grad=true)
  let opt = optim.SGD([w], lr=0.1)
  let scaler = optim.GradScaler(init_scale=8.0, growth_interval=2)
  let loss = (w * 1e38).sum()
  scaler.scale(loss).backward()   # 1e38 * 8 overflows f32 to inf
  expect(not scaler.step(opt), "a step with an infinite gradient must be skipped")
  expect_close(w, tensor([1.0]))
  scaler.update()
  expect(scaler.get_scale() == 4.0)
  for i in range(2) {
    opt.zero_grad()
    scaler.scale((w * w).sum()).backward()
    expect(scaler.step(opt))
    scaler.update()
  }
  expect(scaler.get_scale() == 8.0, f"two clean steps double the scale, got {scaler.get_scale()}")
}
