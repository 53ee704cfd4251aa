# The caching allocator on a GPU (tensor/cuda/caching_allocator.hpp): its figures
# follow the tensors, a freed block serves the next request of its size, and asking
# for more than the GPU has is an error that names the request, what is free and the
# largest live tensors with the lines that made them, after which nabla goes on.
# Without a GPU each test checks instead that asking for one is a clear error.
import cuda

let no_gpu = "this machine has no GPU" if cuda.is_built() else "this nabla was built without CUDA"
let mib4 = 4 * 1024 * 1024

# The bytes allocated while a 4 MiB tensor lives (it is freed when the call returns).
fn allocated_with_4_mib() {
  let t = zeros([1024, 1024], device="cuda")
  return cuda.memory_allocated()
}

test "GPU memory figures follow the tensors; a freed block is reused, empty_cache gives it back" {
  if not cuda.is_available() {
    expect_error("cuda.memory_allocated()", f"cuda:0: {no_gpu}")
    return none
  }
  cuda.empty_cache()
  let base = cuda.memory_allocated()
  expect(allocated_with_4_mib() == base + mib4, "a live 4 MiB tensor adds 4 MiB")
  expect(cuda.memory_allocated() == base, "freeing it takes the 4 MiB off again")
  let reserved = cuda.memory_reserved()
  expect(reserved >= base + mib4, f"the freed block stays reserved: {reserved} bytes")
  expect(allocated_with_4_mib() == base + mib4)
  expect(cuda.memory_reserved() == reserved, "the second 4 MiB tensor reuses the first one's block")
  expect(cuda.max_memory_allocated() >= base + mib4)
  cuda.empty_cache()
  expect(cuda.memory_reserved() < reserved, "empty_cache gives the free segment back")
}

test "out of GPU memory: the error names the request and the largest live tensors; nabla goes on" {
  if not cuda.is_available() {
    expect_error("zeros([1024, 1024], device=\"cuda\")", f"cuda:0: {no_gpu}")
    return none
  }
  let keep = zeros([256, 1024, 1024], device="cuda")  # 1 GiB, the largest live tensor
  let too_big = "zeros([1024, 1024, 1024, 1024], device=\"cuda\")"  # 4 TiB
  expect_error(too_big, "CUDA out of memory: tried to allocate 4.00 TiB on cuda:0 (")
  expect_error(too_big, "Largest live tensors: 1.00 GiB at ")
  expect_error(too_big, "1.00 GiB at tests/cuda/test_memory.dsl:40:14 zeros([256, 1024, 1024], device=\"cuda\")")
  let after = ones([1000], device="cuda")
  expect(after.sum().item() == 1000, "allocating after the error works")
  expect(keep.sum().item() == 0, "the live tensor is intact")
}
