# What the hardening of round 4 (tests/lang/errors_hostile4.dsl) keeps working: each
# check that now refuses a hostile argument still takes every ordinary one.
import data
import nn
import optim
import prune

test "a format spec on a one-element tensor formats it as its number" {
  expect(f"{tensor(1.5):.3f}" == "1.500")
  expect(f"{tensor([[2.5]]):+.2e}" == "+2.50e+00")
  expect(f"{tensor(7):>4d}" == "   7")
  expect(f"{tensor(true):d}" == "1")
  expect(f"{tensor([1.0, 2.0])}" == str(tensor([1.0, 2.0])), "no spec: the tensor's text")
  expect_error(fn() = f"{tensor([1.0, 2.0]):>20}", "needs a number or a one-element tensor")
}

test "Progress takes a count, 0, none or the list of batches" {
  for total in [0, 3, none, [1, 2]] {
    let p = data.Progress(total=total, tty=false)
    p.update(steps=2)
    expect(p.count() == 2)
  }
  expect_error(fn() = data.Progress(total=-1), "total must be a count of steps")
  let full_bar = data.Progress(total=3, tty=false)
  full_bar.update(steps=9223372036854775807)
  expect_error(fn() = full_bar.update(steps=1), "outside 0 to 2^63 - 1")
}

test "save_image refuses a format it cannot write" {
  expect_error(fn() = data.save_image(rand([4, 4]), "x.jpeg"), "has extension '.jpeg'")
  expect_error(fn() = data.save_image(rand([4, 4]), "dir.png/x"), "has no extension")
}

test "load_state_dict's strict by name or second, train's mode by name" {
  let m = nn.Sequential([nn.Linear(2, 2), nn.Linear(2, 1)])
  let sd = m.state_dict()
  sd.pop("1.bias")
  m.load_state_dict(sd, false)
  m.load_state_dict(sd, strict=false)
  expect_error(fn() = m.load_state_dict(sd), "missing key")
  expect_error(fn() = m.load_state_dict(sd, false, strict=false), "given twice")
  m.train(mode=false)
  expect(not m.training)
  m.train()
  expect(m.training)
  expect_error(fn() = m.eval(true), "takes no arguments")
  expect_error(fn() = m.requires_grad_("no"), "requires_grad")
}

test "the host arrays of bincount, histc and tensor_split take ordinary sizes" {
  expect(bincount(tensor([0, 2, 2]), minlength=5).tolist() == [1, 0, 2, 0, 0])
  expect(histc(tensor([1.0, 2.0, 1.0]), bins=4, min=0, max=3).tolist() == [0.0, 2.0, 1.0, 0.0])
  expect(histc(tensor([1e30, -1e30]), bins=2).tolist() == [1.0, 1.0], "a range whose width overflows f32 is finite")
  expect(len(tensor_split(arange(10), 3)) == 3)
  expect(data.permutation(5, seed=1).sort()[0].tolist() == [0, 1, 2, 3, 4])
}

test "one_hot's -1 finds the classes; narrow's checks do not wrap" {
  expect(one_hot(tensor([0, 2])).shape == (2, 3))
  expect(narrow(arange(5), 0, -2, 2).tolist() == [3, 4])
  expect_error(fn() = narrow(arange(5), 0, 2, 9223372036854775807), "do not fit dim 0")
}

test "none for a required tensor is an error naming the argument" {
  expect_error(fn() = kron(none, ones([2])), "kron(): argument 'input' must be a tensor, got none")
  expect_error(fn() = embedding(none, randn([3, 2])), "embedding(): argument 'input' must be a tensor, got none")
  expect_error(fn() = quantile(ones([3]), none), "must be a tensor, got none")
  expect(linear(ones([2]), ones([3, 2]), none).shape == (3,), "a row's optional none is still none")
}

test "losses broadcast as PyTorch's and name the arguments that do not" {
  expect(l1_loss(ones([4, 3]), zeros([3])).item() == 1.0)
  expect(margin_ranking_loss(ones([4]), zeros([1]), ones([4])).item() == 0.0)
  expect(cosine_embedding_loss(ones([2, 3]), ones([2, 3]), ones([2])).item() < 1e-6)
  expect(abs(kl_div(zeros([2, 3]), full([2, 3], 0.5), reduction="batchmean").item() - 1.5 * log(tensor(0.5)).item()) < 1e-5)
  expect_error(fn() = hinge_embedding_loss(randn([4]), ones([3])), "hinge_embedding_loss(): the shapes of input [4], target [3]")
  expect_error(fn() = pairwise_distance(randn([4, 3]), randn([5, 3])), "pairwise_distance(): the shapes")
}

test "unfold takes any kernel that fits" {
  expect(unfold(randn([1, 2, 4, 4]), 4).shape == (1, 32, 1))
  expect(unfold(randn([1, 1, 4, 4]), 5, padding=1).shape == (1, 25, 4))
}

test "convolution layers check their sizes when made; lazy ones still infer channels" {
  expect(nn.Conv2d(2, 4, [3, 1], stride=[1, 2], padding="same" if false else 0)(randn([1, 2, 5, 5])).shape == (1, 4, 3, 3))
  let l = nn.LazyConv2d(4, 3, padding=1)
  expect(l(randn([2, 3, 5, 5])).shape == (2, 4, 5, 5))
  expect(l.in_channels == 3)
  expect_error(fn() = nn.Conv1d(2, 4, 3, dilation=0), "Conv1d: argument 'dilation'")
  expect_error(fn() = nn.ConvTranspose2d(2, 4, 3, output_padding=-1), "argument 'output_padding'")
  expect_error(fn() = nn.Conv2d(-2, 4, 3), "argument 'in_channels' must be an int >= 0")
}

test "ParameterDict takes new names and updates its own" {
  let d = nn.ParameterDict({"scale": ones([2]), "shift": zeros([2])})
  d.update({"scale": full([2], 3.0)})
  expect(d.keys() == ["scale", "shift"])
  expect(d["scale"].tolist() == [3.0, 3.0])
  expect(len(d.state_dict()) == 2)
  expect_error(fn() = nn.ParameterDict({"": ones([1])}), "must be non-empty")
  expect_error(fn() = nn.ParameterDict({"training": ones([1])}), "own attributes or methods")
}

test "LBFGS's closure returns a tensor or a number" {
  let m = nn.Linear(2, 1)
  let o = optim.LBFGS(m.parameters(), max_iter=2)
  fn closure() {
    o.zero_grad()
    let l = (m(ones([3, 2])) ** 2).sum()
    l.backward()
    return l
  }
  expect(type(o.step(closure)) == "tensor")
  fn wide() {
    o.zero_grad()
    let l = m(ones([3, 2]))
    l.sum().backward()
    return l
  }
  expect_error(fn() = o.step(wide), "a tensor of shape [3, 1]")
}

test "prune's whole-model functions check the model" {
  expect(not prune.is_pruned(nn.Linear(2, 2)))
  expect(prune.sparsity_report(nn.Linear(2, 2), show=false)["numel"] == 6)
  expect_error(fn() = prune.is_pruned("model"), "prune.is_pruned(): model must be a model instance")
  expect_error(fn() = prune.remove_all(none), "prune.remove_all(): model must be a model instance")
}

test "distance functions of triplet_margin_with_distance_loss return tensors" {
  let a = randn([4, 3])
  expect(triplet_margin_with_distance_loss(a, a, a, distance_function=fn(x, y) = (x - y).abs().sum(1)).item() == 1.0)
  expect_error(fn() = triplet_margin_with_distance_loss(a, a, a, distance_function=fn(x, y) = 1.0), "must return a tensor")
}
