# Resource limits from the language (issue 10; ctest dsl_tests). An allocation
# larger than memory is an error naming the expression or op, the bytes and what is
# available, and the program goes on; deep recursion stops at the depth limit; a
# checkpoint that cannot be read or written is an error naming it (damaged files:
# checkpoints_test.cpp and crash_safety.sh, which can write bytes).

test "an allocation larger than memory is an error, and the program goes on" {
  let kept = tensor([1.0, 2.0])
  expect_error("zeros([1000000, 1000000])",
               "out of memory: tried to allocate 3.64 TiB (4000000000000 bytes) on the CPU for 'zeros([1000000, 1000000])' (")
  expect_error("ones([2000000, 1]) * ones([1, 2000000])",
               "mul: out of memory: tried to allocate 14.55 TiB (16000000000000 bytes) on the CPU")
  expect_error("zeros([1000000, 1000000])", " available of ")
  expect(kept.sum().item() == 3.0)
  expect(zeros([1000]).shape == (1000,))
}

test "recursion without end stops at the depth limit" {
  expect_error("fn down(n) = down(n + 1)\ndown(0)", "maximum recursion depth exceeded")
}

test "a checkpoint that cannot be read or written is an error naming it" {
  let path = "/tmp/nabla_hardening_limits.safetensors"
  save({"w": ones([4, 4]), "step": 3}, path)
  expect(load(path)["step"] == 3)
  expect_error("load('/tmp/nabla_hardening_limits.safetensors.missing')",
               "cannot load '/tmp/nabla_hardening_limits.safetensors.missing': No such file or directory")
  expect_error("save({'a': 1}, '/no/such/folder/x.safetensors')",
               "save: cannot write '/no/such/folder/x.safetensors': No such file or directory")
}
