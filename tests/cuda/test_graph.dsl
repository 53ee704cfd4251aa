# Models and their graphs on a GPU, against the same model on the CPU. Without a GPU
# each test checks instead that asking for one is a clear error, not a crash.
import nn
import cuda

fn small_mlp() = nn.Sequential([nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 10)])
# What asking for a GPU says where there is none: a CUDA build on a machine without a
# GPU, or a build without CUDA (NABLA_CUDA=OFF).
let no_gpu = "this machine has no GPU" if cuda.is_built() else "this nabla was built without CUDA"

fn grads_of(params) {
  let out = []
  for p in params { out.append(p.grad.clone().cpu()) }
  return out
}

test "eager on the GPU: forward, loss and gradients equal the CPU's" {
  manual_seed(5)
  let model = small_mlp()
  let x = randn([8, 32])
  let y = randint(0, 10, [8])
  if not cuda.is_available() {
    expect_error("small_mlp().to(\"cuda\")", f"cuda:0: {no_gpu}")
    expect_error("randn([2]).to(\"cuda:1\")", f"cuda:1: {no_gpu}")
    return none
  }
  cross_entropy(model(x), y).backward()
  let cpu_loss = cross_entropy(model(x), y).detach()
  let cpu_grads = grads_of(model.parameters())
  model.zero_grad()
  model.to("cuda")
  let loss = cross_entropy(model(x.to("cuda")), y.to("cuda"))
  expect(loss.device == "cuda:0")
  loss.backward()
  expect_close(loss.detach().cpu(), cpu_loss, rtol=1e-5, atol=1e-6)
  let gpu_grads = grads_of(model.parameters())
  for k in range(len(cpu_grads)) { expect_close(gpu_grads[k], cpu_grads[k], rtol=1e-4, atol=1e-6) }
  # an op on tensors of two devices names both
  expect_error("randn([3]) + randn([3]).to(\"cuda\")",
               "add: expected all tensors on one device, but 'self' is on cpu and 'other' is on cuda:0")
}

test "a graph on the GPU (fused kernels, linear_relu, planned arena) equals eager on the CPU" {
  manual_seed(6)
  let model = small_mlp()
  let x = randn([8, 32])
  if not cuda.is_available() {
    expect_error("randn([2], device=\"cuda\")", f"cuda:0: {no_gpu}")
    return none
  }
  let want = none
  no_grad { want = model(x) }
  model.to("cuda")
  let xg = x.to("cuda")
  no_grad {
    let gm = compile(model, xg)
    gm.optimize("default")
    let got = gm(xg)
    expect(got.device == "cuda:0")
    expect_close(got.cpu(), want, rtol=1e-5, atol=1e-6)
  }
}
