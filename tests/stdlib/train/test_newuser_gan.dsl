# A GAN on 2-D points: two optimizers, the discriminator's step on detached fakes,
# BCEWithLogitsLoss, alternating updates. The generator's samples must move onto the
# real data's centre.
import nn
import optim

test "a GAN's generator moves its samples to the real data" {
  manual_seed(0)
  let G = nn.Sequential(nn.Linear(2, 16), nn.LeakyReLU(0.2), nn.Linear(16, 2))
  let D = nn.Sequential(nn.Linear(2, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
  let optG = optim.Adam(G.parameters(), lr=2e-3, betas=(0.5, 0.999))
  let optD = optim.Adam(D.parameters(), lr=2e-3, betas=(0.5, 0.999))
  let criterion = nn.BCEWithLogitsLoss()
  let center = tensor([3.0, -2.0])
  let B = 64
  let dist0 = none
  for step in range(600) {
    let real = center + 0.3 * randn([B, 2])
    let fake = G(randn([B, 2]))
    optD.zero_grad()
    let d_loss = criterion(D(real), ones([B, 1])) + criterion(D(fake.detach()), zeros([B, 1]))
    d_loss.backward()
    if step == 0 {
      # detach() kept the generator out of the discriminator's backward
      expect(G[0].weight.grad == none and D[0].weight.grad != none)
    }
    optD.step()
    optG.zero_grad()
    let g_loss = criterion(D(fake), ones([B, 1]))
    g_loss.backward()
    optG.step()
    if step == 0 { dist0 = (fake.mean(0) - center).norm().item() }
  }
  let dist = 0.0
  no_grad { dist = (G(randn([1024, 2])).mean(0) - center).norm().item() }
  expect(dist0 > 3.0, f"untrained samples start far from the data: {dist0}")
  expect(dist < 0.35 * dist0, f"the generator's mean should close most of the gap: {dist0} -> {dist}")
}
