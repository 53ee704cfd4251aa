# einsum against torch.einsum: values and gradients from PyTorch for each equation
# (tests/stdlib/reference/make_einsum.py writes them), gradcheck and gradgradcheck in
# f64, and the errors (run by `nabla test tests/stdlib`; ctest dsl_tests).
let ref = load("tests/stdlib/reference/einsum.safetensors")

# name: (equation, number of operands), as in make_einsum.py
let cases = {"matmul": ("ij,jk->ik", 2), "batched": ("bij,bjk->bik", 2), "heads": ("bhld,bhmd->bhlm", 2),
             "implicit": ("ij,jk", 2), "outer": ("i,j->ij", 2), "dot": ("i,i->", 2), "trace": ("ii->", 1),
             "diagonal": ("ii->i", 1), "transpose": ("ij->ji", 1), "sum_dim": ("ijk->ik", 1),
             "ellipsis": ("...ij,...jk->...ik", 2), "ellipsis_left": ("i...->...", 1),
             "broadcast_one": ("bij,bjk->bik", 2), "three": ("ij,jk,kl->il", 3), "bilinear": ("bn,anm,bm->ba", 3),
             "spaces": ("b i j , b j k -> b k i", 2), "repeated_in_two": ("iij,jk->ik", 2)}

fn operands(name, n) {
  let xs = []
  for i in range(n) { xs.append(ref[f"{name}.x{i}"].detach().requires_grad_(true)) }
  return xs
}

test "einsum equals torch.einsum: values and gradients" {
  for name in cases.keys() {
    let eq = cases[name][0]
    let xs = operands(name, cases[name][1])
    let y = einsum(eq, xs)
    expect_close(y, ref[name + ".out"], rtol=1e-12, atol=1e-12)
    (y * ref[name + ".w"]).sum().backward()
    for i in range(len(xs)) { expect_close(xs[i].grad, ref[f"{name}.g{i}"], rtol=1e-12, atol=1e-12) }
  }
}

test "einsum: gradcheck and gradgradcheck in f64" {
  for name in ["batched", "trace", "ellipsis", "three", "repeated_in_two"] {
    let eq = cases[name][0]
    let xs = operands(name, cases[name][1])
    let f = fn(*a) = einsum(eq, list(a))
    expect(gradcheck(f, *xs))
    expect(gradgradcheck(f, *xs))
  }
}

test "einsum takes its operands as arguments or as one list" {
  let a = randn([2, 3])
  let b = randn([3, 4])
  expect_close(einsum("ij,jk->ik", a, b), a @ b, rtol=1e-6, atol=1e-6)
  expect_close(einsum("ij,jk->ik", [a, b]), a @ b, rtol=1e-6, atol=1e-6)
}

test "einsum errors name the equation and what is wrong" {
  let a = randn([2, 3])
  expect_error("einsum(\"ij,jk->ik\", randn([2, 3]))", "the equation has 2 operand terms but 1 tensors were given")
  expect_error("einsum(\"ijk->i\", randn([2, 3]))", "operand 0 of shape [2, 3] has 2 dims but its term names 3")
  expect_error("einsum(\"ij,jk->ik\", randn([2, 3]), randn([4, 5]))", "label 'j' has size 3 in one operand (shape [2, 3]) and 4 in another (shape [4, 5])")
  expect_error("einsum(\"ij->iz\", randn([2, 3]))", "output label 'z' is in no operand")
  expect_error("einsum(\"i1->i\", randn([2, 3]))", "labels must be letters, got '1'")
  expect_error("einsum(\"ij->ii\", randn([2, 3]))", "output label 'i' appears twice")
  expect_error("einsum(\"ii->i\", randn([2, 3]))", "label 'i' repeated in one operand has sizes 2 and 3")
}
