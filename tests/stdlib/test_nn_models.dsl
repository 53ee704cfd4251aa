# Model features used by nn: train/eval, state_dict, hooks, printing; gradient
# utilities; training end to end (run by `nabla test tests/stdlib`).
import nn
import optim

model MLP(d_in, d_hidden, d_out) {
  fc1 = nn.Linear(d_in, d_hidden)
  bn = nn.BatchNorm1d(d_hidden)
  drop = nn.Dropout(0.1)
  fc2 = nn.Linear(d_hidden, d_out)
  forward(x) = self.fc2(self.drop(relu(self.bn(self.fc1(x)))))
}

# For expect_error, whose code runs at the top of this file.
fn load_wrong() {
  let m = MLP(4, 8, 2)
  let d = MLP(4, 6, 2).state_dict()
  d.pop("fc2.bias")
  d["extra.weight"] = zeros([1])
  m.load_state_dict(d)
}

test "train() and eval() set training on every submodule" {
  let m = MLP(4, 8, 2)
  expect(m.drop.training and m.bn.training)
  m.eval()
  expect(not m.drop.training and not m.bn.training and not m.training)
  m.train()
  expect(m.drop.training and m.bn.training)
  m.train(false)
  expect(not m.drop.training)
  let s = nn.Sequential([nn.Dropout(), nn.Sequential([nn.BatchNorm1d(3)])])
  s.eval()
  expect(not s[0].training and not s[1][0].training)
}

test "state_dict holds parameters and buffers under dotted names, in order" {
  let m = MLP(4, 8, 2)
  let keys = list(m.state_dict().keys())
  expect(keys == ["fc1.weight", "fc1.bias", "bn.weight", "bn.bias", "bn.running_mean", "bn.running_var",
                  "bn.num_batches_tracked", "fc2.weight", "fc2.bias"], str(keys))
  expect(len(m.buffers()) == 3)
  expect(m.named_buffers()[0][0] == "bn.running_mean")
  expect(not m.state_dict()["fc1.weight"].requires_grad)
  let s = nn.Sequential([nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1)])
  expect(list(s.state_dict().keys()) == ["0.weight", "0.bias", "2.weight", "2.bias"])
}

test "a state_dict loaded into a fresh model gives identical outputs" {
  manual_seed(10)
  let a = MLP(4, 8, 2)
  let x = randn([16, 4])
  a(x)  # moves the running stats
  a.eval()
  let b = MLP(4, 8, 2)
  b.eval()
  expect((a(x) - b(x)).abs().max().item() > 1e-3)
  b.load_state_dict(a.state_dict())
  expect_close(b(x), a(x), rtol=0.0, atol=0.0)
  expect_close(b.bn.running_mean, a.bn.running_mean, rtol=0.0, atol=0.0)
  expect(b.fc1.weight.requires_grad and b.fc1.weight.is_leaf)
  # loading copies: the models do not share storage afterwards
  no_grad { a.fc1.weight.add_(1.0) }
  expect((a.fc1.weight - b.fc1.weight).abs().min().item() > 0.5)
}

test "load_state_dict reports every mismatch in one error" {
  expect_error("load_wrong()", "9 problems")
  expect_error("load_wrong()", "missing key 'fc2.bias'")
  expect_error("load_wrong()", "unexpected key 'extra.weight'")
  expect_error("load_wrong()", "shape mismatch for 'fc1.weight': the dict has [6, 4], the model [8, 4]")
  expect_error("MLP(4, 8, 2).load_state_dict({})", "9 problems")
  # strict=false ignores missing and unexpected keys, not wrong shapes
  let m = MLP(4, 8, 2)
  m.load_state_dict({"fc1.bias": ones([8]), "other": zeros([2])}, strict=false)
  expect_close(m.fc1.bias, ones([8]))
}

