# Point-cloud models as a PyTorch user writes them: PointNet (shared per-point MLPs as
# 1x1 nn.Conv1d with BatchNorm1d, a max over the points, a T-Net predicting a 3x3
# transform added to the identity and applied by bmm, and the orthogonality regularizer
# ||I - A A^T|| built with eye and bmm) and Deep Sets (phi per element, a masked sum,
# rho), both invariant to the order of the points. The PointNet's logits, transform,
# regularizer, loss, gradients and BatchNorm statistics in training mode, and the Deep
# Sets' masked output and gradients, are checked against PyTorch 1.13 at f64
# (tests/stdlib/reference/make_newuser6.py); then PointNet learns to tell spheres,
# cubes and planes apart, and Deep Sets learns the mean norm of a set.
import nn
import optim
import linalg

let ref = load("tests/stdlib/reference/newuser6.safetensors")

model TNet(k=3) {
  k = k
  conv = nn.Sequential(nn.Conv1d(k, 16, 1), nn.BatchNorm1d(16), nn.ReLU(), nn.Conv1d(16, 32, 1), nn.ReLU())
  fc = nn.Sequential(nn.Linear(32, 16), nn.ReLU(), nn.Linear(16, k * k))
  forward(x) {
    let f = self.conv(x).max(dim=2)[0]
    return self.fc(f).view(-1, self.k, self.k) + eye(self.k, dtype=x.dtype).unsqueeze(0)
  }
}

model PointNet(num_classes=3) {
  tnet = TNet(3)
  mlp = nn.Sequential(nn.Conv1d(3, 16, 1), nn.BatchNorm1d(16), nn.ReLU(), nn.Conv1d(16, 32, 1),
                      nn.BatchNorm1d(32), nn.ReLU())
  head = nn.Sequential(nn.Linear(32, 16), nn.ReLU(), nn.Dropout(0.0), nn.Linear(16, num_classes))
  forward(pts) {
    let trans = self.tnet(pts.transpose(1, 2))
    let x = bmm(pts, trans).transpose(1, 2)
    x = max(self.mlp(x), 2, keepdim=false)[0]
    return (self.head(x), trans)
  }
}

fn orthogonality(trans) {
  let I = eye(trans.shape[1], dtype=trans.dtype).expand(trans.shape[0], -1, -1)
  return linalg.norm(I - bmm(trans, trans.transpose(1, 2)), dim=(1, 2)).mean()
}

model DeepSets(d_in=3, hidden=16, out=1) {
  phi = nn.Sequential(nn.Linear(d_in, hidden), nn.ELU(), nn.Linear(hidden, hidden))
  rho = nn.Sequential(nn.ELU(), nn.Linear(hidden, hidden), nn.ELU(), nn.Linear(hidden, out))
  forward(x, mask) {
    let h = self.phi(x) * mask.unsqueeze(-1)
    return self.rho(h.sum(1)).squeeze(-1)
  }
}

fn loaded(m, name) {
  m.double()
  m.load_state_dict({k: ref[name + "." + k] for k in m.state_dict().keys()})
  return m
}

test "PointNet's logits, T-Net transform, orthogonality loss and gradients match PyTorch in training mode" {
  let m = loaded(PointNet(), "pointnet")
  m.train()
  let (logits, trans) = m(ref["pointnet.pts"])
  expect_close(logits, ref["pointnet.logits"], rtol=1e-11, atol=1e-13)
  expect_close(trans, ref["pointnet.trans"], rtol=1e-11, atol=1e-13)
  let reg = orthogonality(trans)
  expect_close(reg, ref["pointnet.reg"], rtol=1e-12, atol=1e-14)
  let loss = nn.functional.cross_entropy(logits, ref["pointnet.y"]) + 0.001 * reg
  expect_close(loss, ref["pointnet.loss"], rtol=1e-12, atol=1e-14)
  loss.backward()
  for (name, p) in m.named_parameters() { expect_close(p.grad, ref["pointnet.grad." + name], rtol=1e-9, atol=1e-12) }
  for (k, v) in m.state_dict().items() {
    if "running" in k { expect_close(v, ref["pointnet.after." + k], rtol=1e-12, atol=1e-14) }
  }
}

