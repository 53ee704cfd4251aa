# A temporal convolutional network as a PyTorch user writes one (Bai et al.'s TCN):
# dilated causal Conv1d layers padded by (k - 1) * dilation on both sides and chomped
# back to the input's length, weight_norm on each conv, residual blocks with a 1x1
# downsample; it learns to recall the input of 6 steps ago.
import nn
import optim

# drops the last `chomp` steps, which the symmetric padding made from the future
model Chomp1d(chomp) {
  chomp = chomp
  forward(x) = x[:, :, :-self.chomp].contiguous()
}

model TemporalBlock(c_in, c_out, k, dilation) {
  let pad = (k - 1) * dilation
  conv1 = nn.utils.weight_norm(nn.Conv1d(c_in, c_out, k, padding=pad, dilation=dilation))
  chomp1 = Chomp1d(pad)
  conv2 = nn.utils.weight_norm(nn.Conv1d(c_out, c_out, k, padding=pad, dilation=dilation))
  chomp2 = Chomp1d(pad)
  net = nn.Sequential(self.conv1, self.chomp1, nn.ReLU(), self.conv2, self.chomp2, nn.ReLU())
  downsample = nn.Conv1d(c_in, c_out, 1) if c_in != c_out else none
  forward(x) {
    let res = x if self.downsample == none else self.downsample(x)
    return relu(self.net(x) + res)
  }
}

model TCN(c_in, channels, k=3) {
  blocks = nn.Sequential([TemporalBlock(c_in if i == 0 else channels[i - 1], channels[i], k, 2 ** i)
                          for i in range(len(channels))])
  head = nn.Conv1d(channels[-1], 1, 1)
  forward(x) = self.head(self.blocks(x))
}

let DELAY = 6

test "weight_norm splits a conv's weight into weight_g and weight_v as PyTorch's" {
  manual_seed(0)
  let c = nn.Conv1d(2, 3, 2)
  let w = c.weight.detach().clone()
  nn.utils.weight_norm(c)
  expect(list(c.state_dict().keys()) == ["bias", "weight_g", "weight_v"], f"{list(c.state_dict().keys())}")
  expect(c.weight_g.shape == (3, 1, 1) and c.weight_v.shape == (3, 2, 2))
  expect_close(c.weight, w, atol=1e-6)
  # torch: g = ||v|| per output channel, so the reparameterized weight equals the old one
  expect_close(c.weight_g.flatten(), w.flatten(1).norm(dim=1), atol=1e-6)
  c(randn(4, 2, 7)).sum().backward()
  expect(c.weight_g.grad != none and c.weight_v.grad != none)
  # dim=none (PyTorch's -1 too) takes one norm over the whole tensor
  let whole = nn.utils.weight_norm(nn.Linear(3, 2), dim=none)
  expect(whole.weight_g.shape == ())
  # remove_weight_norm takes the weight from g and v as they are, not as the last forward left it
  no_grad { c.weight_g.mul_(3.0) }
  nn.utils.remove_weight_norm(c)
  expect(list(c.state_dict().keys()) == ["bias", "weight"], f"{list(c.state_dict().keys())}")
  expect_close(c.weight, 3.0 * w, atol=1e-5)
  expect(c.weight.requires_grad and c.weight.is_leaf)
}

test "weight_norm's misuses name the argument" {
  let twice = nn.utils.weight_norm(nn.Conv1d(2, 3, 2))
  expect_error(fn() = nn.utils.weight_norm(twice), "'weight' already has weight_norm; call remove_weight_norm first")
  expect_error(fn() = nn.utils.weight_norm(nn.Linear(2, 3), name="kernel"), "the module has no tensor field 'kernel'")
  expect_error(fn() = nn.utils.weight_norm(nn.Linear(2, 3), dim=2), "dim 2 is out of range for 'weight' of shape [3, 2]")
  expect_error(fn() = nn.utils.remove_weight_norm(nn.Linear(2, 3)), "weight_norm of 'weight' not found in Linear")
  expect_error(fn() = nn.utils.weight_norm(ones(3)), "module must be a model, got tensor")
  # a negative dim counts from the end; -1 is PyTorch's none
  expect(nn.utils.weight_norm(nn.Conv1d(2, 3, 2), dim=-2).weight_g.shape == (1, 2, 1))
  expect(nn.utils.weight_norm(nn.Conv1d(2, 3, 2), dim=-1).weight_g.shape == ())
  # deepcopy keeps the reparameterization working on the copy's own g and v
  let c = nn.utils.weight_norm(nn.Linear(3, 2))
  let d = deepcopy(c)
  no_grad { d.weight_g.mul_(2.0) }
  let x = randn(4, 3)
  expect_close(d(x) - d.bias, 2.0 * (c(x) - c.bias), atol=1e-5)
  # removing it from the copy leaves the original's reparameterization working
  nn.utils.remove_weight_norm(d)
  no_grad { c.weight_g.mul_(0.5) }
  expect_close(c(x) - c.bias, 0.25 * (d(x) - d.bias), atol=1e-5)   # d doubled g, c halved it
  # and weight_norm again after remove_weight_norm, over another dim, is the new one alone
  nn.utils.weight_norm(d, dim=1)
  expect(d.weight_g.shape == (1, 3))
  let before = d(x)
  no_grad { d.weight_g.mul_(2.0) }
  expect_close(d(x) - d.bias, 2.0 * (before - d.bias), atol=1e-5)
}

let ref = load("tests/stdlib/reference/newuser2.safetensors")

test "a TCN with weight_norm matches PyTorch's output and gradients for weight_g and weight_v" {
  # tests/stdlib/reference/make_newuser2.py: TCN(1, [4, 4], k=2), g moved off ||v||
  let m = TCN(1, [4, 4], k=2).double()
  expect(list(m.state_dict().keys())[:3] == ["blocks.0.conv1.bias", "blocks.0.conv1.weight_g", "blocks.0.conv1.weight_v"],
         f"{list(m.state_dict().keys())}")
  m.load_state_dict({k: ref["tcn." + k] for k in m.state_dict().keys()})
  let out = m(ref["tcn.x"])
  expect_close(out, ref["tcn.out"], rtol=1e-10, atol=1e-12)
  let loss = nn.functional.mse_loss(out, ref["tcn.y"])
  loss.backward()
  expect_close(loss, ref["tcn.loss"], rtol=1e-12, atol=1e-14)
  for (name, p) in m.named_parameters() {
    expect_close(p.grad, ref["tcn.grad." + name], rtol=1e-8, atol=1e-12)
  }
}

test "a TCN with dilated causal convolutions learns to recall the input 6 steps back" {
  manual_seed(0)
  let m = TCN(1, [16, 16, 16])
  let opt = optim.Adam(m.parameters(), lr=1e-2)
  let x = randn(32, 1, 40)
  let y = zeros_like(x)
  y[:, :, DELAY:] = x[:, :, :-DELAY]
  let losses = []
  for step in range(150) {
    let loss = nn.functional.mse_loss(m(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    losses.append(loss.item())
  }
  expect(losses[0] > 0.5, f"{losses[0]}")
  expect(losses[-1] < 0.05, f"the TCN should recall the delayed input: loss {losses[-1]}")
}

test "the TCN is causal: an output never depends on later inputs" {
  manual_seed(1)
  let m = TCN(1, [4, 4], k=2)
  let x = randn(1, 1, 12).requires_grad_()
  m(x)[0, 0, 5].backward()
  expect(x.grad[0, 0, 6:].abs().sum().item() == 0.0, f"{x.grad}")
  expect(x.grad[0, 0, 5].abs().item() > 0.0)
}
