# Models and their graphs on a GPU, against the same model on the CPU. Without a GPU
# each test checks instead that asking for one is a clear error, not a crash.
import nn
import cuda
import optim
import data

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

# The same MLP twice, with equal parameters: one for eager steps, one for graph steps.
fn twin_mlps(device) {
  let a = small_mlp()
  let b = small_mlp()
  b.load_state_dict(a.state_dict())
  return (a.to(device), b.to(device))
}

test "a compiled training step on the GPU replays as a CUDA graph and equals eager steps" {
  manual_seed(7)
  if not cuda.is_available() {
    expect_error("compile(small_mlp(), randn([2, 32], device=\"cuda\"))", f"cuda:0: {no_gpu}")
    return none
  }
  let (eager, graphed) = twin_mlps("cuda")
  let opt_e = optim.Adam(eager.parameters(), lr=1e-2)
  let opt_g = optim.Adam(graphed.parameters(), lr=1e-2)
  fn loss_g(xb, yb) = cross_entropy(graphed(xb), yb)
  let step = compile(loss_g, zeros([8, 32], device="cuda"), zeros([8], dtype=i64, device="cuda"), train=true)
  step.optimize("default")
  let eager_losses = []
  let graph_losses = []  # kept across steps: each replay must not overwrite the last one's loss
  for i in range(6) {
    let x = randn([8, 32], device="cuda")
    let y = randint(0, 10, [8], device="cuda")
    opt_e.zero_grad()
    let le = cross_entropy(eager(x), y)
    le.backward()
    opt_e.step()
    eager_losses.append(le.detach())
    opt_g.zero_grad()
    graph_losses.append(step(x, y))
    opt_g.step()
  }
  for i in range(6) { expect_close(graph_losses[i].cpu(), eager_losses[i].cpu(), rtol=1e-5, atol=1e-6) }
  let pe = eager.parameters()
  let pg = graphed.parameters()
  for k in range(len(pe)) { expect_close(pg[k].cpu(), pe[k].cpu(), rtol=1e-4, atol=1e-5) }
  let report = step.explain()
  expect("CUDA graph: 4 runs replayed" in report, report)
  expect("run 2: recorded a CUDA graph of" in report, report)  # run 1 warmed up
}

test "a new input shape records a graph of its own; cuda_graph=false launches kernel by kernel" {
  manual_seed(8)
  if not cuda.is_available() { return none }
  let model = small_mlp().to("cuda")
  let gm = compile(model, randn([8, 32], device="cuda"))
  let plain = compile(model, randn([8, 32], device="cuda"), cuda_graph=false)
  for n in [8, 8, 8, 3, 3, 3, 8] {
    let x = randn([n, 32], device="cuda")
    let want = none
    no_grad { want = model(x) }
    expect_close(gm(x).cpu(), want.cpu(), rtol=1e-5, atol=1e-6)
    expect_close(plain(x).cpu(), want.cpu(), rtol=1e-5, atol=1e-6)
  }
  let report = gm.explain()
  expect("CUDA graph: 2 runs replayed" in report, report)  # batch 8: runs 1 warm-up, 2 record, 3 and 7 replay
  expect("CUDA graph: 1 run replayed" in report, report)   # batch 3
  expect("CUDA graph: off" in plain.explain(), plain.explain())
}

test "a graph with dropout is not replayed, and explain() says why" {
  manual_seed(9)
  if not cuda.is_available() { return none }
  let model = nn.Sequential([nn.Linear(32, 32), nn.Dropout(0.5)]).to("cuda")
  let gm = compile(model, randn([4, 32], device="cuda"))
  let x = randn([4, 32], device="cuda")
  let a = gm(x)
  let b = gm(x)
  let c = gm(x)
  expect(sum(ne(b, c)).item() > 0)  # a fresh mask at each call
  expect("not replayed: dropout" in gm.explain(), gm.explain())
}

