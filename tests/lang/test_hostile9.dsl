# What the hardening of round 9 (tests/lang/errors_hostile9.dsl) keeps working, each
# value checked against PyTorch 1.13's (functorch for the transforms): the transforms of
# a function that returns its input unchanged, linalg on empty matrices, non-finite and
# f16 inputs, in-place ops PyTorch allows on int tensors, copies between overlapping
# views, eye of an empty width, a compiled function returning a tensor it was given
# inside a list, named tuples, checkpoints of UTF-8 text, and f-strings.
import linalg
import nn

let nan = float("nan")
let inf = float("inf")

test "the transforms of a function that returns its input unchanged give the identity, as functorch's" {
  # functorch 1.13: grad(lambda x: x)(tensor(2.)) is tensor(1.); it was 0 (the leaf's
  # accumulator was made twice, so its gradient was never captured)
  expect(grad(fn(x) = x)(tensor(2.0)).item() == 1.0)
  let (v, g) = value_and_grad(fn(x) = x)(tensor(3.0))
  expect(v.item() == 3.0 and g.item() == 1.0)
  let (out, pull) = vjp(fn(x) = x, tensor([1.0, 2.0, 3.0]))
  expect(pull(tensor([4.0, 5.0, 6.0]))[0].tolist() == [4.0, 5.0, 6.0])
  expect(jacrev(fn(x) = x)(tensor([1.0, 2.0])).tolist() == [[1.0, 0.0], [0.0, 1.0]])
  expect(jacfwd(fn(x) = x)(tensor([1.0, 2.0])).tolist() == [[1.0, 0.0], [0.0, 1.0]])
  expect(jacrev(fn(x, y) = y, argnums=1)(tensor([1.0, 2.0]), tensor([3.0, 4.0])).tolist() == [[1.0, 0.0], [0.0, 1.0]])
  let (j1, j2) = jacrev(fn(x) = (x, x * 2))(tensor([1.0, 2.0]))
  expect(j1.tolist() == [[1.0, 0.0], [0.0, 1.0]] and j2.tolist() == [[2.0, 0.0], [0.0, 2.0]])
  expect(vmap(jacrev(fn(x) = x))(ones([2, 3])).sum().item() == 6.0)
}

test "autograd's grad of an output that is the input itself, as torch.autograd.grad" {
  let x = tensor([1.0, 2.0, 3.0], requires_grad=true)
  # torch 1.13: torch.autograd.grad(x, x, tensor([1., 2., 3.])) is (tensor([1., 2., 3.]),)
  expect(grad(x, x, tensor([1.0, 2.0, 3.0])).tolist() == [1.0, 2.0, 3.0])
  # torch 1.13: torch.autograd.grad([x, x * 2], x, [ones(3), ones(3)]) is (tensor([3., 3., 3.]),)
  expect(grad([x, x * 2], x, [ones([3]), ones([3])]).tolist() == [3.0, 3.0, 3.0])
  expect(x.grad == none, "grad() leaves .grad alone")
}

test "the transforms take a structure that shares a tensor (only a true cycle is refused)" {
  let t = ones([2, 3])
  let shared = [t, t]
  let out = vmap(fn(l) = l[0] + l[1])(shared)
  expect(out.shape == (2, 3) and out.sum().item() == 12.0)
  let inner = [ones([2])]
  let g = grad(fn(d) = d["a"][0].sum() + d["b"][0].sum())({"a": inner, "b": inner})
  expect(g["a"][0].tolist() == [1.0, 1.0])
  expect_error(fn() = grad(fn(x) = x.sum())(), "argnums 0 is out of range")
  expect_error(fn() = jacfwd(fn(x) = x.sum())(), "argnums 0 is out of range")
}

