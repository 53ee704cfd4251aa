# Memory figures of the CPU caching allocator from the language (docs/debugging.md).
# Sizes round up to a size class (CpuAllocator::size_class): 64-byte steps up to 4 KiB,
# then four classes per power of two, so 4,000,000 bytes take 4,194,304.

test "memory_allocated grows by a new tensor's rounded bytes and drops when it is freed" {
  let before = memory_allocated()
  let t = zeros([1000, 1000])                      # 4,000,000 bytes of f32
  expect(memory_allocated() - before == 4194304, f"grew by {memory_allocated() - before}")
  expect(memory_allocated("cpu") == memory_allocated())
  let small = zeros([250], dtype=f64)              # 2000 bytes: the 2048 class
  expect(memory_allocated() - before == 4194304 + 2048)
  t = none
  small = none
  expect(memory_allocated() == before)
  expect(memory_reserved() >= before + 4194304 + 2048)  # the freed blocks stay cached
}

test "max_memory_allocated keeps the peak until reset_peak_memory_stats" {
  reset_peak_memory_stats()
  let base = memory_allocated()
  expect(max_memory_allocated() == base)
  let t = ones([1024, 1024])                       # 4 MiB exactly
  t = none
  expect(memory_allocated() == base)
  expect(max_memory_allocated() == base + 4194304)
  reset_peak_memory_stats("cpu")
  expect(max_memory_allocated() == base)
}

test "memory_summary lists a big tensor with the line that made it" {
  let big = randn([2048, 1024])
  let s = memory_summary()
  expect(s.startswith("cpu\n"), s)
  expect("  largest live tensors:\n    8.00 MiB  tests/memory/test_memory.dsl:31:13  randn([2048, 1024])\n" in s, s)
  expect("test_memory.dsl:31:13" not in memory_summary(top=0))  # top=0: the figures and a sum only
}

test "memory functions read a device argument" {
  expect_error("memory_allocated('tpu')", "memory_allocated(): device: unknown device 'tpu'")
  expect_error("memory_summary(device='gpu')", "unknown device 'gpu'")
}
