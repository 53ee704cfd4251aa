# The NCCL backend of dist (tensor/dist/nccl_communicator.cpp) on one rank and one
# GPU: every collective on CUDA tensors of each dtype NCCL reduces, against the values
# it must give, and the errors for a tensor on the wrong device for each backend.
# Without a GPU the test says so and checks that asking for NCCL is a clear error.
# Two ranks need two GPUs (NCCL refuses two ranks on one).
#   nabla test tests/dist/test_nccl.dsl          (ctest dist_nccl, label cuda)
import dist
import cuda

# One rank alone: nobody reads the store, so a fixed folder is safe to share.
let store = "file:///tmp/nabla-test-dist-nccl"
# A test that failed half-way leaves its group behind: each starts from none.
fn leave_group() {
  if dist.is_initialized() { dist.destroy() }
}
fn init_nccl() {
  leave_group()
  dist.init(backend="nccl", init_method=store, rank=0, world_size=1, timeout=20)
}
fn init_gloo() {
  leave_group()
  dist.init(backend="gloo", init_method=store, rank=0, world_size=1, timeout=20)
}

let dtypes = [f32, f64, f16, bf16, i32, i64]
# [[1, 2, 3], [4, 5, 6]]: small integers, exact in every dtype
let expected = [[1, 2, 3], [4, 5, 6]]
fn sample(dt) = (arange(6) + 1).reshape([2, 3]).to(dt).to("cuda")
fn host(t) = t.cpu().to(f64)

test "backend nccl without a GPU is a clear error" {
  if cuda.is_available() { return none }
  let why = "no GPU here" if cuda.is_built() else "nabla built without CUDA"
  print(f"{why}: skipping the NCCL collectives, checking that asking for backend nccl is a clear error")
  expect_error("init_nccl()", "dist.init: backend \"nccl\"")
  expect(not dist.is_initialized())
}

test "nccl all_reduce: sum, avg, max and min of one rank give its tensor, for each dtype" {
  if not cuda.is_available() { return none }
  init_nccl()
  expect(dist.backend() == "nccl")
  for dt in dtypes {
    for op in ["sum", "avg", "max", "min"] {
      let t = sample(dt)
      let same = dist.all_reduce(t, op=op)
      expect(t.device == "cuda:0" and t.dtype == dt, f"{op} keeps the device and dtype")
      expect_close(host(t), expected, rtol=0, atol=0, msg=f"all_reduce {op} of {dt}")
      expect_close(host(same), expected, rtol=0, atol=0, msg=f"all_reduce {op} returns its tensor")
    }
  }
  dist.destroy()
}

test "nccl broadcast, all_gather, reduce_scatter, barrier on one rank" {
  if not cuda.is_available() { return none }
  init_nccl()
  for dt in dtypes {
    let t = sample(dt)
    dist.broadcast(t, src=0)
    expect_close(host(t), expected, rtol=0, atol=0, msg=f"broadcast of {dt}")
    let gathered = dist.all_gather(sample(dt))
    expect(list(gathered.shape) == [2, 3] and gathered.device == "cuda:0", f"all_gather shape of {dt}")
    expect_close(host(gathered), expected, rtol=0, atol=0, msg=f"all_gather of {dt}")
    let scattered = dist.reduce_scatter(sample(dt), op="sum")
    expect(list(scattered.shape) == [2, 3] and scattered.dtype == dt, f"reduce_scatter shape of {dt}")
    expect_close(host(scattered), expected, rtol=0, atol=0, msg=f"reduce_scatter of {dt}")
  }
  # a broadcast moves bytes, so bool tensors go too
  let flags = (sample(f32) > 3.0)
  dist.broadcast(flags)
  expect_close(host(flags), [[0, 0, 0], [1, 1, 1]], rtol=0, atol=0)
  dist.barrier()
  dist.barrier()
  dist.destroy()
}

test "nccl: results are in order with the work queued before and after" {
  if not cuda.is_available() { return none }
  init_nccl()
  let t = randn([1000, 1000], device="cuda")
  let before = (t * 2.0).sum().item()
  let u = t * 2.0                 # queued on the current stream before the collective
  dist.all_reduce(u)
  let v = u + 1.0                 # queued after it
  expect_close(v.sum().item(), before + 1000000.0, rtol=1e-4)
  dist.destroy()
}

test "nccl: errors name the backend, the device and the rank" {
  if not cuda.is_available() { return none }
  init_nccl()
  expect_error("dist.all_reduce(ones([3]))", "dist.all_reduce: backend \"nccl\" takes CUDA tensors, got one on cpu")
  expect_error("dist.all_gather(ones([3]))", "backend \"nccl\" takes CUDA tensors, got one on cpu")
  # bool reduces as or (max) and and (min), as on Gloo; a sum is refused.
  expect_error("dist.all_reduce(ones([3], dtype=bool, device=\"cuda\"))",
               "dist.all_reduce: a bool tensor reduces with op=\"max\" (or) or op=\"min\" (and)")
  let flags = ones([3], dtype=bool, device="cuda")
  dist.all_reduce(flags, op="max")
  expect(flags.to(i32).sum().item() == 3, "bool max-reduce over one rank keeps every flag")
  expect_error("dist.send(ones([3], device=\"cuda\"), 0)", "dist.send: dst is this rank (0)")
  expect_error("dist.broadcast(ones([3], device=\"cuda\"), src=1)", "src=1 is not a rank of this group (0 to 0)")
  expect_error("dist.reduce_scatter(ones([], device=\"cuda\"))", "the first dimension of [] must be a multiple")
  dist.destroy()
  init_gloo()
  expect_error("dist.all_reduce(ones([3], device=\"cuda\"))",
               "dist.all_reduce: backend \"gloo\" takes CPU tensors, got one on cuda:0")
  dist.destroy()
}
