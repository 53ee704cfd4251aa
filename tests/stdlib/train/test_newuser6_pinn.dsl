# A physics-informed neural network as a PyTorch user writes one for the 1-D heat
# equation u_t = nu u_xx on x in [0, 1], t in [0, 1], with u(x, 0) = sin(pi x) and
# u(0, t) = u(1, t) = 0: the network's derivatives with respect to its inputs by
# torch.autograd.grad(create_graph=true), twice for u_xx (with grad_outputs=ones_like(u)
# and a tuple of inputs, then the `[0]` of the returned tuple), a residual loss plus
# the initial and boundary losses, trained with Adam and then refined by LBFGS. The
# residual, loss and parameter gradients (third derivatives of the network) from a fixed
# init are checked against PyTorch 1.13 at f64 (tests/stdlib/reference/make_newuser6.py);
# then the network learns the exact solution exp(-nu pi^2 t) sin(pi x).
import math
import nn
import optim
import autograd

let ref = load("tests/stdlib/reference/newuser6.safetensors")

model PINN(hidden=16) {
  net = nn.Sequential(nn.Linear(2, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(), nn.Linear(hidden, 1))
  forward(x, t) = self.net(cat([x, t], dim=1))
}

# u_t - nu u_xx at collocation points x, t [N, 1] that require grad
fn heat_residual(m, x, t, nu=0.1) {
  let u = m(x, t)
  let (u_x, u_t) = autograd.grad(u, (x, t), grad_outputs=ones_like(u), create_graph=true)
  let u_xx = autograd.grad(u_x.sum(), x, create_graph=true)[0]
  return u_t - nu * u_xx
}

fn pinn_loss(m, x, t, x0, xb, tb) {
  let r = heat_residual(m, x, t)
  let ic = m(x0, zeros_like(x0)) - sin(math.pi * x0)
  let bc = m(xb, tb)
  return r.pow(2).mean() + ic.pow(2).mean() + bc.pow(2).mean()
}

test "the PDE residual, the loss and its parameter gradients match PyTorch" {
  let m = PINN().double()
  m.load_state_dict({k: ref["pinn." + k] for k in m.state_dict().keys()})
  let x = ref["pinn.x"].clone().requires_grad_()
  let t = ref["pinn.ts"].clone().requires_grad_()
  expect_close(heat_residual(m, x, t), ref["pinn.residual"], rtol=1e-11, atol=1e-13)
  let loss = pinn_loss(m, x, t, ref["pinn.x0"], ref["pinn.xb"], ref["pinn.tb"])
  expect_close(loss, ref["pinn.loss"], rtol=1e-12, atol=1e-14)
  loss.backward()
  for (name, p) in m.named_parameters() { expect_close(p.grad, ref["pinn.grad." + name], rtol=1e-9, atol=1e-12) }
}

test "autograd.grad returns a tuple, as torch.autograd.grad, even for one input" {
  let x = tensor([0.5, 2.0], dtype=f64, requires_grad=true)
  let y = (x ** 3).sum()
  let gs = autograd.grad(y, x, create_graph=true)
  expect(type(gs) == "tuple" and len(gs) == 1)
  expect_close(gs[0], 3 * x.detach() ** 2)
  expect_close(autograd.grad(gs[0].sum(), x)[0], 6 * x.detach())
  # the builtin grad keeps its own convention: one tensor in, its gradient out
  expect(type(grad((x * x).sum(), x)) == "tensor")
  expect_error(fn() = autograd.grad(y, x, is_grads_batched=true), "is_grads_batched")
}

test "the PINN learns the heat equation's solution with Adam, then LBFGS" {
  manual_seed(0)
  let m = PINN(hidden=20).double()
  let x = rand(64, 1, dtype=f64).requires_grad_()
  let t = rand(64, 1, dtype=f64).requires_grad_()
  let x0 = linspace(0, 1, 16, dtype=f64).unsqueeze(1)
  let tb = rand(16, 1, dtype=f64)
  let xb = (arange(16) % 2).to(f64).unsqueeze(1)
  let adam = optim.Adam(m.parameters(), lr=1e-2)
  for step in range(300) {
    let loss = pinn_loss(m, x, t, x0, xb, tb)
    adam.zero_grad()
    loss.backward()
    adam.step()
  }
  let lbfgs = optim.LBFGS(m.parameters(), lr=1, max_iter=50, line_search_fn="strong_wolfe")
  fn closure() {
    lbfgs.zero_grad()
    let loss = pinn_loss(m, x, t, x0, xb, tb)
    loss.backward()
    return loss
  }
  let before = closure().item()
  lbfgs.step(closure)
  let after = closure().item()
  expect(after < before, f"LBFGS refines: {before} -> {after}")
  let (xe, te) = (rand(50, 1, dtype=f64), rand(50, 1, dtype=f64))
  let exact = exp(-0.1 * math.pi ** 2 * te) * sin(math.pi * xe)
  let err = 0.0
  no_grad { err = (m(xe, te) - exact).abs().max().item() }
  expect(err < 0.05, f"max error {err}")
}