test "linalg on empty matrices gives PyTorch's values" {
  # torch 1.13: pinv(zeros(0, 3)) is [3, 0], pinv(zeros(2, 0, 3)) is [2, 3, 0]
  expect(linalg.pinv(zeros([0, 3])).shape == (3, 0))
  expect(linalg.pinv(zeros([3, 0])).shape == (0, 3))
  expect(linalg.pinv(zeros([2, 0, 3])).shape == (2, 3, 0))
  # torch 1.13: matrix_rank(zeros(0, 0)) is tensor(0), of zeros(2, 3, 0) tensor([0, 0])
  expect(linalg.matrix_rank(zeros([0, 0])).item() == 0)
  expect(linalg.matrix_rank(zeros([2, 3, 0])).tolist() == [0, 0])
  # torch 1.13: lstsq(zeros(0, 3), zeros(0, 2)).solution is zeros(3, 2)
  let s = linalg.lstsq(zeros([0, 3]), zeros([0, 2]))
  expect(s.solution.shape == (3, 2) and s.solution.abs().sum().item() == 0.0 and s.rank.item() == 0)
  # torch 1.13: matrix_norm of zeros(0, 3) with ord 1, -1, "nuc", "fro", of zeros(3, 0) with inf: 0
  expect(linalg.matrix_norm(zeros([0, 3]), 1).item() == 0.0)
  expect(linalg.matrix_norm(zeros([0, 3]), -1).item() == 0.0)
  expect(linalg.matrix_norm(zeros([0, 3]), "nuc").item() == 0.0)
  expect(linalg.matrix_norm(zeros([3, 0]), inf).item() == 0.0)
  expect_error(fn() = linalg.matrix_norm(zeros([0, 3]), inf), "takes a max or min over an empty dim")
  # torch 1.13: vector_norm(zeros(0)) is 0, ord 0 too; zeros(2, 0) with inf over dim 0 is empty
  expect(linalg.vector_norm(zeros([0])).item() == 0.0 and linalg.vector_norm(zeros([0]), 0).item() == 0.0)
  expect(linalg.vector_norm(zeros([2, 0]), inf, dim=0).shape == (0,))
  expect(zeros([0, 3]).norm(-1, 1).shape == (0,), "a negative ord over dims that are not empty")
}

test "matrix_exp of non-finite, huge and half-precision matrices, as PyTorch's" {
  # torch 1.13: matrix_exp of [[inf, 0], [0, 1]] and of [[1e30, 0], [0, 1]] is all NaN
  expect(linalg.matrix_exp(tensor([[inf, 0.0], [0.0, 1.0]])).isnan().all().item())
  expect(linalg.matrix_exp(tensor([[inf, 0.0], [0.0, 1.0]], dtype=f64)).isnan().all().item())
  expect(linalg.matrix_exp(tensor([[1e30, 0.0], [0.0, 1.0]])).isnan().all().item())
  expect(linalg.matrix_exp(tensor([[1e300, 0.0], [0.0, 1.0]], dtype=f64)).isnan().all().item())
  # torch 1.13: matrix_exp(A.double()).half() for A = [[0.5, 1], [-1, 0.25]] (its CPU kernel has no f16);
  # the f16 result was all NaN (the Pade coefficients overflow f16)
  let A = tensor([[0.5, 1.0], [-1.0, 0.25]])
  let h = linalg.matrix_exp(A.half())
  expect(h.dtype == f16)
  expect(h.float().tolist() == tensor([[0.9492, 1.2275], [-1.2275, 0.6421]], dtype=f16).float().tolist())
  let b = linalg.matrix_exp(A.to(bf16))
  expect(b.dtype == bf16)
  expect(b.float().tolist() == tensor([[0.9492, 1.2266], [-1.2266, 0.6406]], dtype=bf16).float().tolist())
  # torch 1.13: matrix_exp(A) in f32
  expect_close(linalg.matrix_exp(A), tensor([[0.9492, 1.2278], [-1.2278, 0.6422]]), rtol=0, atol=1e-4)
}

test "svd of an infinite matrix still answers as PyTorch's (only NaN is refused)" {
  # torch 1.13: svd([[inf, 1], [1, 1]]).S is tensor([nan, nan])
  expect(linalg.svd(tensor([[inf, 1.0], [1.0, 1.0]])).S.isnan().all().item())
  expect_error(fn() = linalg.matrix_rank(tensor([[nan, 0.0], [0.0, 1.0]])), "contained non-finite values")
}

