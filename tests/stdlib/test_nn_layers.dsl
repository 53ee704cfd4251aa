# nn layers, initializers and losses (run by `nabla test tests/stdlib`; ctest dsl_tests).
import nn
import math

test "every layer gives the expected shape" {
  manual_seed(0)
  let x = randn([2, 3, 8, 8])
  expect(nn.Linear(4, 5)(randn([7, 4])).shape == (7, 5))
  expect(nn.Linear(4, 5, bias=false)(randn([2, 6, 4])).shape == (2, 6, 5))
  expect(nn.Conv2d(3, 6, 3)(x).shape == (2, 6, 6, 6))
  expect(nn.Conv2d(3, 6, 3, stride=2, padding=1)(x).shape == (2, 6, 4, 4))
  expect(nn.Conv2d(3, 6, [3, 1], padding=[1, 0], dilation=1, groups=3)(x).shape == (2, 6, 8, 8))
  expect(nn.BatchNorm1d(5)(randn([4, 5])).shape == (4, 5))
  expect(nn.BatchNorm1d(5)(randn([4, 5, 7])).shape == (4, 5, 7))
  expect(nn.BatchNorm2d(3)(x).shape == (2, 3, 8, 8))
  expect(nn.LayerNorm(8)(x).shape == (2, 3, 8, 8))
  expect(nn.LayerNorm([8, 8])(x).shape == (2, 3, 8, 8))
  expect(nn.Dropout(0.3)(x).shape == (2, 3, 8, 8))
  expect(nn.Embedding(10, 4)(tensor([[1, 2, 3], [4, 5, 9]])).shape == (2, 3, 4))
  expect(nn.MaxPool2d(2)(x).shape == (2, 3, 4, 4))
  expect(nn.MaxPool2d(3, stride=1, padding=1)(x).shape == (2, 3, 8, 8))
  expect(nn.AvgPool2d(2)(x).shape == (2, 3, 4, 4))
  expect(nn.AvgPool2d(4, stride=2)(x).shape == (2, 3, 3, 3))
  expect(nn.Flatten()(x).shape == (2, 192))
  expect(nn.Flatten(start_dim=2)(x).shape == (2, 3, 64))
  expect(nn.Flatten(0, 1)(x).shape == (6, 8, 8))
  for a in [nn.ReLU(), nn.GELU(), nn.SiLU(), nn.Tanh(), nn.Sigmoid(), nn.Softmax(1), nn.LogSoftmax(-1), nn.Identity()] {
    expect(a(x).shape == (2, 3, 8, 8))
  }
  let s = nn.Sequential([nn.Flatten(), nn.Linear(192, 10), nn.ReLU(), nn.Linear(10, 2)])
  expect(s(x).shape == (2, 2))
  expect(len(s) == 4)
  expect(s[1].out_features == 10)
  expect(s[-1].in_features == 10)
}

test "activation modules equal their functions" {
  let x = randn([4, 6])
  expect_close(nn.ReLU()(x), relu(x))
  expect_close(nn.GELU()(x), gelu(x))
  expect_close(nn.SiLU()(x), silu(x))
  expect_close(nn.Tanh()(x), tanh(x))
  expect_close(nn.Sigmoid()(x), sigmoid(x))
  expect_close(nn.Softmax(0)(x), softmax(x, dim=0))
  expect_close(nn.LogSoftmax(1)(x), log_softmax(x, dim=1))
  expect_close(nn.Softmax(1)(x).sum(dim=1), ones([4]), rtol=1e-5, atol=1e-6)
}

test "Linear equals linear() with the same weights, and its init is PyTorch's" {
  manual_seed(1)
  let l = nn.Linear(16, 8)
  let x = randn([5, 16])
  expect_close(l(x), linear(x, l.weight, l.bias))
  expect_close(l(x), x @ l.weight.T + l.bias, rtol=1e-5, atol=1e-6)
  expect(l.weight.requires_grad and l.bias.requires_grad and l.weight.dtype == f32)
  let bound = 1.0 / math.sqrt(16.0)
  expect(l.weight.abs().max().item() <= bound)
  expect(l.bias.abs().max().item() <= bound)
  # U(-b, b) has std b/sqrt(3); 128 samples are enough to tell it from N(0, 1)
  expect(abs(l.weight.std().item() - bound / math.sqrt(3.0)) < 0.05)
  expect(nn.Linear(3, 2, bias=false).bias == none)
  expect(len(nn.Linear(3, 2, bias=false).parameters()) == 1)
}

