# PyTorch's item assignment on the containers (m[i] = layer on Sequential and
# ModuleList, md[key] = layer on ModuleDict), nn.Parameter and the nn.functional path.
import nn

test "m[i] = layer replaces a layer of Sequential and ModuleList in place, negative i from the end" {
  let s = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
  s[1] = nn.Tanh()
  s[-1] = nn.Linear(3, 2)
  expect(type(s[1]) == "Tanh" and s[2].out_features == 2)
  expect(s(randn([4, 2])).shape == (4, 2))
  expect(list(s.state_dict().keys()) == ["0.weight", "0.bias", "2.weight", "2.bias"])
  let ml = nn.ModuleList([nn.Linear(2, 2), nn.Linear(2, 2)])
  ml[0] = nn.Linear(2, 4)
  expect(ml[0].out_features == 4 and len(ml.parameters()) == 4)
  expect_error(fn() = s.__setitem__(3, nn.ReLU()), "nn.Sequential: index 3 is out of range for 3 layers")
  expect_error(fn() = ml.__setitem__(0, 5), "nn.ModuleList[0] = layer: the value must be a layer (a model instance), got int")
}

test "md[key] = layer adds or replaces a layer of a ModuleDict" {
  let md = nn.ModuleDict({"a": nn.Linear(2, 2)})
  md["b"] = nn.Linear(2, 5)
  md["a"] = nn.Linear(2, 3)
  expect(md.keys() == ["a", "b"])
  expect(md["a"].out_features == 3 and len(md.parameters()) == 4)
}

model WithToken() {
  cls = nn.Parameter(zeros([1, 1, 4]))
  forward(x) = x + self.cls
}

test "nn.Parameter(data) is a leaf that requires grad and shares data's memory; a field holding it is a parameter" {
  let d = randn([3])
  let p = nn.Parameter(d)
  expect(p.requires_grad and p.is_leaf and p.data_ptr() == d.data_ptr())
  expect(not nn.Parameter(d, requires_grad=false).requires_grad)
  expect(nn.Parameter().shape == (0,))
  let m = WithToken()
  expect(len(m.parameters()) == 1 and list(m.state_dict().keys()) == ["cls"])
  expect_error(fn() = nn.Parameter([1.0]), "nn.Parameter: data must be a tensor, got list")
}

test "nn.functional.<name> is the global function, as PyTorch's torch.nn.functional path" {
  let x = tensor([-1.0, 2.0])
  expect(equal(nn.functional.relu(x), relu(x)))
  let logits = randn([3, 4])
  let y = tensor([0, 3, 1])
  expect(equal(nn.functional.cross_entropy(logits, y), cross_entropy(logits, y)))
}