test "in-place ops PyTorch allows on int and bool tensors still run" {
  # torch 1.13 gives each of these values in place
  let x = tensor([1, 2, 3])
  x.mul_(2)
  expect(x.tolist() == [2, 4, 6] and x.dtype == i64)
  x.add_(tensor([1, 1, 1], dtype=i32))
  expect(x.tolist() == [3, 5, 7])
  x.clamp_(4, 6)
  expect(x.tolist() == [4, 5, 6])
  x.masked_fill_(tensor([true, false, false]), 1.5)
  expect(x.tolist() == [1, 5, 6])
  x.neg_()
  expect(x.tolist() == [-1, -5, -6])
  x.fill_(2.5)
  expect(x.tolist() == [2, 2, 2])
  x.floor_divide_(2)
  expect(x.tolist() == [1, 1, 1])
  let m = tensor([true, false])
  m.add_(true)
  expect(m.tolist() == [true, true])
  let f = zeros([2], dtype=f16)
  f.add_(ones([2]))
  expect(f.dtype == f16 and f.tolist() == [1.0, 1.0])
  expect_error(fn() = tensor([1, 2]).sqrt_(), "cannot be written into a tensor of dtype i64")
  expect_error(fn() = tensor([1, 2]).div_(2), "cannot be written into a tensor of dtype i64")
}

test "a copy between overlapping parts of one tensor reads the values the source had" {
  # PyTorch refuses these copies ("some elements of the input tensor and the written-to
  # tensor refer to a single memory location"); nabla copies as from src.clone(). Each
  # element was read after it had been written: x[1:].copy_(x[:-1]) made every one x[0].
  let x = arange(6.0)
  x[1:].copy_(x[:-1])
  expect(x.tolist() == [0.0, 0.0, 1.0, 2.0, 3.0, 4.0])
  let y = arange(6.0)
  y[:-1].copy_(y[1:])
  expect(y.tolist() == [1.0, 2.0, 3.0, 4.0, 5.0, 5.0])
  let z = arange(6.0)
  z[1:] = z[:-1]
  expect(z.tolist() == [0.0, 0.0, 1.0, 2.0, 3.0, 4.0])
  # torch 1.13: x.copy_(x.flip(0)) of arange(4.) is tensor([3., 2., 1., 0.])
  let w = arange(4.0)
  w.copy_(w.flip(0))
  expect(w.tolist() == [3.0, 2.0, 1.0, 0.0])
  let t = arange(4.0).reshape([2, 2])
  t.copy_(t.t())
  expect(t.tolist() == [[0.0, 2.0], [1.0, 3.0]])
  let same = arange(3.0)
  same.copy_(same)
  expect(same.tolist() == [0.0, 1.0, 2.0])
}

