# Activation checkpointing: lower peak memory, the same gradients.
import nn

test "checkpointed segments lower the peak memory and give the same gradients" {
  manual_seed(0)
  let w = (randn([256, 256]) * 0.05).requires_grad_(true)
  let x = randn([512, 256], requires_grad=true)
  fn segment(h) {
    let out = h
    for i in range(5) { out = tanh(out @ w) }
    return out
  }
  fn run(use_checkpoint) {
    let h = x
    for s in range(4) { h = nn.checkpoint(segment, h) if use_checkpoint else segment(h) }
    return h.sum()
  }
  reset_peak_memory_stats()
  let base = memory_allocated()
  run(false).backward()
  let plain_peak = max_memory_allocated() - base
  let gw = w.grad.clone()
  let gx = x.grad.clone()
  w.grad = none
  x.grad = none
  reset_peak_memory_stats()
  base = memory_allocated()
  run(true).backward()
  let checkpoint_peak = max_memory_allocated() - base
  expect(checkpoint_peak < 0.7 * plain_peak, f"peak {checkpoint_peak} bytes with checkpoints, {plain_peak} without")
  expect_close(w.grad, gw, rtol=1e-5, atol=1e-5)
  expect_close(x.grad, gx, rtol=1e-5, atol=1e-5)
}

test "checkpoint passes several arguments, non-tensor ones too, and several outputs" {
  manual_seed(1)
  let lin = nn.Linear(6, 6)
  let a = randn([3, 6], requires_grad=true)
  let b = randn([3, 6])
  fn pair(x, y, scale) = (tanh(lin(x) * scale), sigmoid(lin(y)) * x)
  fn loss_of(outs) = outs[0].sum() + (outs[1] * outs[1]).sum()
  loss_of(pair(a, b, 0.5)).backward()
  let ga = a.grad.clone()
  let gw = lin.weight.grad.clone()
  a.grad = none
  lin.weight.grad = none
  loss_of(nn.checkpoint(pair, a, b, 0.5)).backward()
  expect_close(a.grad, ga, rtol=1e-6, atol=1e-7)
  expect_close(lin.weight.grad, gw, rtol=1e-6, atol=1e-7)
  expect(b.grad == none)
}

test "checkpoint without an input that requires grad is an error, not silently missing gradients" {
  expect_error("nn.checkpoint(nn.Linear(2, 2), ones([1, 2]))", "no tensor argument requires grad")
}

test "memory statistics move with allocations" {
  let before = memory_allocated()
  let t = zeros([1024, 1024])
  expect(memory_allocated() >= before + 4 * 1024 * 1024)
  expect(max_memory_allocated() >= memory_allocated())
  expect(memory_reserved() >= memory_allocated())
}
