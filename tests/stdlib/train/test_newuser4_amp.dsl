# Mixed precision as a PyTorch user writes it on the CPU: torch.autocast("cpu",
# dtype=torch.bfloat16) around the forward and the loss, optim.GradScaler around
# backward and step (scale, unscale_ before clipping, step, update). The dtype each op
# gives inside the region is PyTorch 1.13's CPU autocast's (its CPU lists keep softmax,
# reductions and norms in bf16 and send the losses to f32: make_newuser4.py's amp case
# records them); autocast(device_type=..., enabled=false) and the older
# autocast(dtype=bf16) (PyTorch's CUDA lists) work as well. A bf16 model trains to
# nearly the f32 loss.
import nn
import optim

let ref = load("tests/stdlib/reference/newuser4.safetensors")
let F = nn.functional

# make_newuser4.py's AMP_OPS, in its order; 16: bf16, 32: f32
let amp_ops = ["linear", "relu", "matmul", "addmm", "bmm", "conv2d", "softmax", "log_softmax", "sum", "mean",
               "layer_norm", "batch_norm", "cross_entropy", "mse_loss", "nll_loss", "bce_with_logits", "add_f32",
               "exp", "gelu", "cat_f32", "norm"]

fn dtype_code(t) = 16 if t.dtype == bf16 else (32 if t.dtype == f32 else -1)

test "inside autocast(\"cpu\", dtype=bfloat16) every op gives PyTorch's CPU dtype" {
  manual_seed(0)
  let x = randn(5, 4)
  let lin = nn.Linear(4, 2)
  let conv = nn.Conv2d(2, 3, 3)
  let bn = nn.BatchNorm1d(2)
  let tgt = tensor([0, 1, 0, 1, 1])
  let got = {}
  autocast("cpu", dtype=bfloat16) {
    let y = lin(x)
    got = {
      "linear": y, "relu": relu(y), "matmul": y @ y.t(), "addmm": addmm(zeros(5, 5), y, y.t()),
      "bmm": bmm(y[none], y.t()[none]), "conv2d": conv(randn(1, 2, 5, 5)),
      "softmax": softmax(y, -1), "log_softmax": F.log_softmax(y, -1), "sum": y.sum(), "mean": y.mean(),
      "layer_norm": F.layer_norm(y, [2]), "batch_norm": bn(y), "cross_entropy": F.cross_entropy(y, tgt),
      "mse_loss": F.mse_loss(y, zeros(5, 2)), "nll_loss": F.nll_loss(F.log_softmax(y, -1), tgt),
      "bce_with_logits": F.binary_cross_entropy_with_logits(y, zeros(5, 2)), "add_f32": y + x[:, :2],
      "exp": y.exp(), "gelu": F.gelu(y), "cat_f32": cat([y, x[:, :2]]), "norm": y.norm(),
    }
  }
  let want = ref["amp.dtypes"].tolist()
  for k in range(len(amp_ops)) {
    let name = amp_ops[k]
    expect(dtype_code(got[name]) == want[k], f"{name}: {got[name].dtype}, PyTorch's {want[k]}")
  }
  expect(bn.running_mean.dtype == f32, "BatchNorm's running statistics stay f32")
}

test "an MLP's values under CPU autocast: PyTorch's bf16 forward, f32 loss and f32 gradients" {
  let m = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 3))
  m.load_state_dict({k: ref["amp." + k] for k in m.state_dict().keys()})
  let (out, probs, loss) = (none, none, none)
  autocast("cpu", dtype=bfloat16) {
    out = m(ref["amp.x"])
    probs = softmax(out, -1)
    loss = F.cross_entropy(out, ref["amp.y"])
  }
  # the forward rounds where PyTorch's CPU kernels round (a linear in f32, its result
  # once to bf16): the same bits
  expect(out.dtype == bf16 and probs.dtype == bf16 and loss.dtype == f32)
  expect_close(out.float(), ref["amp.out"], rtol=0, atol=0)
  expect_close(probs.float(), ref["amp.probs"], rtol=0, atol=0)
  expect_close(loss, ref["amp.loss"], rtol=0, atol=0)
  loss.backward()
  # the backward's bf16 products may round in another order: within a bf16 ulp or two
  # of gradients up to 0.2 (an ulp there is 1e-3)
  for (name, p) in m.named_parameters() {
    expect(p.grad.dtype == f32, name)
    expect_close(p.grad, ref["amp.grad." + name], rtol=1e-2, atol=2e-3)
  }
}

test "autocast's arguments: device_type by name, enabled=false, the CUDA lists of autocast(dtype=bf16)" {
  let lin = nn.Linear(4, 4)
  let x = randn(3, 4)
  autocast(device_type="cpu") { expect(lin(x).dtype == bf16 and softmax(lin(x), -1).dtype == bf16) }
  autocast("cpu", dtype=bfloat16, enabled=false) { expect(lin(x).dtype == f32) }
  autocast("cpu") {
    autocast("cpu", enabled=false) { expect(lin(x).dtype == f32, "a nested disabled region") }
    expect(lin(x).dtype == bf16, "the outer region again")
  }
  autocast(dtype=bf16) { expect(lin(x).dtype == bf16 and softmax(lin(x), -1).dtype == f32, "the CUDA lists") }
  expect(lin(x).dtype == f32 and not is_autocast_enabled())
  # a compiled loop whose autocast("cpu") block holds a break keeps the CPU lists
  fn f(x) {
    let out = x
    for i in range(3) {
      autocast("cpu") {
        out = softmax(lin(x), -1)
        if out.sum() > 100 { break }
      }
    }
    return out
  }
  expect(f(x).dtype == bf16 and compile(f, x)(x).dtype == bf16)
}

test "a GradScaler loop under CPU autocast trains a bf16 classifier to nearly the f32 loss" {
  manual_seed(0)
  let x = randn(256, 8)
  let y = (x[:, :4].sum(1) > x[:, 4:].sum(1)).long()
  fn run(use_amp) {
    manual_seed(1)
    let m = nn.Sequential(nn.Linear(8, 32), nn.LayerNorm(32), nn.GELU(), nn.Linear(32, 2))
    let opt = optim.AdamW(m.parameters(), lr=1e-2)
    let scaler = optim.GradScaler(enabled=use_amp)
    let loss = none
    for step in range(100) {
      opt.zero_grad()
      autocast("cpu", dtype=bfloat16, enabled=use_amp) {
        let out = m(x)
        loss = F.cross_entropy(out, y)
        if use_amp { expect(out.dtype == bf16 and loss.dtype == f32) }
      }
      scaler.scale(loss).backward()
      scaler.unscale_(opt)
      nn.utils.clip_grad_norm_(m.parameters(), 1.0)
      scaler.step(opt)
      scaler.update()
    }
    for p in m.parameters() { expect(p.dtype == f32 and p.grad.dtype == f32) }
    return loss.item()
  }
  let full = run(false)
  let mixed = run(true)
  expect(full < 0.15 and mixed < full + 0.05, f"f32 {full}, bf16 autocast {mixed}")
}