test "Conv2d equals conv2d() with the same weights" {
  manual_seed(2)
  let c = nn.Conv2d(4, 6, 3, stride=2, padding=1, groups=2)
  expect(c.weight.shape == (6, 2, 3, 3))
  let x = randn([2, 4, 9, 9])
  expect_close(c(x), conv2d(x, c.weight, c.bias, stride=[2, 2], padding=[1, 1], groups=2))
  let bound = 1.0 / math.sqrt(18.0)
  expect(c.weight.abs().max().item() <= bound and c.bias.abs().max().item() <= bound)
}

test "BatchNorm running stats move in train and are used in eval" {
  manual_seed(3)
  let bn = nn.BatchNorm2d(3)
  let x = randn([8, 3, 4, 4]) * 2.0 + 5.0
  let y = bn(x)
  # training: normalized with the batch's statistics
  expect_close(y.mean(dim=[0, 2, 3]), zeros([3]), atol=1e-4)
  # running = 0.9 * running + 0.1 * batch statistic (unbiased variance)
  let m = x.mean(dim=[0, 2, 3])
  let v = x.var(dim=[0, 2, 3])
  expect_close(bn.running_mean, m * 0.1, rtol=1e-4, atol=1e-5)
  expect_close(bn.running_var, v * 0.1 + 0.9, rtol=1e-4, atol=1e-5)
  expect(bn.num_batches_tracked.item() == 1)
  bn.eval()
  let rm = bn.running_mean.clone()
  let z = bn(x)
  expect_close(bn.running_mean, rm)  # unchanged in eval
  let want = (x - rm.reshape([1, 3, 1, 1])) / sqrt(bn.running_var.reshape([1, 3, 1, 1]) + 1e-5)
  expect_close(z, want, rtol=1e-4, atol=1e-4)
  expect(bn.num_batches_tracked.item() == 1)
  let b1 = nn.BatchNorm1d(2)
  b1(tensor([[1.0, 10.0], [3.0, 30.0]]))
  expect_close(b1.running_mean, tensor([0.2, 2.0]), rtol=1e-5)
}

test "BatchNorm without running stats or affine parameters" {
  let b = nn.BatchNorm1d(3, affine=false, track_running_stats=false)
  expect(len(b.parameters()) == 0)
  b.eval()
  let y = b(randn([6, 3]) * 4.0 + 3.0)
  expect_close(y.mean(dim=0), zeros([3]), atol=1e-5)  # batch statistics even in eval
  expect(b.running_mean == none and len(b.state_dict()) == 0)  # no running statistics, as PyTorch's None
  expect_error("nn.BatchNorm2d(3)(randn([2, 3]))", "expected a 4-d input")
  expect_error("nn.BatchNorm1d(3)(randn([2, 3, 4, 4]))", "expected a 2-d or 3-d input")
}

test "LayerNorm equals layer_norm()" {
  let ln = nn.LayerNorm(6)
  let x = randn([3, 6]) * 3.0
  expect_close(ln(x), layer_norm(x, [6], weight=ln.weight, bias=ln.bias), rtol=1e-5, atol=1e-6)
  expect_close(ln(x).mean(dim=1), zeros([3]), atol=1e-5)
}

test "Dropout zeroes and rescales in train and is the identity in eval" {
  manual_seed(4)
  let d = nn.Dropout(0.5)
  let x = ones([1000])
  let y = d(x)
  let kept = (y != 0.0).sum().item()
  expect(kept > 400 and kept < 600)
  expect_close(y.max(), tensor(2.0))
  d.eval()
  expect_close(d(x), x)
  d.train()
  expect(d.training)
  expect_close(nn.Dropout(0.0)(x), x)
}

test "Embedding looks up rows" {
  let e = nn.Embedding(5, 3)
  expect_close(e(tensor([4, 0]))[0], e.weight[4])
  expect(e.weight.requires_grad)
}

