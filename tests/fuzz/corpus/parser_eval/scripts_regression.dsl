# Linear regression on data the script makes itself: y = 3 x0 - 2 x1 + 0.5 x2 + 1 plus
# noise; an nn.Linear trained with SGD and momentum recovers the coefficients.
#   nabla scripts/regression.dsl [steps]
import nn
import optim

let steps = int(args[0]) if len(args) > 0 else 300
manual_seed(0)

let true_w = tensor([[3.0, -2.0, 0.5]])
let true_b = 1.0
let x = randn([1000, 3])
let y = x @ true_w.T + true_b + randn([1000, 1]) * 0.1

let fit = nn.Linear(3, 1)
let opt = optim.SGD(fit.parameters(), lr=0.05, momentum=0.9)
let loss = none
for step in range(steps) {
  loss = mse_loss(fit(x), y)
  opt.zero_grad()
  loss.backward()
  opt.step()
}
let w = fit.weight.tolist()[0]
print(f"learned w = [{w[0]:.3f}, {w[1]:.3f}, {w[2]:.3f}], b = {fit.bias.item():.3f}; mse {loss.item():.4f}")
let error = abs(fit.weight - true_w).max().item()
assert(error < 0.02 and abs(fit.bias.item() - true_b) < 0.02, f"coefficients off by {error}")
print("recovered the coefficients within 0.02")