test "eye of an empty side and arange build without a host copy" {
  # torch 1.13: eye(0, 2**62).shape is [0, 4611686018427387904]
  expect(eye(0, 2 ** 62).shape == (0, 4611686018427387904))
  expect(eye(2, 3).tolist() == [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
  expect(eye(3, 2, dtype=i64).tolist() == [[1, 0], [0, 1], [0, 0]])
  expect(eye(0).shape == (0, 0))
  expect(arange(4).tolist() == [0, 1, 2, 3] and arange(0).shape == (0,))
  expect(ones([1, 2]).expand([3, -1]).shape == (3, 2))
}

test "uniform_ within the dtype's range still draws" {
  let u = zeros([1000]).uniform_(-1e38, 1e38)
  expect(u.isfinite().all().item() and u.abs().max().item() <= 1e38)
  let d = zeros([10], dtype=f64).uniform_(-1e300, 1e300)
  expect(d.isfinite().all().item())
}

test "a compiled function returns a tensor it was given inside a list or read from a closure" {
  # the graph's output was a tensor from before the capture, bound after the params were
  # listed: the call failed with "no value for graph input %free0"
  let g = compile(fn(l) = l[0], [ones([3])])
  expect(g([zeros([3])]).tolist() == [0.0, 0.0, 0.0])
  expect(g([ones([3]) * 2]).tolist() == [2.0, 2.0, 2.0])
  let h = compile(fn(x) = x * 2, [ones([2])])
  let r = h([ones([2])])
  expect(len(r) == 2 and r[1].tolist() == [1.0, 1.0])
  let w = ones([2])
  let k = compile(fn(x) = (x + 1, w), ones([2]))
  let (a, b) = k(zeros([2]))
  expect(a.tolist() == [1.0, 1.0] and b.tolist() == [1.0, 1.0])
}

test "named tuples with fields that are names still read by name" {
  let t = named_tuple(["sign", "logabsdet", "x2"], [1, 2, 3])
  expect(t.sign == 1 and t.logabsdet == 2 and t.x2 == 3 and t[1] == 2)
  expect(named_tuple([], []) == ())
  expect_error(fn() = named_tuple(["_a"], [1]), "is not a name")
  expect_error(fn() = named_tuple(["1x"], [1]), "is not a name")
}

test "a checkpoint of UTF-8 text loads back as it was" {
  let path = "/tmp/nabla_test_hostile9_utf8.safetensors"
  save({"name": "héllo \u{1F600}", "nul": "a\u{0}b", "é": ones([2])}, path, metadata={"note": "ü"})
  let d = load(path)
  expect(d["name"] == "héllo \u{1F600}" and d["nul"] == "a\u{0}b" and d["é"].tolist() == [1.0, 1.0])
  expect(load_metadata(path)["note"] == "ü")
  expect_error(fn() = save({"k": "\xc0\x80"}, path), "is not UTF-8 text (byte 0xC0 at offset 0)")
  expect_error(fn() = save({"k": "\xed\xa0\x80"}, path), "is not UTF-8 text")
}

test "module names without dots still register" {
  let m = nn.Sequential()
  m.add_module("fc", nn.Linear(2, 2))
  m.register_buffer("mask", ones([2]))
  expect("fc.weight" in m.state_dict() and "mask" in m.state_dict())
}

test "f-strings and format specs that nabla has still format" {
  let w = 5
  expect(f"{1 != 2}" == "true")
  expect(f"{3:=^9}" == "====3====")
  expect(f"{ {1: 2}[1] }" == "2")
  expect(f"{w:>4}" == "   5")
  expect("{:>4}".format(w) == "   5")
}

test "linalg's checks take every ordinary argument" {
  expect(linalg.matrix_norm(eye(3), dim=[-1, -2]).item() == linalg.matrix_norm(eye(3)).item())
  expect(linalg.matrix_norm(eye(3), dim=(0, 1)).item() == linalg.matrix_norm(eye(3)).item())
  expect(linalg.pinv(eye(2), rtol=0.5).tolist() == [[1.0, 0.0], [0.0, 1.0]])
  expect(linalg.matrix_rank(eye(3), rtol=tensor(0.1)).item() == 3)
  expect(linalg.multi_dot((ones([2, 3]), ones([3]))).tolist() == [3.0, 3.0])
  expect(linalg.svd(eye(2), full_matrices=false).S.tolist() == [1.0, 1.0])
  expect(linalg.solve(eye(2) * 2.0, ones([2])).tolist() == [0.5, 0.5])
}

test "int() and float() read a str as Python 3 does" {
  # Python 3: int("1_000") is 1000, int(" -0042 ") is -42, float("1_0e1_0") is 100000000000.0
  expect(int("1_000") == 1000 and int(" -0042 ") == -42 and int("+5") == 5)
  expect(float("1_000.5") == 1000.5 and float("1_0e1_0") == 100000000000.0 and float("-1.5E-3") == -0.0015)
  expect(float("Infinity") == inf and float("-INF") == -inf and float(" nan ") != float(" nan "))
  expect(float(".5") == 0.5 and float("1.") == 1.0 and float("1e3") == 1000.0)
  for bad in ["0x10", "1__0", "_1", "1_", "", " ", "nan(1)", "1e", ".", "++1", "1.2.3", "0x1p3", "1 2"] {
    expect_error(fn() = float(bad), "could not convert string to float")
  }
  for bad in ["1e3", "1.0", "0x10", "1__0", "inf"] {
    expect_error(fn() = int(bad), "invalid literal for int()")
  }
}

test "repr of a str escapes control characters as Python's" {
  # Python 3: repr("a\nb\x00c\x01\t\x7f") is 'a\\nb\\x00c\\x01\\t\\x7f'
  expect(repr("a\nb\u{0}c\x01\t\x7f") == "'a\\nb\\x00c\\x01\\t\\x7f'")
  expect(str(["\u{0}"]) == "['\\x00']")
  expect(repr("é") == "'é'")
}