test "cuda.set_benchmark: convolutions whose algorithm was chosen by timing equal the heuristics' choice" {
  expect(not cuda.benchmark())
  cuda.set_benchmark(true)
  expect(cuda.benchmark() == cuda.is_built())  # a build without CUDA keeps no setting (as allow_tf32)
  cuda.set_benchmark(false)
  if not cuda.is_available() { return none }
  manual_seed(10)
  let x = randn([4, 8, 16, 16], device="cuda", requires_grad=true)
  let w = randn([16, 8, 3, 3], device="cuda", requires_grad=true)
  let grads = []
  for on in [false, true] {
    cuda.set_benchmark(on)
    let y = conv2d(x, w, none, padding=1)
    let (gx, gw) = grad(sum(y * y), [x, w])
    grads.append([y.detach().cpu(), gx.cpu(), gw.cpu()])
  }
  cuda.set_benchmark(false)
  for k in range(3) { expect_close(grads[1][k], grads[0][k], rtol=1e-4, atol=1e-3) }
}

test "replayed outputs that the caller keeps never change, also those that are views of an input" {
  manual_seed(11)
  if not cuda.is_available() { return none }
  fn as_square(v) = v.reshape([2, 2])  # the output is a view of the input's buffer
  fn doubled(v) = v * 2.0
  let views = compile(as_square, zeros([4], device="cuda"))
  let products = compile(doubled, zeros([4], device="cuda"))
  let kept_views = []
  let kept_products = []
  for i in range(5) {
    let x = ones([4], device="cuda") * i
    kept_views.append(views(x))
    kept_products.append(products(x))
  }
  for i in range(5) {
    expect_close(kept_views[i].cpu(), ones([2, 2]) * i)
    expect_close(kept_products[i].cpu(), ones([4]) * (2.0 * i))
  }
  expect("CUDA graph: 3 runs replayed" in products.explain(), products.explain())
  # an output fed back in as the next input
  let y = ones([4], device="cuda")
  for i in range(4) { y = products(y) }
  expect_close(y.cpu(), ones([4]) * 16.0)
}

test "a compiled training loop on the GPU waits for the device only where the script reads a value" {
  manual_seed(12)
  expect(cuda.host_waits() >= 0)
  if not cuda.is_available() { return none }
  let model = small_mlp().to("cuda")
  let opt = optim.Adam(model.parameters(), lr=1e-3)
  fn loss_of(xb, yb) = cross_entropy(model(xb), yb)
  let step = compile(loss_of, zeros([16, 32], device="cuda"), zeros([16], dtype=i64, device="cuda"), train=true)
  step.optimize("default")
  let xs = randn([160, 32], device="cuda")
  let ys = randint(0, 10, [160], device="cuda")
  let batches = data.TensorDataset(xs, ys).batches(16)
  let total = zeros([], device="cuda")
  for (xb, yb) in batches {  # warm-up, recording
    opt.zero_grad()
    total = total + step(xb, yb)
    opt.step()
  }
  let before = cuda.host_waits()
  for epoch in range(3) {
    for (xb, yb) in batches {
      opt.zero_grad()
      total = total + step(xb, yb)
      opt.step()
    }
  }
  expect(cuda.host_waits() == before, f"{cuda.host_waits() - before} waits in 30 steps")
  let mean = total.item() / 40
  expect(cuda.host_waits() == before + 1)
  expect(mean > 0)
}

