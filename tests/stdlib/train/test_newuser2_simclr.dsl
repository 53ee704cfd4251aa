# SimCLR's contrastive NT-Xent (InfoNCE) loss as a PyTorch user writes it: two
# augmented views through an encoder and a projection head, F.normalize, the cosine
# similarity matrix over temperature with the self-similarities masked to -inf, and
# cross_entropy against each example's other view. The loss and its gradients are
# checked against PyTorch; training separates clusters of points.
import nn
import optim

let ref = load("tests/stdlib/reference/newuser2.safetensors")

fn nt_xent(z1, z2, temperature=0.5) {
  let n = z1.shape[0]
  let z = nn.functional.normalize(cat([z1, z2]), dim=1)
  let sim = z @ z.t() / temperature
  sim = sim.masked_fill(eye(2 * n, dtype=bool), float("-inf"))
  let labels = (arange(2 * n) + n) % (2 * n)
  return cross_entropy(sim, labels)
}

# the same loss written with cosine_similarity over all pairs by broadcasting
fn nt_xent_cosine(z1, z2, temperature=0.5) {
  let z = cat([z1, z2])
  let n2 = z.shape[0]
  let sim = nn.functional.cosine_similarity(z.unsqueeze(1), z.unsqueeze(0), dim=-1) / temperature
  let positives = cat([diagonal(sim, n2 // 2), diagonal(sim, -(n2 // 2))])
  let others = sim.masked_fill(eye(n2, dtype=bool), float("-inf"))
  return (logsumexp(others, dim=1) - positives).mean()
}

test "the NT-Xent loss and its gradients match PyTorch's" {
  let z1 = ref["simclr.z1"].clone().requires_grad_()
  let z2 = ref["simclr.z2"].clone().requires_grad_()
  let loss = nt_xent(z1, z2)
  expect_close(loss, ref["simclr.loss"], rtol=1e-12, atol=1e-12)
  loss.backward()
  expect_close(z1.grad, ref["simclr.grad_z1"], rtol=1e-10, atol=1e-12)
  expect_close(z2.grad, ref["simclr.grad_z2"], rtol=1e-10, atol=1e-12)
  # the cosine_similarity form is the same loss, with the same gradients
  let a = ref["simclr.z1"].clone().requires_grad_()
  let b = ref["simclr.z2"].clone().requires_grad_()
  let l2 = nt_xent_cosine(a, b)
  expect_close(l2, ref["simclr.loss"], rtol=1e-10, atol=1e-12)
  l2.backward()
  expect_close(a.grad, ref["simclr.grad_z1"], rtol=1e-8, atol=1e-10)
}

model SimCLR(d_in, d_hidden=32, d_proj=16) {
  encoder = nn.Sequential(nn.Linear(d_in, d_hidden), nn.BatchNorm1d(d_hidden), nn.ReLU(), nn.Linear(d_hidden, d_hidden))
  projector = nn.Sequential(nn.ReLU(), nn.Linear(d_hidden, d_proj))
  forward(x) = self.projector(self.encoder(x))
}

# views: random scaling of each feature and additive noise
fn augment(x) = x * (1 + 0.2 * randn_like(x)) + 0.3 * randn_like(x)

# how often the projection of one view is nearest to its own partner's, of 2n - 1
fn partner_accuracy(m, x) {
  let z = nn.functional.normalize(cat([m(augment(x)), m(augment(x))]), dim=1)
  let n = x.shape[0]
  let sim = (z @ z.t()).masked_fill(eye(2 * n, dtype=bool), float("-inf"))
  return (sim.argmax(1) == (arange(2 * n) + n) % (2 * n)).float().mean().item()
}

test "contrastive training makes each view find its partner, and the features separate the clusters" {
  manual_seed(0)
  let centers = randn(4, 10) * 2
  fn sample(n) = centers[randint(0, 4, [n])] + 0.5 * randn(n, 10)
  let m = SimCLR(10)
  let opt = optim.Adam(m.parameters(), lr=3e-3)
  let test_x = sample(64)
  m.eval()
  let before = none
  no_grad { before = partner_accuracy(m, test_x) }
  m.train()
  let losses = []
  for step in range(150) {
    let x = sample(64)
    let loss = nt_xent(m(augment(x)), m(augment(x)), temperature=0.2)
    opt.zero_grad()
    loss.backward()
    opt.step()
    losses.append(loss.item())
  }
  expect(losses[-1] < losses[0] - 0.7, f"the loss should fall by more than 0.7 nats: {losses[0]} -> {losses[-1]}")
  m.eval()
  no_grad {
    let after = partner_accuracy(m, test_x)
    expect(after > before + 0.1, f"views find their partners (of 127) more often: {before} -> {after}")
    # the nearest other example in feature space is from the same cluster
    let labels = randint(0, 4, [64])
    let x = centers[labels] + 0.5 * randn(64, 10)
    let h = nn.functional.normalize(m.encoder(x), dim=1)
    let sim = (h @ h.t()).masked_fill(eye(64, dtype=bool), float("-inf"))
    let acc = (labels[sim.argmax(1)] == labels).float().mean().item()
    expect(acc > 0.9, f"nearest-neighbour accuracy of the features (chance 1/4): {acc}")
  }
}
