# A variational autoencoder as a PyTorch user writes one: reparameterization, the
# closed-form KL term and a Bernoulli decoder trained with BCE on logits (sum over
# pixels, mean over the batch), on binary patterns the test makes itself.
import nn
import optim

model VAE(d_in, d_hidden, d_z) {
  enc = nn.Linear(d_in, d_hidden)
  mu_head = nn.Linear(d_hidden, d_z)
  logvar_head = nn.Linear(d_hidden, d_z)
  dec1 = nn.Linear(d_z, d_hidden)
  dec2 = nn.Linear(d_hidden, d_in)
  encode(x) {
    let h = relu(self.enc(x))
    return (self.mu_head(h), self.logvar_head(h))
  }
  reparameterize(mu, logvar) = mu + randn_like(mu) * exp(0.5 * logvar)
  decode(z) = self.dec2(relu(self.dec1(z)))
  forward(x) {
    let (mu, logvar) = self.encode(x)
    return (self.decode(self.reparameterize(mu, logvar)), mu, logvar)
  }
}

fn kl_term(mu, logvar) = -0.5 * sum(1 + logvar - mu.pow(2) - logvar.exp())

fn vae_loss(logits, x, mu, logvar) {
  let bce = binary_cross_entropy_with_logits(logits, x, reduction="sum")
  return (bce + kl_term(mu, logvar)) / x.shape[0]
}

test "the VAE's loss falls and its reconstructions match the patterns" {
  manual_seed(0)
  let protos = (rand([4, 16]) > 0.5).float()
  let x = protos[randint(0, 4, [256])]
  let m = VAE(16, 32, 2)
  let opt = optim.Adam(m.parameters(), lr=1e-2)
  let first = none
  let last = none
  for step in range(100) {
    let (logits, mu, logvar) = m(x)
    let loss = vae_loss(logits, x, mu, logvar)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if first == none { first = loss.item() }
    last = loss.item()
  }
  # 16 Bernoulli pixels at p = 0.5 cost 16 ln 2 = 11.1 nats; the trained model about 2.4
  expect(first > 10.0, f"first loss {first}")
  expect(last < 4.0, f"the VAE loss should fall below 4 nats, got {last}")
  m.eval()
  no_grad {
    let (mu, logvar) = m.encode(protos)
    let recon = (sigmoid(m.decode(mu)) > 0.5).float()
    expect(equal(recon, protos), "decoding each pattern's mean gives the pattern back")
  }
}

test "the KL term is zero at the prior and matches its closed form" {
  expect(kl_term(zeros([3, 2]), zeros([3, 2])).item() == 0.0)
  # torch: -0.5 * torch.sum(1 + lv - mu**2 - lv.exp()) with mu = [[1, 2]], lv = [[0, ln 2]]
  let v = kl_term(tensor([[1.0, 2.0]]), tensor([[0.0, 0.6931471805599453]]))
  expect(abs(v.item() - 2.6534264) < 1e-5, f"{v}")
}
