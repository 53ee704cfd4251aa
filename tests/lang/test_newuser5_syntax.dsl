# What the fifth round of new-user programs (tests/stdlib/train/test_newuser5_*.dsl)
# needed of the language: a generator expression as a call's only argument
# (sum(p.numel() for p in m.parameters())), dict displays that unpack mappings
# ({**params, **buffers}, torch.func's idiom for functional_call), and NumPy's axis=
# and keepdims= keywords, which PyTorch's builtins take for dim= and keepdim=.
import nn

test "a generator expression as the only argument reads as the list comprehension" {
  let m = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
  expect(sum(p.numel() for p in m.parameters()) == 3 * 4 + 4 + 4 * 2 + 2)
  expect(sum(p.numel() for p in m.parameters() if p.dim() == 1) == 6)
  expect(any(x > 2 for x in [1, 2, 3]) and not all(x > 1 for x in [1, 2, 3]))
  expect(max(len(s) for s in ["a", "abc", "ab"]) == 3)
  expect(", ".join(str(i) for i in range(3)) == "0, 1, 2")
  expect(tuple(i * i for i in range(3)) == (0, 1, 4))
  expect(sorted((-x for x in [2, 1, 3])) == [-3, -2, -1])     # parenthesised, as an argument
  expect(dict((k, k * 2) for k in range(2)) == {0: 0, 1: 2})
  expect(list((i, j) for i in range(2) for j in range(i)) == [(1, 0)])
  # spread over lines inside the call's brackets
  let total = sum(
    x * x
    for x in range(4)
    if x % 2 == 1
  )
  expect(total == 10)
  # the loop variable stays inside, as a comprehension's
  let x = "outer"
  let ignored = sum(x for x in range(3))
  expect(x == "outer")
}

test "a dict display unpacks mappings in order, later keys replacing earlier ones" {
  let a = {"x": 1, "y": 2}
  let b = {"y": 3, "z": 4}
  expect({**a, **b} == {"x": 1, "y": 3, "z": 4})
  expect({**a, "y": 5} == {"x": 1, "y": 5})
  expect({"y": 0, **a} == {"y": 2, "x": 1})
  expect(list({"w": 0, **a}.keys()) == ["w", "x", "y"])
  expect({**{}} == {})
  let c = {**a}
  c["x"] = 10
  expect(a["x"] == 1, "the new dict is a copy")
  let nested = {"inner": [1]}
  expect({**nested}["inner"] is nested["inner"], "whose values are shared, as Python's")
  expect_error(fn() = {**[1, 2]}, "'**' in a dict unpacks a dict, got list")
}

test "functional_call over {**params, **buffers} runs BatchNorm on the given statistics" {
  manual_seed(0)
  let bn = nn.BatchNorm1d(2)
  let params = dict(bn.named_parameters())
  let buffers = {k: v.clone() for (k, v) in bn.named_buffers()}
  let x = randn(8, 2) + 3.0
  nn.utils.stateless.functional_call(bn, {**params, **buffers}, (x,))
  expect_close(buffers["running_mean"], 0.1 * x.mean(0), rtol=1e-5, atol=1e-6)
  expect((bn.running_mean == 0).all().item(), "the module's own statistics are untouched")
}

test "axis= and keepdims= are dim= and keepdim=, as PyTorch's argument parser takes them" {
  let x = arange(6.0).view(2, 3)
  expect_close(x.sum(axis=1), x.sum(dim=1))
  expect(x.mean(axis=0, keepdims=true).shape == (1, 3))
  expect(sum(x, axis=0).shape == (3,))
  expect(cat([x, x], axis=1).shape == (2, 6))
  expect_close(softmax(x, axis=-1), softmax(x, dim=-1))
  expect(x.max(axis=1).indices.tolist() == [2, 2])
  expect_error(fn() = x.sum(axis=1, dim=0), "sum() got multiple values for argument 'dim'")
}