test "Deep Sets' masked sum, output and gradients match PyTorch" {
  let ds = loaded(DeepSets(), "deepsets")
  let out = ds(ref["deepsets.x"], ref["deepsets.mask"])
  expect_close(out, ref["deepsets.out"], rtol=1e-12, atol=1e-14)
  let loss = nn.functional.mse_loss(out, ref["deepsets.target"])
  expect_close(loss, ref["deepsets.loss"], rtol=1e-12, atol=1e-14)
  loss.backward()
  for (name, p) in ds.named_parameters() { expect_close(p.grad, ref["deepsets.grad." + name], rtol=1e-10, atol=1e-13) }
}

test "PointNet and Deep Sets do not depend on the order of the points" {
  manual_seed(1)
  let m = PointNet().double()
  m.eval()
  let pts = randn(2, 12, 3, dtype=f64)
  let perm = randperm(12)
  expect_close(m(pts)[0], m(pts[:, perm])[0], rtol=1e-12, atol=1e-13)
  let ds = DeepSets().double()
  let mask = ones(2, 12, dtype=bool)
  mask[0, 7:] = false
  expect_close(ds(pts, mask), ds(pts[:, perm], mask[:, perm]), rtol=1e-12, atol=1e-13)
  # a masked-out point changes nothing
  let moved = pts.clone()
  moved[0, 9] = 100.0
  expect_close(ds(pts, mask), ds(moved, mask), rtol=1e-12, atol=1e-13)
}

# 32 points on a unit sphere, on a cube's surface, or on a plane, randomly rotated
fn cloud(kind, n=32) {
  let p = randn(n, 3)
  if kind == 0 { p = p / p.norm(dim=1, keepdim=true) }
  elif kind == 1 {
    p = p / p.abs().max(dim=1, keepdim=true)[0]
  } else { p[:, 2] = 0.0 }
  let (q, _) = linalg.qr(randn(3, 3))
  return p @ q
}

test "PointNet learns spheres, cubes and planes with the orthogonality regularizer" {
  manual_seed(0)
  let labels = randint(0, 3, [48])
  let clouds = stack([cloud(labels[i].item()) for i in range(48)])
  let m = PointNet()
  let opt = optim.Adam(m.parameters(), lr=1e-2)
  for step in range(60) {
    let (logits, trans) = m(clouds)
    let loss = nn.functional.cross_entropy(logits, labels) + 0.001 * orthogonality(trans)
    opt.zero_grad()
    loss.backward()
    opt.step()
  }
  m.eval()
  let test_labels = randint(0, 3, [30])
  let test_clouds = stack([cloud(test_labels[i].item()) for i in range(30)])
  let acc = 0.0
  no_grad { acc = (m(test_clouds)[0].argmax(-1) == test_labels).float().mean().item() }
  expect(acc > 0.85, f"accuracy {acc}")
}

test "Deep Sets learns the mean norm of sets of varying size" {
  manual_seed(0)
  let ds = DeepSets(d_in=3, hidden=32)
  let opt = optim.Adam(ds.parameters(), lr=5e-3)
  let final = 0.0
  for step in range(200) {
    let x = randn(32, 8, 3)
    let sizes = randint(1, 9, [32, 1])
    let mask = arange(8).unsqueeze(0) < sizes
    let target = (x.norm(dim=-1) * mask).sum(1) / sizes.squeeze(1)
    let loss = nn.functional.mse_loss(ds(x, mask), target)
    opt.zero_grad()
    loss.backward()
    opt.step()
    final = loss.item()
  }
  expect(final < 0.05, f"mse {final}")
}