test "forward hooks see (module, input, output), may replace the output, and remove" {
  let l = nn.Linear(3, 2)
  let seen = []
  let h = l.register_forward_hook(fn(mod, inp, out) = seen.append((mod.out_features, inp[0].shape, out.shape)))
  let x = randn([5, 3])
  l(x)
  expect(seen == [(2, (5, 3), (5, 2))], str(seen))
  let h2 = l.register_forward_hook(fn(mod, inp, out) = out * 0.0)
  expect(l(x).abs().sum().item() == 0.0)
  expect(len(seen) == 2)
  h2.remove()
  h.remove()
  expect(l(x).abs().sum().item() > 0.0)
  expect(len(seen) == 2)
}

test "backward hooks receive the gradient of the module's output, and remove" {
  let l = nn.Linear(3, 2)
  let got = []
  let h = l.register_backward_hook(fn(mod, g) = got.append(g))
  let x = randn([4, 3])
  (l(x) * 3.0).sum().backward()
  expect(len(got) == 1)
  expect_close(got[0], full([4, 2], 3.0))
  # a hook that returns a tensor replaces the gradient flowing into the module
  let h2 = l.register_backward_hook(fn(mod, g) = g * 0.0)
  l.zero_grad()
  l(x).sum().backward()
  expect(l.weight.grad.abs().sum().item() == 0.0)
  h.remove()
  h2.remove()
  l.zero_grad()
  l(x).sum().backward()
  expect(len(got) == 2)
  expect(l.weight.grad.abs().sum().item() > 0.0)
}

test "full backward hooks get (module, grad_input, grad_output)" {
  let l = nn.Linear(3, 2)
  let got = []
  let h = l.register_full_backward_hook(fn(mod, gin, gout) = got.append((gin, gout)))
  let x = randn([4, 3], requires_grad=true)
  let y = l(x)
  (y * 2.0).sum().backward()
  expect(len(got) == 1)
  expect_close(got[0][1][0], full([4, 2], 2.0))
  expect_close(got[0][0][0], full([4, 2], 2.0) @ l.weight, rtol=1e-5, atol=1e-6)
  # the gradient through this call only, though x is used elsewhere too
  x.grad = none
  (l(x).sum() + (x * 5.0).sum()).backward()
  expect(len(got) == 2)
  expect_close(got[1][0][0], ones([4, 2]) @ l.weight, rtol=1e-5, atol=1e-6)
  expect_close(x.grad, ones([4, 2]) @ l.weight + 5.0, rtol=1e-5, atol=1e-6)
  # inputs that need no gradient: grad_input holds none, the hook still runs
  l(randn([4, 3])).sum().backward()
  expect(len(got) == 3 and got[2][0][0] == none)
  h.remove()
  l(x).sum().backward()
  expect(len(got) == 3)
}

test "printing a model shows hyperparameters as PyTorch does, parameter counts, a total and NaN or Inf" {
  let m = MLP(4, 8, 2)
  let s = str(m)
  expect("\n  (fc1): Linear(in_features=4, out_features=8, bias=true)  # 40 parameters\n" in s, s)
  expect("(bn): BatchNorm1d(num_features=8, eps=1e-05, momentum=0.1, affine=true, track_running_stats=true)" in s, s)
  expect("(drop): Dropout(p=0.1, inplace=false)" in s, s)
  expect("MLP(\n  d_in=4, d_hidden=8, d_out=2\n" in s, s)
  expect(not ("Parameter[" in s), s)  # a layer's hyperparameters stand for its tensors
  expect(")  # 74 parameters in total" in s, s)
  expect(not ("!!" in s))
  no_grad { m.fc1.weight[0, 0] = nan_value() }
  no_grad { m.fc2.bias[1] = inf_value() }
  let t = str(m)
  expect("weight: Parameter[8, 4] !! holds NaN" in t, t)
  expect("bias: Parameter[2] !! holds Inf" in t, t)
  let q = str(nn.Sequential([nn.Linear(2, 2), nn.ReLU()]))
  expect(q == "Sequential(\n  (0): Linear(in_features=2, out_features=2, bias=true)  # 6 parameters\n  (1): ReLU()\n)  # 6 parameters in total", q)
  expect(str(nn.ReLU(inplace=true)) == "ReLU(inplace=true)", str(nn.ReLU(inplace=true)))
  expect(str(nn.LeakyReLU(0.2)) == "LeakyReLU(negative_slope=0.2)", str(nn.LeakyReLU(0.2)))
  let opt = optim.Adam(m.parameters(), lr=0.01)
  expect(str(opt) == "Adam(lr=0.01, betas=(0.9, 0.999), eps=1e-08, weight_decay=0, amsgrad=false, maximize=false)", str(opt))
}

