# The i16 dtype (PyTorch's int16, torch.short) against PyTorch 1.13: each check loads
# tests/stdlib/reference/int16.safetensors (written by
# tests/stdlib/reference/make_int16.py, where each case's torch call is, under the same
# name) and compares dtype, shape and values exactly.

let ref = load("tests/stdlib/reference/int16.safetensors")
let a = ref["a"]
let b = ref["b"]

fn same(x, y) = x.dtype == y.dtype and x.shape == y.shape and equal(x, y)
fn check(name, got) = expect(same(got, ref[name]), name + ": got " + str(got) + ", PyTorch's is " + str(ref[name]))

test "i16's names, size, limits and methods" {
  expect(a.dtype == i16 and a.dtype == int16 and a.dtype == short, "i16, int16 and short name one dtype")
  expect(a.element_size() == 2)
  let info = iinfo(i16)
  expect(info.min == -32768 and info.max == 32767 and info.bits == 16)
  expect(tensor([1.7, -2.7]).short().dtype == i16 and arange(3).to(i16).dtype == i16)
  expect(zeros([2], dtype="i16").dtype == i16 and zeros([2], dtype=int16).dtype == i16)
  expect(a.tolist() == [30000, -30000, 7, -7, 32767, -32768], "tolist gives the ints")
  expect(a[4].item() == 32767 and a.type() == "torch.ShortTensor")
  expect(str(tensor([1, -2], dtype=i16)).count("i16") == 1, "print names the dtype")
}

test "arithmetic wraps at 16 bits as PyTorch's" {
  check("add", a + a)
  check("sub", a - b)
  check("mul", a * a)
  check("neg", -a)
  check("abs", a.abs())
  check("add_scalar", a + 1)
  check("add_float_scalar", a + 1.5)
  check("true_divide", a / b)
  check("clamp", a.clamp(-100, 100))
  check("maximum", maximum(a, b))
  check("where", where(a > 0, a, b))
  check("eq", a == b)
  check("lt", a < b)
}

test "integer division and remainder round as PyTorch's" {
  check("floor_divide", div(a, b, rounding_mode="floor"))
  check("floor_divide", a // b)
  check("trunc_divide", div(a, b, rounding_mode="trunc"))
  check("remainder", remainder(a, b))
  check("remainder", a % b)
  check("fmod", fmod(a, b))
}

test "bitwise ops and shifts" {
  check("bitwise_and", a & b)
  check("bitwise_or", a | b)
  check("bitwise_xor", a ^ b)
  check("bitwise_not", ~a)
  check("shift_left", bitwise_left_shift(a, 2))
  check("shift_right", bitwise_right_shift(a, 2))
}

test "reductions: sum, prod and cumsum give i64; max, min and amax keep i16" {
  check("sum", a.sum())
  check("sum_dim", a.view(2, 3).sum(1))
  check("prod", b.prod())
  check("cumsum", a.cumsum(0))
  check("max", a.max())
  check("min", a.min())
  check("argmax", a.argmax())
  check("amax_dim", a.view(2, 3).amax(1))
  # amax, amin and aminmax of any integer keep its dtype (they came back as f32)
  expect(tensor([[1, 5]], dtype=i32).amax(1).dtype == i32 and aminmax(a).max.dtype == i16)
  expect(aminmax(a).min.item() == -32768 and tensor([[1, 5]], dtype=u8).amin(1).dtype == u8)
}

test "ordering: sort, topk, unique and bincount" {
  let s = a.sort()
  check("sort.values", s.values)
  check("sort.indices", s.indices)
  let t = a.topk(3)
  check("topk.values", t.values)
  check("topk.indices", t.indices)
  check("unique", unique(tensor([5, -3, 5, 2, -3], dtype=i16)))
  check("bincount", bincount(tensor([0, 3, 3, 1], dtype=i16)))
}

test "casts: floats truncate toward zero, wider ints keep the low 16 bits" {
  check("from_f32", tensor([1.7, -2.7, 32767.9, -32768.5, 0.4]).short())
  check("to_f16", a.to(f16))
  check("to_i8", a.to(i8))
  check("to_u8", a.to(u8))
  check("from_i32", tensor([70000, -70000, 65535], dtype=i32).short())
  check("cat", cat([a, tensor([1, 2], dtype=i8).short()]))
  # a plain-loop comparison: each float's truncation, as the cast gives it
  let xs = [-3.9, -0.5, 0.0, 2.5, 1234.99, -32767.2]
  let got = tensor(xs).to(i16).tolist()
  for k in range(len(xs)) {
    expect(got[k] == int(xs[k]), "cast of " + str(xs[k]))
  }
}

test "the promotion table is PyTorch's" {
  for (name, d) in [("f32", f32), ("f64", f64), ("f16", f16), ("i64", i64), ("i32", i32), ("bool", bool),
                    ("i8", i8), ("u8", u8), ("i16", i16)] {
    let want = ref["promote.i16." + name].dtype
    expect(promote_types(i16, d) == want and promote_types(d, i16) == want, "i16 with " + name)
    expect((zeros([1], dtype=i16) + zeros([1], dtype=d)).dtype == want, "i16 + " + name)
  }
  expect(promote_types(u8, i8) == ref["promote.u8.i8"].dtype, "u8 with i8 meets at i16")
  expect((ones([2], dtype=u8) + ones([2], dtype=i8)).dtype == i16)
}

test "save and load, and a state_dict round trip keep i16" {
  let path = "/tmp/nabla_test_int16.safetensors"
  save({"pcm": a, "other": b.view(2, 3)}, path)
  let back = load(path)
  expect(same(back["pcm"], a) and same(back["other"], b.view(2, 3)))
  model Buf() {
    buffer pcm = zeros([6], dtype=i16)
    forward(x) { return x }
  }
  let m = Buf()
  m.pcm.copy_(a)
  let sd = m.state_dict()
  expect(same(sd["pcm"], a))
  let m2 = Buf()
  m2.load_state_dict(sd)
  expect(same(m2.pcm, a))
}

test "a compiled graph carries i16 in its IR and computes as eager" {
  model Gain() {
    forward(x) { return (x * 3 + 1).sum() }
  }
  let m = Gain()
  let x = tensor([1000, -2000, 30000], dtype=i16)
  let gm = compile(m, x)
  expect(gm.ir().count("i16[3]") >= 1, gm.ir())
  expect(same(gm(x), m(x)) and m(x).item() == 3001 - 5999 + (90001 - 65536), "30000 * 3 + 1 wraps")
}

test "gradients refuse i16 as they refuse the other integers" {
  expect_error(fn() = tensor([1, 2], dtype=i16, requires_grad=true), "only floating tensors can require gradients, got i16")
}