# Trains twin MLPs on the GPU with optimizers from make_opt and GradScalers, eagerly and
# with the step inside a replayed graph; step 4 overflows. Checks the losses, the
# parameters, the scales, the skipped step and that the compiled steps never wait.
fn replayed_step_equals_eager(make_opt) {
  let (eager, graphed) = twin_mlps("cuda")
  let opt_e = make_opt(eager.parameters())
  let opt_g = make_opt(graphed.parameters())
  let sc_e = optim.GradScaler(init_scale=1024.0, growth_interval=3)
  let sc_g = optim.GradScaler(init_scale=1024.0, growth_interval=3)
  let sched_e = optim.StepLR(opt_e, 2, gamma=0.5)
  let sched_g = optim.StepLR(opt_g, 2, gamma=0.5)
  fn loss_g(xb, yb) = cross_entropy(graphed(xb), yb)
  let step = compile(loss_g, zeros([8, 32], device="cuda"), zeros([8], dtype=i64, device="cuda"), train=true,
                     optimizer=opt_g, scaler=sc_g)
  step.optimize("default")
  let losses_e = []
  let losses_g = []
  let waits = 0
  for i in range(8) {
    let x = randn([8, 32], device="cuda") * (1e38 if i == 4 else 1.0)  # step 4: Inf gradients (1e30 would stay finite)
    let y = randint(0, 10, [8], device="cuda")
    opt_e.zero_grad()
    let le = cross_entropy(eager(x), y)
    sc_e.scale(le).backward()
    sc_e.step(opt_e)
    sc_e.update()
    sched_e.step()
    losses_e.append(le.detach())
    let before = cuda.host_waits()
    losses_g.append(step(x, y))
    sched_g.step()
    waits = waits + cuda.host_waits() - before
  }
  let who = type(opt_g)
  expect(waits == 0, f"{who}: {waits} host waits in the compiled steps")
  for i in range(8) {
    if i != 4 { expect_close(losses_g[i].cpu(), losses_e[i].cpu(), rtol=1e-5, atol=1e-6) }
  }
  let pe = eager.parameters()
  let pg = graphed.parameters()
  for k in range(len(pe)) { expect_close(pg[k].cpu(), pe[k].cpu(), rtol=1e-4, atol=1e-5) }
  expect(sc_g.get_scale() == sc_e.get_scale(), f"{who}: {sc_g.get_scale()} {sc_e.get_scale()}")
  expect(opt_g.state[0]["step"].item() == 7.0, f"{who}: {opt_g.state[0]['step']}")
  let report = step.explain()
  expect("CUDA graph: 6 runs replayed" in report, report)
}

test "Adam and the GradScaler inside a replayed step: equal to eager, an Inf step skipped on the device, no host wait" {
  manual_seed(13)
  if not cuda.is_available() {
    expect_error("compile(small_mlp(), randn([2, 32], device=\"cuda\"))", f"cuda:0: {no_gpu}")
    return none
  }
  replayed_step_equals_eager(fn(ps) = optim.Adam(ps, lr=1e-2))
}

test "optimizers written as ops (NAdam, centered RMSprop with momentum, amsgrad) inside a replayed step, as Adam's" {
  manual_seed(14)
  if not cuda.is_available() {
    expect_error("compile(small_mlp(), randn([2, 32], device=\"cuda\"))", f"cuda:0: {no_gpu}")
    return none
  }
  replayed_step_equals_eager(fn(ps) = optim.NAdam(ps, lr=1e-2))
  replayed_step_equals_eager(fn(ps) = optim.RMSprop(ps, lr=1e-3, momentum=0.9, centered=true))
  replayed_step_equals_eager(fn(ps) = optim.Adam(ps, lr=1e-2, amsgrad=true))
}

test "a compiled bf16 autocast training step replays, with the loss and gradients of eager autocast" {
  manual_seed(13)
  if not cuda.is_available() { return none }
  let (eager, graphed) = twin_mlps("cuda")
  fn loss_in(model, xb, yb) {
    let loss = none
    autocast(dtype=bf16) { loss = cross_entropy(model(xb), yb) }
    return loss
  }
  let step = compile(fn(xb, yb) = loss_in(graphed, xb, yb), zeros([8, 32], device="cuda"),
                     zeros([8], dtype=i64, device="cuda"), train=true)
  for i in range(5) {
    let x = randn([8, 32], device="cuda")
    let y = randint(0, 10, [8], device="cuda")
    eager.zero_grad()
    graphed.zero_grad()
    let want = loss_in(eager, x, y)
    want.backward()
    let got = step(x, y)
    expect_close(got.cpu(), want.detach().cpu(), rtol=1e-5, atol=1e-6)
    let pe = eager.parameters()
    let pg = graphed.parameters()
    for k in range(len(pe)) { expect_close(pg[k].grad.cpu(), pe[k].grad.cpu(), rtol=1e-4, atol=1e-5) }
  }
  expect("CUDA graph: 3 runs replayed" in step.explain(), step.explain())
}