fn nan_value() = tensor(0.0) / tensor(0.0)
fn inf_value() = tensor(1.0) / tensor(0.0)

test "count_parameters" {
  expect(nn.count_parameters(MLP(4, 8, 2)) == 40 + 16 + 18)
  expect(nn.count_parameters(nn.Sequential([nn.Conv2d(3, 4, 3), nn.Flatten()])) == 4 * 27 + 4)
}

test "clip_grad_norm_ returns the total norm and scales to max_norm" {
  let a = tensor([3.0, 0.0], requires_grad=true)
  let b = tensor([[0.0, 4.0]], requires_grad=true)
  (a * tensor([1.0, 2.0])).sum().backward()   # a.grad = [1, 2]
  (b * 2.0).sum().backward()                   # b.grad = [[2, 2]]
  # norm = sqrt(1 + 4 + 4 + 4) = sqrt(13)
  let n = nn.clip_grad_norm_([a, b], 1.0)
  expect_close(n, tensor(13.0) ** 0.5, rtol=1e-6)
  let c = 1.0 / (13.0 ** 0.5 + 1e-6)
  expect_close(a.grad, tensor([1.0, 2.0]) * c, rtol=1e-5)
  expect_close(b.grad, tensor([[2.0, 2.0]]) * c, rtol=1e-5)
  # already below max_norm: unchanged
  let before = a.grad.clone()
  expect_close(nn.clip_grad_norm_([a, b], 10.0), tensor(1.0), rtol=1e-5)
  expect_close(a.grad, before)
  # infinity norm
  a.grad = tensor([-5.0, 1.0])
  expect_close(nn.clip_grad_norm_([a], 100.0, norm_type=math_inf()), tensor(5.0))
  nn.clip_grad_value_([a, b], 0.5)
  expect_close(a.grad, tensor([-0.5, 0.5]))
}

fn math_inf() = 1e308 * 10.0

test "gradients accumulated over two micro-batches equal one big batch" {
  manual_seed(11)
  let m = nn.Sequential([nn.Linear(5, 7), nn.Tanh(), nn.Linear(7, 3)])
  let x = randn([8, 5])
  let y = randn([8, 3])
  let loss_fn = nn.MSELoss(reduction="sum")
  loss_fn(m(x), y).backward()
  let big = []
  for p in m.parameters() { big.append(p.grad.clone()) }
  m.zero_grad()
  loss_fn(m(x[:4]), y[:4]).backward()
  loss_fn(m(x[4:]), y[4:]).backward()
  let ps = m.parameters()
  for k in range(len(ps)) { expect_close(ps[k].grad, big[k], rtol=1e-5, atol=1e-6) }
}

test "a small MLP trained with plain SGD cuts an MSE loss by 10x" {
  manual_seed(12)
  let x = randn([128, 4])
  let y = (x @ tensor([[1.0], [-2.0], [0.5], [1.5]])) + tanh(x[:, 0:1] * 2.0)
  let m = nn.Sequential([nn.Linear(4, 32), nn.Tanh(), nn.Linear(32, 1)])
  let loss_fn = nn.MSELoss()
  let first = loss_fn(m(x), y).item()
  let last = first
  for step in range(300) {
    m.zero_grad()
    let loss = loss_fn(m(x), y)
    loss.backward()
    no_grad {
      for p in m.parameters() { p.sub_(p.grad * 0.05) }
    }
    last = loss.item()
  }
  expect(last < first / 10.0, f"loss {first} -> {last}")
}
