# A neural ODE as a PyTorch user writes one without torchdiffeq: dy/dt = f(t, y) by an
# MLP, integrated by a fixed-step RK4 loop, trained by backpropagating through the
# solver's steps. Its gradient is checked against central finite differences at f64,
# the solver against the exact solution of a linear ODE, and training fits a damped
# oscillator's trajectory.
import nn
import optim
import math

model ODEFunc(dim=2, hidden=16, dtype=none) {
  net = nn.Sequential(nn.Linear(dim + 1, hidden, dtype=dtype), nn.Tanh(), nn.Linear(hidden, dim, dtype=dtype))
  forward(t, y) = self.net(cat([y, full([y.shape[0], 1], t, dtype=y.dtype)], dim=1))
}

fn rk4_step(f, t, y, h) {
  let k1 = f(t, y)
  let k2 = f(t + h / 2, y + h / 2 * k1)
  let k3 = f(t + h / 2, y + h / 2 * k2)
  let k4 = f(t + h, y + h * k3)
  return y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
}

# y at each of the times ts (ts[0] is y0's), `substeps` RK4 steps between two of them:
# a [len(ts), B, dim] trajectory, as torchdiffeq's odeint(f, y0, ts, method="rk4")
fn odeint(f, y0, ts, substeps=4) {
  let ys = [y0]
  let y = y0
  for i in range(len(ts) - 1) {
    let h = (ts[i + 1] - ts[i]) / substeps
    for s in range(substeps) { y = rk4_step(f, ts[i] + s * h, y, h) }
    ys.append(y)
  }
  return stack(ys)
}

test "RK4 solves a linear ODE to its exact solution" {
  # dy/dt = A y, A a rotation with damping: y(t) = expm(A t) y0
  let A = tensor([[-0.1, -1.0], [1.0, -0.1]], dtype=f64)
  let y0 = tensor([[1.0, 0.0]], dtype=f64)
  let ys = odeint(fn(t, y) = y @ A.t(), y0, [0.0, 1.0, 2.0], substeps=20)
  for (k, t) in enumerate([1.0, 2.0]) {
    let exact = tensor([[math.exp(-0.1 * t) * math.cos(t), math.exp(-0.1 * t) * math.sin(t)]], dtype=f64)
    expect_close(ys[k + 1], exact, atol=1e-8)
  }
}

test "the gradient through the RK4 solver matches central finite differences at f64" {
  manual_seed(0)
  let f = ODEFunc(dtype=f64)
  let y0 = randn(3, 2, dtype=f64)
  let target = randn(2, 3, 2, dtype=f64)
  let ts = [0.0, 0.5, 1.0]
  fn loss_of() = ((odeint(f, y0, ts)[1:] - target) ** 2).mean()
  let loss = loss_of()
  loss.backward()
  let eps = 1e-6
  for (name, p) in f.named_parameters() {
    let g = p.grad.flatten()
    for k in [0, p.numel() - 1] {
      let plus = 0.0
      let minus = 0.0
      no_grad {
        let flat = p.view(-1)
        flat[k] += eps
        plus = loss_of().item()
        flat[k] -= 2 * eps
        minus = loss_of().item()
        flat[k] += eps
      }
      let fd = (plus - minus) / (2 * eps)
      expect(abs(fd - g[k].item()) < 1e-7 + 1e-6 * abs(fd), f"{name}[{k}]: finite differences {fd}, backward {g[k].item()}")
    }
  }
  # and the gradient with respect to the initial state, the adjoint's a(0)
  let y = y0.clone().requires_grad_()
  let l2 = ((odeint(f, y, ts)[1:] - target) ** 2).mean()
  let gy = grad(l2, y)
  no_grad {
    let e = zeros_like(y0)
    e[1, 0] = 1e-6
    let fd = ((((odeint(f, y0 + e, ts)[1:] - target) ** 2).mean() - ((odeint(f, y0 - e, ts)[1:] - target) ** 2).mean()) / 2e-6).item()
    expect(abs(fd - gy[1, 0].item()) < 1e-7, f"dL/dy0: {fd} vs {gy[1, 0].item()}")
  }
}

test "a neural ODE fits a damped oscillator's trajectory" {
  manual_seed(0)
  let A = tensor([[-0.1, -2.0], [2.0, -0.1]])
  let ts = [0.25 * i for i in range(9)]
  let y0 = tensor([[2.0, 0.0], [0.0, 1.0], [-1.0, -1.0]])
  let true_ys = none
  no_grad { true_ys = odeint(fn(t, y) = y @ A.t(), y0, ts) }
  let f = ODEFunc(hidden=32)
  let opt = optim.Adam(f.parameters(), lr=1e-2)
  let losses = []
  for it in range(150) {
    let loss = (odeint(f, y0, ts, substeps=2) - true_ys).abs().mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    losses.append(loss.item())
  }
  expect(losses[-1] < 0.25 * losses[0], f"the trajectory error should fall: {losses[0]} -> {losses[-1]}")
}
