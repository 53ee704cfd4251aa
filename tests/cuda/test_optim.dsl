# The fused Adam/AdamW and SGD steps on a GPU (tensor/cuda/optim.cu): twenty steps give the
# parameters that the tensor-op path gives on the GPU and that the CPU kernel gives,
# and one profiled step is one adam_step_multi row on cuda:0, as on the CPU. Without a GPU
# each test checks instead that asking for one is a clear error.
import cuda
import optim

let no_gpu = "this machine has no GPU" if cuda.is_built() else "this nabla was built without CUDA"

fn quad(x) = (3.0 * (x - 1.5) * (x - 1.5)).sum()

# x after `steps` steps of the optimizer `make` makes, from the same start, on `device`.
fn trained(make, device, fused, steps) {
  optim._use_fused(fused)
  let x = tensor([0.5, -1.0, 2.0, 0.0, 4.0, -3.5], device=device, requires_grad=true)
  let opt = make([x])
  for i in range(steps) {
    opt.zero_grad()
    quad(x).backward()
    opt.step()
  }
  optim._use_fused(true)
  return x.detach().cpu()
}

test "the fused Adam step on a GPU equals the tensor-op path and the CPU kernel" {
  if not cuda.is_available() {
    expect_error("tensor([1.0], device=\"cuda\")", f"cuda:0: {no_gpu}")
    return none
  }
  for make in [fn(ps) = optim.Adam(ps, lr=0.05, weight_decay=0.1), fn(ps) = optim.AdamW(ps, lr=0.05)] {
    let fused = trained(make, "cuda", true, 20)
    expect_close(fused, trained(make, "cuda", false, 20), rtol=1e-5, atol=1e-6)
    expect_close(fused, trained(make, "cpu", true, 20), rtol=1e-5, atol=1e-6)
  }
}

test "the fused SGD step on a GPU equals the tensor-op path bit for bit" {
  if not cuda.is_available() {
    expect_error("tensor([1.0], device=\"cuda\")", f"cuda:0: {no_gpu}")
    return none
  }
  for make in [fn(ps) = optim.SGD(ps, lr=0.05, momentum=0.9, weight_decay=0.1),
               fn(ps) = optim.SGD(ps, lr=0.05, momentum=0.9, nesterov=true),
               fn(ps) = optim.SGD(ps, lr=0.05, momentum=0.5, dampening=0.25)] {
    let fused = trained(make, "cuda", true, 20)
    expect_close(fused, trained(make, "cuda", false, 20), rtol=0, atol=0)
    expect_close(fused, trained(make, "cpu", true, 20), rtol=0, atol=0)
  }
}

test "one Adam step on a GPU is one adam_step_multi row of the profile" {
  if not cuda.is_available() {
    expect_error("zeros([3], device=\"cuda\")", f"cuda:0: {no_gpu}")
    return none
  }
  let w = randn([10, 3], device="cuda", requires_grad=true)
  (w * w).sum().backward()
  let opt = optim.Adam([w], lr=0.1)
  profile(print=false) { opt.step() }
  let steps = []
  for e in last_profile().events() { if e["name"] == "adam_step_multi" { steps.append(e) } }
  expect(len(steps) == 1, f"{last_profile().events()}")
  expect(steps[0]["device"] == "cuda:0", f"{steps[0]}")
  let rows = last_profile().rows()
  expect(len(rows) == 1 and rows[0]["key"] == "adam_step_multi", f"{rows}")
  expect(rows[0]["flops"] == 16 * 30 and rows[0]["bytes"] == 7 * 30 * 4, f"{rows[0]}")
}