test "loss modules equal the functional losses" {
  manual_seed(5)
  let logits = randn([6, 4])
  let target = tensor([0, 3, 1, 2, 2, 1])
  expect_close(nn.CrossEntropyLoss()(logits, target), cross_entropy(logits, target))
  expect_close(nn.CrossEntropyLoss(label_smoothing=0.1)(logits, target),
               cross_entropy(logits, target, label_smoothing=0.1))
  expect(nn.CrossEntropyLoss(reduction="none")(logits, target).shape == (6,))
  expect_close(nn.CrossEntropyLoss(reduction="sum")(logits, target), cross_entropy(logits, target) * 6.0, rtol=1e-5)
  expect_close(nn.NLLLoss()(log_softmax(logits, dim=1), target), cross_entropy(logits, target), rtol=1e-5)
  let p = sigmoid(randn([5]))
  let t = tensor([0.0, 1.0, 1.0, 0.0, 1.0])
  expect_close(nn.MSELoss()(p, t), ((p - t) ** 2).mean(), rtol=1e-5)
  expect_close(nn.BCELoss()(p, t), binary_cross_entropy(p, t))
  let z = randn([5])
  expect_close(nn.BCEWithLogitsLoss()(z, t), nn.BCELoss()(sigmoid(z), t), rtol=1e-4)
}

test "initializers fill in place under no_grad" {
  manual_seed(6)
  let w = randn([64, 32], requires_grad=true)
  nn.zeros_(w)
  expect(w.abs().sum().item() == 0.0)
  expect(w.requires_grad and w.is_leaf)
  nn.ones_(w)
  expect(w.sum().item() == 2048.0)
  nn.uniform_(w, -0.5, 0.5)
  expect(w.abs().max().item() <= 0.5)
  nn.normal_(w, 2.0, 0.1)
  expect(abs(w.mean().item() - 2.0) < 0.02 and abs(w.std().item() - 0.1) < 0.02)
  nn.xavier_uniform_(w)
  expect(w.abs().max().item() <= math.sqrt(6.0 / 96.0))
  nn.xavier_normal_(w)
  expect(abs(w.std().item() - math.sqrt(2.0 / 96.0)) < 0.02)
  nn.kaiming_uniform_(w, nonlinearity="relu")
  expect(w.abs().max().item() <= math.sqrt(6.0 / 32.0))
  nn.kaiming_normal_(w, mode="fan_out", nonlinearity="relu")
  expect(abs(w.std().item() - math.sqrt(2.0 / 64.0)) < 0.02)
  let c = zeros([8, 4, 3, 3])
  expect(nn.calculate_fan_in_and_fan_out(c) == (36, 72))
}

test "Sequential: PyTorch's layer names, indexing, slices, len and append" {
  let s = nn.Sequential([nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2)])
  expect(s.named_parameters()[2][0] == "2.weight")
  expect(s[0].in_features == 3 and s[-1].out_features == 2)
  let head = s[0:2]
  expect(len(head) == 2 and head(randn([5, 3])).shape == (5, 4))
  s.append(nn.Sigmoid())
  expect(len(s) == 4)
  let y = s(randn([6, 3]))
  expect(y.shape == (6, 2) and y.min().item() > 0.0)
  expect(type(getattr(s, "1")) == "ReLU")
  expect(getattr(s, "nope", 7) == 7)
  expect_error("getattr(nn.Sequential([]), \"nope\")", "has no attribute 'nope'")
}

test "model.to(dtype): floating parameters and buffers converted in place" {
  let net = nn.Sequential([nn.Linear(3, 4), nn.BatchNorm1d(4)])
  let w = net[0].weight
  let before = w.detach().clone()
  net[0].weight.grad = ones([4, 3])
  let returned = net.to(f64)
  expect(returned[0].weight.dtype == f64, "to() returns the model")
  expect(w.dtype == f64 and net[0].weight.dtype == f64 and net[1].running_mean.dtype == f64)
  expect(net[1].num_batches_tracked.dtype == i64, "integer buffers stay")
  expect(w.grad.dtype == f64, "the gradient follows its parameter")
  expect((w.detach() - before.to(f64)).abs().max().item() == 0.0)
  expect(net(randn([2, 3], dtype=f64)).dtype == f64)
  expect_error("nn.Linear(2, 2).to(i64)", "to(): a model converts to a floating dtype, got i64")
}
