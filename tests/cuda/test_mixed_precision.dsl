# Mixed precision on the GPU: autocast regions in bf16 and f16 and the GradScaler on
# CUDA tensors, against the same steps on the CPU. Without a GPU each test checks
# instead that asking for one is a clear error.
import nn
import optim
import cuda

let no_gpu = "this machine has no GPU" if cuda.is_built() else "this nabla was built without CUDA"

test "autocast on the GPU: bf16 and f16 products, f32 losses and gradients, close to the CPU's f32" {
  if not cuda.is_available() {
    expect_error("randn([2], device=\"cuda\")", f"cuda:0: {no_gpu}")
    return none
  }
  let target = tensor([0, 1, 2, 3, 0, 1, 2, 3])
  for dt in [bf16, f16] {
    manual_seed(3)
    let x = randn([8, 16])
    let fc = nn.Linear(16, 4)
    let cpu_loss = cross_entropy(fc(x), target)
    cpu_loss.backward()
    manual_seed(3)
    let xg = randn([8, 16]).to("cuda")
    let fg = nn.Linear(16, 4)
    fg.to("cuda")
    autocast(dtype=dt) {
      let y = fg(xg)
      expect(y.dtype == dt and y.device == "cuda:0", f"linear in autocast({dt}) on the GPU gives {y.dtype} on {y.device}")
      let loss = cross_entropy(y, target.to("cuda"))
      expect(loss.dtype == f32, f"cross_entropy in autocast({dt}) gives {loss.dtype}")
      expect_close(loss.detach().cpu(), cpu_loss.detach(), rtol=0.02, atol=0.02)
      loss.backward()
    }
    expect(fg.weight.grad.dtype == f32 and fg.weight.grad.device == "cuda:0")
    expect_close(fg.weight.grad.cpu(), fc.weight.grad, rtol=0.05, atol=0.02)
    expect_close(fg.bias.grad.cpu(), fc.bias.grad, rtol=0.05, atol=0.02)
  }
}

test "16-bit tensors on the GPU: storage, arithmetic and reductions round as on the CPU" {
  if not cuda.is_available() {
    expect_error("randn([2], dtype=f16, device=\"cuda\")", f"cuda:0: {no_gpu}")
    return none
  }
  manual_seed(4)
  let a = randn([64, 32])
  let b = randn([32, 16])
  for dt in [bf16, f16] {
    let ag = a.to(dt).to("cuda")
    let bg = b.to(dt).to("cuda")
    expect(ag.dtype == dt and ag.device == "cuda:0")
    expect_close((ag * 2 + 1).cpu().to(f32), (a.to(dt) * 2 + 1).to(f32))
    expect_close(matmul(ag, bg).cpu().to(f32), matmul(a, b), rtol=0.05, atol=0.1)
    expect_close(ag.sum().cpu().to(f32), a.to(dt).to(f32).sum(), rtol=0.01, atol=0.1)
  }
}

test "GradScaler on the GPU: scales, unscales, steps; skips an infinite step and backs off" {
  if not cuda.is_available() {
    expect_error("tensor([1.0], device=\"cuda\")", f"cuda:0: {no_gpu}")
    return none
  }
  let w = tensor([1.0, -2.0], device="cuda", requires_grad=true)
  let opt = optim.SGD([w], lr=0.1)
  let scaler = optim.GradScaler(init_scale=1024.0)
  scaler.scale((w * w).sum()).backward()
  expect_close(w.grad.cpu(), tensor([2048.0, -4096.0]))
  expect(scaler.step(opt))
  expect(w.device == "cuda:0")
  expect_close(w.detach().cpu(), tensor([0.8, -1.6]))
  scaler.update()
  expect(scaler.get_scale() == 1024.0)
  opt.zero_grad()
  scaler.scale((w * 1e38).sum()).backward()   # 1e38 * 1024 overflows f32 to inf
  expect(not scaler.step(opt), "a step with an infinite gradient on the GPU must be skipped")
  expect_close(w.detach().cpu(), tensor([0.8, -1.6]))
  scaler.update()
  expect(scaler.get_scale() == 512.0, f"an infinite step halves the scale, got {scaler.get_scale()}")
}
