# WGAN-GP as a PyTorch user writes it: the critic's gradient penalty takes
# grad(critic(interp), interp, grad_outputs=ones_like, create_graph=true), its norm per
# sample, ((norm - 1) ** 2).mean(), and backward through it into the critic's weights
# (a double backward). One critic step is checked against PyTorch 1.13 at f64
# (tests/stdlib/reference/make_newuser3.py); then WGAN-GP training moves the
# generator's samples onto the data.
import nn
import optim

let ref = load("tests/stdlib/reference/newuser3.safetensors")

fn critic() = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))

fn gradient_penalty(D, real, fake, alpha) {
  let interp = (alpha * real + (1 - alpha) * fake).requires_grad_(true)
  let out = D(interp)
  let (g,) = grad(outputs=out, inputs=[interp], grad_outputs=ones_like(out), create_graph=true, retain_graph=true)
  return (((g.norm(2, dim=1) - 1) ** 2).mean(), g)
}

test "the gradient penalty and the critic's gradients through it match PyTorch's" {
  let D = critic().double()
  D.load_state_dict({k: ref["wgan." + k] for k in D.state_dict().keys()})
  let (real, fake) = (ref["wgan.real"], ref["wgan.fake"])
  let (gp, g) = gradient_penalty(D, real, fake, ref["wgan.alpha"])
  expect_close(g, ref["wgan.grad_interp"], rtol=1e-12, atol=1e-14)
  expect_close(gp, ref["wgan.gp"], rtol=1e-12, atol=1e-14)
  let loss = D(fake).mean() - D(real).mean() + 10 * gp
  expect_close(loss, ref["wgan.loss"], rtol=1e-12, atol=1e-14)
  loss.backward()
  for (name, p) in D.named_parameters() {
    expect_close(p.grad, ref["wgan.grad." + name], rtol=1e-9, atol=1e-12)
  }
}

test "the penalty through a convolutional critic with InstanceNorm2d matches PyTorch's (double backward through conv2d)" {
  let D = nn.Sequential(nn.Conv2d(1, 4, 4, stride=2, padding=1), nn.LeakyReLU(0.2),
                        nn.Conv2d(4, 8, 4, stride=2, padding=1), nn.InstanceNorm2d(8, affine=true), nn.LeakyReLU(0.2),
                        nn.Flatten(), nn.Linear(8 * 2 * 2, 1)).double()
  D.load_state_dict({k: ref["wgan_conv." + k] for k in D.state_dict().keys()})
  let (real, fake) = (ref["wgan_conv.real"], ref["wgan_conv.fake"])
  let interp = (ref["wgan_conv.alpha"] * real + (1 - ref["wgan_conv.alpha"]) * fake).requires_grad_(true)
  let out = D(interp)
  let (g,) = grad(out, [interp], grad_outputs=ones_like(out), create_graph=true)
  let gp = ((g.view(g.size(0), -1).norm(2, dim=1) - 1) ** 2).mean()
  expect_close(gp, ref["wgan_conv.gp"], rtol=1e-12, atol=1e-14)
  let loss = D(fake).mean() - D(real).mean() + 10 * gp
  expect_close(loss, ref["wgan_conv.loss"], rtol=1e-12, atol=1e-14)
  loss.backward()
  for (name, p) in D.named_parameters() {
    expect_close(p.grad, ref["wgan_conv.grad." + name], rtol=1e-9, atol=1e-12)
  }
}

test "the penalty's weight gradient equals a finite difference of the penalty" {
  let D = critic().double()
  D.load_state_dict({k: ref["wgan." + k] for k in D.state_dict().keys()})
  let (real, fake, alpha) = (ref["wgan.real"], ref["wgan.fake"], ref["wgan.alpha"])
  let (gp, _) = gradient_penalty(D, real, fake, alpha)
  let (gw,) = grad(gp, [D[2].weight])
  let h = 1e-6
  let fd = none
  no_grad { D[2].weight[3, 5] += h }
  let (up, _) = gradient_penalty(D, real, fake, alpha)
  no_grad { D[2].weight[3, 5] -= 2 * h }
  let (down, _) = gradient_penalty(D, real, fake, alpha)
  fd = (up - down).item() / (2 * h)
  expect_close(gw[3, 5].item(), fd, rtol=1e-6, atol=1e-9)
}

test "WGAN-GP training moves the generator's samples onto the data" {
  manual_seed(0)
  let G = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 2))
  let D = critic()
  let optD = optim.Adam(D.parameters(), lr=1e-3, betas=(0.5, 0.9))
  let optG = optim.Adam(G.parameters(), lr=1e-3, betas=(0.5, 0.9))
  let center = tensor([2.0, -1.0])
  let B = 64
  let dist0 = none
  no_grad { dist0 = (G(randn(512, 2)).mean(0) - center).norm().item() }
  for step in range(300) {
    for c in range(3) {
      let real = center + 0.3 * randn(B, 2)
      let fake = G(randn(B, 2)).detach()
      let (gp, _) = gradient_penalty(D, real, fake, rand(B, 1))
      let d_loss = D(fake).mean() - D(real).mean() + 10 * gp
      optD.zero_grad()
      d_loss.backward()
      optD.step()
    }
    let g_loss = -D(G(randn(B, 2))).mean()
    optG.zero_grad()
    g_loss.backward()
    optG.step()
  }
  let dist = 0.0
  no_grad { dist = (G(randn(1024, 2)).mean(0) - center).norm().item() }
  expect(dist < 0.3 * dist0, f"the generator's mean should close most of the gap: {dist0} -> {dist}")
}
