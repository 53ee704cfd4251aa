# The model API PyTorch users call beyond forward: freezing with requires_grad_,
# half/float/double, get_submodule, add_module, parameters(recurse=false), and the
# nn.init and nn.utils namespaces (trunc_normal_, parameters_to_vector). Run by ctest
# dsl_tests.
import nn

fn net() = nn.Sequential([nn.Linear(4, 8), nn.ReLU(), nn.Sequential([nn.Linear(8, 2)])])

test "requires_grad_ freezes and unfreezes every parameter, and returns the model" {
  let m = net()
  expect(m.requires_grad_(false) == m)
  for p in m.parameters() { expect(not p.requires_grad) }
  m[2].requires_grad_()
  expect(m[2][0].weight.requires_grad and not m[0].weight.requires_grad)
  let loss = m(randn([3, 4])).sum()
  loss.backward()
  expect(m[0].weight.grad == none and m[2][0].weight.grad != none)
  expect_error(fn() = m.requires_grad_(true, 2), "takes one argument")
}

test "half, float, double and bfloat16 convert the floating tensors in place" {
  let m = net()
  let bn = nn.BatchNorm1d(3)
  expect(str(m.double()[0].weight.dtype) == "f64" and str(m.float()[2][0].bias.dtype) == "f32")
  expect(str(bn.half().running_mean.dtype) == "f16" and str(bn.num_batches_tracked.dtype) == "i64")
  expect(str(nn.Linear(2, 2).bfloat16().weight.dtype) == "bf16")
}

test "get_submodule walks a dotted path; add_module adds a field" {
  let m = net()
  expect(type(m.get_submodule("2.0")) == "Linear")
  expect_error(fn() = m.get_submodule("2.5"), "has no submodule '5' (path '2.5')")
  let s = nn.Sequential([])
  s.add_module("fc", nn.Linear(2, 3))
  expect(list(s.state_dict().keys()) == ["fc.weight", "fc.bias"])
  expect_error(fn() = s.add_module("x", 5), "must be a model instance")
}

test "parameters(recurse=false) lists the model's own only" {
  model Head() {
    scale = ones([1], requires_grad=true)
    body = nn.Linear(2, 2)
    forward(x) = self.body(x) * self.scale
  }
  let h = Head()
  expect(len(h.parameters()) == 3 and len(h.parameters(recurse=false)) == 1)
  expect([n for (n, p) in h.named_parameters(recurse=false)] == ["scale"])
  expect_error(fn() = h.parameters(deep=true), "unexpected keyword argument 'deep'")
}

test "nn.init is PyTorch's path to the initializers; trunc_normal_ stays in [a, b]" {
  let w = zeros([200, 50])
  nn.init.xavier_uniform_(w)
  expect(w.abs().max().item() <= (6.0 / 250.0) ** 0.5 + 1e-6 and w.std().item() > 0)
  nn.init.zeros_(w)
  expect(w.abs().sum().item() == 0)
  manual_seed(5)
  nn.init.trunc_normal_(w, mean=0.5, std=1.0, a=-0.5, b=1.0)
  expect(w.min().item() >= -0.5 and w.max().item() <= 1.0)
  # The truncated normal's mean, N(0.5, 1) on [-0.5, 1.0]: 0.5 + (phi(-1) - phi(0.5)) / (Phi(0.5) - Phi(-1)).
  expect(abs(w.mean().item() - 0.2934) < 0.02)
  expect(nn.trunc_normal_ == nn.init.trunc_normal_)
  expect_error(fn() = nn.init.trunc_normal_(w, a=1.0, b=0.0), "must be below b")
}

test "nn.utils: clip_grad_norm_, parameters_to_vector and vector_to_parameters" {
  let m = nn.Linear(3, 2)
  let v = nn.utils.parameters_to_vector(m.parameters())
  expect(v.shape == (8,))
  nn.utils.vector_to_parameters(arange(8).to(f32), m.parameters())
  expect(m.weight.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]] and m.bias.tolist() == [6.0, 7.0])
  expect_error(fn() = nn.utils.vector_to_parameters(zeros([5]), m.parameters()), "must be 1-D with 8 elements")
  m(ones([1, 3])).sum().backward()
  expect(nn.utils.clip_grad_norm_(m.parameters(), 0.1).item() > 0.1)
  expect(nn.utils.clip_grad_norm_ == nn.clip_grad_norm_)
}

test "static methods: Transformer.generate_square_subsequent_mask and Embedding.from_pretrained, as PyTorch's" {
  expect_close(nn.Transformer.generate_square_subsequent_mask(3), nn.generate_square_subsequent_mask(3))
  let w = tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
  let e = nn.Embedding.from_pretrained(w, padding_idx=0)
  expect(e(tensor([0, 2])).tolist() == [[1.0, 2.0], [5.0, 6.0]] and not e.weight.requires_grad)
  expect(nn.Embedding.from_pretrained(w, freeze=false).weight.requires_grad)
  expect_error(fn() = nn.Embedding.from_pretrained(ones([3])), "embeddings must be 2-D")
}

test "a method that is not static, called on the class, needs an instance" {
  expect_error(fn() = nn.Linear.forward(ones([2])), "Linear.forward() needs an instance of Linear as its first argument, got tensor")
}

test "nn.Sequential takes its layers one by one, as a list, or as a dict of names (PyTorch's OrderedDict form)" {
  manual_seed(3)
  let a = nn.Linear(3, 4)
  let b = nn.Linear(4, 2)
  let by_args = nn.Sequential(a, nn.ReLU(), b)
  let by_list = nn.Sequential([a, nn.ReLU(), b])
  let x = randn([5, 3])
  expect(equal(by_args(x), by_list(x)))
  expect(list(by_args.state_dict()) == ["0.weight", "0.bias", "2.weight", "2.bias"], f"{list(by_args.state_dict())}")
  let named = nn.Sequential({"fc": a, "act": nn.ReLU(), "out": b})
  expect(equal(named(x), by_list(x)))
  expect(list(named.state_dict()) == ["fc.weight", "fc.bias", "out.weight", "out.bias"], f"{list(named.state_dict())}")
  expect(named.fc == a and len(named) == 3)
  expect(len(nn.Sequential(a)) == 1 and len(nn.Sequential()) == 0)
  expect(equal(nn.Sequential(a)(x), a(x)))
  expect_error(fn() = nn.Sequential(a, 3), "nn.Sequential(): layers[1] must be a layer (a model instance), got int")
}

test "hasattr and callable, as Python's" {
  let l = nn.Linear(2, 3)
  expect(hasattr(l, "weight") and hasattr(l, "forward") and not hasattr(l, "wieght"))
  expect(hasattr([1], "append") and not hasattr(3, "shape") and hasattr(randn([2]), "shape"))
  expect(callable(relu) and callable(l) and callable(nn.Linear) and callable(fn(x) = x) and callable(l.forward))
  expect(not callable(3) and not callable("relu") and not callable(randn([2])) and not callable(none))
  expect_error(fn() = hasattr(l, 3), "hasattr(): name must be a str, got int")
}
