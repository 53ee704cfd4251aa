# What the hardening of round 6 (tests/lang/errors_hostile6.dsl) keeps working, each
# value checked against PyTorch 1.13's (or Python 3's for strings): assignment of a
# value with extra leading size-1 dims, strings by character (case, classes, strip,
# replace and count of "", format's conversions), NaN through clamp's tensor bounds,
# isin and searchsorted, help() of keywords, Dropout's p and zero_grad(set_to_none).
import nn

let nan = float("nan")

test "a value with leading size-1 dims past the target's is assigned, as PyTorch's" {
  let z = zeros([3, 4])
  z[0] = tensor([[1.0, 2.0, 3.0, 4.0]])
  expect(z[0].tolist() == [1.0, 2.0, 3.0, 4.0])
  z[tensor([1, 2])] = tensor([[[5.0, 6.0, 7.0, 8.0]]])
  expect(z.sum().item() == 62.0)
  let q = zeros([2, 2])
  q[tensor([0]), tensor([1])] = tensor([[[9.0]]])
  expect(q.tolist() == [[0.0, 9.0], [0.0, 0.0]])
  let w = zeros([3])
  w[:] = ones([1, 1, 3])
  expect(w.tolist() == [1.0, 1.0, 1.0])
  let e = zeros([2])
  e[0] = tensor([[[3.0]]])
  expect(e.tolist() == [3.0, 0.0])
  expect_error("e[0] = tensor([[3.0, 4.0]])", "[1, 2]")
}

test "advanced indexing with several index tensors gives PyTorch's values" {
  let x = arange(24).reshape([2, 3, 4])
  expect(x[tensor([0, 1]), tensor([1, 2])].tolist() == [[4, 5, 6, 7], [20, 21, 22, 23]])
  expect(x[:, tensor([0, 2]), tensor([1, 3])].tolist() == [[1, 11], [13, 23]])
  expect(x[tensor([0, 1]), 1, tensor([2, 3])].tolist() == [6, 19])
  expect(x[tensor([[true, false, true], [false, true, false]]), tensor([0, 1, 2])].tolist() == [0, 9, 18])
  expect(x.transpose(0, 2)[tensor([0, 3]), tensor([1, 2])].tolist() == [[4, 16], [11, 23]])
  let v = zeros([3, 4])
  v.t()[tensor([0, 1]), tensor([2, 0])] = 5
  expect(v.tolist() == [[0.0, 5.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [5.0, 0.0, 0.0, 0.0]])
}

test "str case and character classes go by code point, as Python's" {
  expect("héllo wörld".upper() == "HÉLLO WÖRLD")
  expect("ÀÉÎ ΣΑ Ж".lower() == "àéî σα ж")
  expect("straße".upper() == "STRASSE")
  expect("é".isalpha() and "É".isupper() and not "éA".islower() and "ä1".isalnum())
  expect("\u{a0}\u{3000} ".isspace())
  expect(not "\xc3".isalpha(), "a byte that is not UTF-8 is of no class")
  expect("\xc3".upper() == "\xc3", "and has no case")
}

test "strip, replace and count of the empty string work by character" {
  expect("éa".strip("è") == "éa", "e-grave and e-acute share their first byte")
  expect("ññañ".strip("ñ") == "a")
  expect("\t é \n".strip() == "é")
  expect("\u{a0}x\u{3000}".strip() == "x")
  expect("xéx".rstrip("x") == "xé" and "xéx".lstrip("x") == "éx")
  expect("é😀".replace("", "-") == "-é-😀-")
  expect("é😀".count("") == 3)
  expect("a\u{a0}b  c".split() == ["a", "b", "c"])
}

test "format's !r and !s conversions, as Python's" {
  expect("{!r:>6}|{0!s}|{x!r}".format("é", x=[1]) == "   'é'|é|[1]")
  expect("{0}{0}".format(7) == "77")
  expect("{{}}".format() == "{}")
}

test "clamp with a NaN in a tensor bound gives NaN there, as PyTorch's" {
  let r = clamp(tensor([1.0, nan, 3.0]), min=tensor([nan, 0.0, 0.0]))
  expect(isnan(r).tolist() == [true, true, false])
  let s = clamp(tensor([1.0, 2.0]), max=tensor([nan, 1.5]))
  expect(isnan(s).tolist() == [true, false] and s[1].item() == 1.5)
  expect(tensor([1, 2]).clamp(tensor([2, 0]), tensor([0, 1])).tolist() == [0, 1], "min above max gives max")
}

test "isin never finds NaN, and searchsorted places NaN as PyTorch's" {
  expect(isin(tensor([1.0, nan]), tensor([nan, 1.0])).tolist() == [true, false])
  expect(isin(tensor([nan]), tensor([nan]), invert=true).tolist() == [true])
  let seq = tensor([1.0, 3.0, nan])
  let v = tensor([5.0, nan, 0.0, 3.0])
  expect(searchsorted(seq, v).tolist() == [3, 3, 0, 1])
  expect(searchsorted(seq, v, right=true).tolist() == [3, 3, 0, 3])
  expect(searchsorted(tensor([1.0, nan]), tensor([nan, 2.0])).tolist() == [2, 2])
  expect(bucketize(tensor([nan, 2.0]), tensor([1.0, nan])).tolist() == [2, 2])
  expect(searchsorted(tensor([1, 3, 3, 5]), tensor([3]), right=true).tolist() == [3])
}

test "help of a keyword describes it" {
  expect_error(fn() = help("nn..Linear"), "expected a name or a dotted name")
  help("fn")
  help("none")
  help("while")
}

test "Dropout checks p at construction, as PyTorch's" {
  expect_error(fn() = nn.Dropout(-0.1), "p must be in [0, 1], got -0.1")
  expect_error(fn() = nn.Dropout(1.5), "p must be in [0, 1], got 1.5")
  expect(nn.Dropout(0.0)(ones([2])).tolist() == [1.0, 1.0])
}

test "zero_grad(set_to_none=false) zeroes the gradients, as PyTorch's" {
  let m = nn.Linear(2, 3)
  m(ones([1, 2])).sum().backward()
  m.zero_grad(set_to_none=false)
  expect(m.weight.grad.tolist() == [[0.0, 0.0], [0.0, 0.0], [0.0, 0.0]])
  m.zero_grad(false)
  expect(m.bias.grad.tolist() == [0.0, 0.0, 0.0])
  m.zero_grad()
  expect(m.weight.grad == none)
  let fresh = nn.Linear(2, 2)
  fresh.zero_grad(set_to_none=false)
  expect(fresh.weight.grad == none, "a missing gradient stays missing")
}

test "load_state_dict returns the missing and unexpected keys, as PyTorch's _IncompatibleKeys" {
  let m = nn.Sequential([nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1)])
  let sd = m.state_dict()
  sd.pop("2.bias")
  sd["extra.weight"] = zeros(1)
  let r = m.load_state_dict(sd, strict=false)
  expect(r.missing_keys == ["2.bias"] and r.unexpected_keys == ["extra.weight"])
  expect(str(r) == "_IncompatibleKeys(missing_keys=['2.bias'], unexpected_keys=['extra.weight'])")
  let ok = m.load_state_dict(m.state_dict())
  expect(ok.missing_keys == [] and ok.unexpected_keys == [] and str(ok) == "<All keys matched successfully>")
}
