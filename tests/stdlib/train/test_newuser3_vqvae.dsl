# VQ-VAE as a PyTorch user writes it: the encoder's output is snapped to its nearest
# codebook vector (argmin over squared distances), the straight-through estimator
# z + (q - z).detach() carries the decoder's gradient past the argmin, the codebook and
# commitment losses use .detach() on opposite sides, and a second variant updates the
# codebook by exponential moving averages under no_grad. One step is checked against
# PyTorch 1.13 at f64 (tests/stdlib/reference/make_newuser3.py).
import nn
import optim

let ref = load("tests/stdlib/reference/newuser3.safetensors")

model VQVAE(d_in=6, d=4, k=8) {
  encoder = nn.Linear(d_in, d)
  codebook = nn.Embedding(k, d)
  decoder = nn.Linear(d, d_in)

  quantize(z) {
    let e = self.codebook.weight
    let dist = (z ** 2).sum(1, keepdim=true) - 2 * z @ e.t() + (e ** 2).sum(1)
    let idx = dist.argmin(1)
    return (self.codebook(idx), idx)
  }

  forward(x) {
    let z = self.encoder(x)
    let (q, idx) = self.quantize(z)
    let codebook_loss = nn.functional.mse_loss(q, z.detach())
    let commitment = nn.functional.mse_loss(z, q.detach())
    let zq = z + (q - z).detach()   # straight-through: forward q, backward identity to z
    return (self.decoder(zq), idx, codebook_loss, commitment)
  }
}

test "one VQ-VAE step matches PyTorch: codes, losses, and the straight-through gradients" {
  let m = VQVAE().double()
  m.load_state_dict({k: ref["vqvae." + k] for k in m.state_dict().keys()})
  let x = ref["vqvae.x"]
  let (recon, idx, cb, commit) = m(x)
  expect(equal(idx, ref["vqvae.idx"]), f"{idx} vs {ref['vqvae.idx']}")
  expect_close(cb, ref["vqvae.codebook_loss"], rtol=1e-12, atol=1e-14)
  expect_close(commit, ref["vqvae.commitment"], rtol=1e-12, atol=1e-14)
  let loss = nn.functional.mse_loss(recon, x) + cb + 0.25 * commit
  expect_close(loss, ref["vqvae.loss"], rtol=1e-12, atol=1e-14)
  loss.backward()
  for (name, p) in m.named_parameters() {
    expect_close(p.grad, ref["vqvae.grad." + name], rtol=1e-9, atol=1e-12)
  }
  # only the chosen codes get a gradient (from the codebook loss)
  let used = zeros(8, dtype=bool).index_fill(0, idx, true)
  expect((m.codebook.weight.grad[~used] == 0).all().item())
}

# the codebook as moving averages of the encoder outputs assigned to each code
model EMACodebook(k, d, decay=0.9, eps=1e-5) {
  weight = zeros(k, d)
  cluster_size = ones(k)
  embed_avg = zeros(k, d)

  update(z, idx) {
    no_grad {
      let onehot = nn.functional.one_hot(idx, self.weight.shape[0]).to(z.dtype)
      self.cluster_size.mul_(decay).add_(onehot.sum(0), alpha=1 - decay)
      self.embed_avg.mul_(decay).add_(onehot.t() @ z, alpha=1 - decay)
      let n = self.cluster_size.sum()
      let k = self.weight.shape[0]
      let smoothed = (self.cluster_size + eps) / (n + k * eps) * n
      self.weight.copy_(self.embed_avg / smoothed.unsqueeze(1))
    }
  }
}

test "an EMA codebook update under no_grad matches PyTorch's" {
  let m = VQVAE().double()
  m.load_state_dict({k: ref["vqvae." + k] for k in m.state_dict().keys()})
  let ema = EMACodebook(8, 4)
  ema.weight = m.codebook.weight.detach().clone()
  ema.embed_avg = m.codebook.weight.detach().clone()
  ema.cluster_size = ones(8, dtype=f64)
  let z = m.encoder(ref["vqvae.x"])
  let (_, idx) = m.quantize(z)
  ema.update(z, idx)
  expect_close(ema.cluster_size, ref["vqvae.ema_cluster_size"], rtol=1e-12, atol=1e-14)
  expect_close(ema.weight, ref["vqvae.ema_codebook"], rtol=1e-12, atol=1e-14)
  expect(not ema.weight.requires_grad, "the EMA codebook stays out of the graph")
}

test "VQ-VAE training lowers the reconstruction error and uses several codes" {
  manual_seed(0)
  # data on 8 clusters in 6-D: a codebook of 8 can reconstruct it
  let centers = randn(8, 6) * 2
  fn sample(n) = centers[randint(0, 8, [n])] + 0.05 * randn(n, 6)
  let m = VQVAE()
  let opt = optim.Adam(m.parameters(), lr=1e-2)
  let x = sample(256)
  let first = none
  let last = none
  for step in range(300) {
    let (recon, idx, cb, commit) = m(x)
    let rec = nn.functional.mse_loss(recon, x)
    let loss = rec + cb + 0.25 * commit
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step == 0 { first = rec.item() }
    last = rec.item()
  }
  expect(last < 0.5 * first, f"the reconstruction error should halve: {first} -> {last}")
  no_grad {
    let (_, idx, _, _) = m(sample(512))
    expect(unique(idx).numel() >= 3, f"codes in use: {unique(idx)}")
  }
}

# the EMA quantizer as PyTorch code writes it: the update only `if self.training`,
# the statistics reassigned as buffers, the codebook replaced by a new nn.Parameter
model EMAQuantizer(k, d, decay=0.9, eps=1e-5) {
  embedding = nn.Embedding(k, d)
  buffer ema_cluster_size = zeros(k)
  buffer ema_w = zeros(k, d)
  forward(z) {
    let e = self.embedding.weight
    let idx = ((z ** 2).sum(1, keepdim=true) + (e ** 2).sum(1) - 2 * z @ e.t()).argmin(1)
    if self.training {
      no_grad {
        let enc = zeros(z.shape[0], k, dtype=z.dtype).scatter_(1, idx.unsqueeze(1), 1)
        self.ema_cluster_size = self.ema_cluster_size * decay + (1 - decay) * enc.sum(0)
        let n = self.ema_cluster_size.sum()
        let smoothed = (self.ema_cluster_size + eps) / (n + k * eps) * n
        self.ema_w = self.ema_w * decay + (1 - decay) * (enc.t() @ z)
        self.embedding.weight = nn.Parameter(self.ema_w / smoothed.unsqueeze(1))
      }
    }
    let q = self.embedding(idx)
    return z + (q - z).detach()
  }
}

test "an EMA quantizer reads self.training before any train() or eval(), as PyTorch's modules do" {
  manual_seed(0)
  let q = EMAQuantizer(8, 4)
  expect(q.training, "a new model is in training mode")
  let z = randn(32, 4)
  let before = q.embedding.weight.detach().clone()
  q(z)
  expect(not equal(q.embedding.weight, before), "training mode updates the codebook")
  expect(q.ema_cluster_size.sum().item() > 0 and "ema_w" in q.state_dict())
  q.eval()
  let frozen = q.embedding.weight.detach().clone()
  q(z)
  expect(equal(q.embedding.weight, frozen), "eval mode leaves it")
  # the straight-through output passes the gradient to z unchanged
  let zz = randn(5, 4, requires_grad=true)
  q(zz).sum().backward()
  expect(equal(zz.grad, ones(5, 4)))
}
