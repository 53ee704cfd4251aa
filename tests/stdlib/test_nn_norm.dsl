# GroupNorm, InstanceNorm2d, RMSNorm, Upsample and the padding layers; PyTorch parity
# from tests/stdlib/reference/norm.safetensors (tests/stdlib/reference/make_norm.py).
import nn

let ref = load("tests/stdlib/reference/norm.safetensors")

test "GroupNorm matches PyTorch with its state_dict" {
  let m = nn.GroupNorm(3, 6)
  m.load_state_dict({"weight": ref["weight"], "bias": ref["bias"]})
  expect(list(m.state_dict().keys()) == ["weight", "bias"])
  expect_close(m(ref["input"]), ref["group_norm_output"], rtol=1e-5, atol=1e-5)
}

test "Upsample and ReflectionPad2d match PyTorch" {
  let x = ref["input"]
  expect_close(nn.Upsample(scale_factor=2, mode="bilinear")(x), ref["bilinear_output"], rtol=1e-5, atol=1e-5)
  expect_close(nn.Upsample(size=[7, 9], mode="bicubic", align_corners=true)(x), ref["bicubic_output"],
               rtol=1e-5, atol=1e-5)
  expect_close(nn.ReflectionPad2d(2)(x), ref["reflection_pad_output"], rtol=0.0, atol=0.0)
}

test "the layers give the expected shapes and parameters" {
  manual_seed(0)
  let x = randn([2, 4, 6, 5])
  expect(nn.GroupNorm(2, 4)(x).shape == (2, 4, 6, 5))
  expect(len(nn.GroupNorm(2, 4, affine=false).state_dict()) == 0)
  expect(nn.InstanceNorm2d(4)(x).shape == (2, 4, 6, 5))
  expect(nn.InstanceNorm2d(4)(x[0]).shape == (4, 6, 5))
  expect(list(nn.InstanceNorm2d(4, affine=true).state_dict().keys()) == ["weight", "bias"])
  expect(nn.RMSNorm(5)(x).shape == (2, 4, 6, 5))
  expect(nn.RMSNorm([6, 5]).weight.shape == (6, 5))
  expect(nn.Upsample(scale_factor=2)(x).shape == (2, 4, 12, 10))
  expect(nn.Upsample(size=[3, 4], mode="bilinear", align_corners=true)(x).shape == (2, 4, 3, 4))
  expect(nn.Upsample(scale_factor=3, mode="linear")(randn([2, 3, 4])).shape == (2, 3, 12))
  expect(nn.ZeroPad2d(1)(x).shape == (2, 4, 8, 7))
  expect(nn.ZeroPad2d([1, 2, 0, 3])(x).shape == (2, 4, 9, 8))
  expect(nn.ReplicationPad2d(2)(x).shape == (2, 4, 10, 9))
  expect(nn.ConstantPad2d(1, 3.5)(x)[0, 0, 0, 0].item() == 3.5)
}

test "InstanceNorm2d is GroupNorm with one group per channel" {
  manual_seed(1)
  let x = randn([2, 3, 4, 4]) * 3 + 1
  expect_close(nn.InstanceNorm2d(3)(x), group_norm(x, 3), rtol=1e-6, atol=1e-6)
  let y = nn.InstanceNorm2d(3)(x)
  expect_close(y.mean(dims=[2, 3]), zeros([2, 3]), rtol=0.0, atol=1e-5)
}

test "RMSNorm divides by the root mean square" {
  let x = tensor([[3.0, 4.0], [1.0, -1.0]])
  let want = tensor([[3.0, 4.0], [1.0, -1.0]]) / tensor([[12.5], [1.0]]).sqrt()
  expect_close(nn.RMSNorm(2)(x), want, rtol=1e-6, atol=1e-6)
  expect_close(rms_norm(x, [2], eps=1.0), x / (tensor([[12.5], [1.0]]) + 1.0).sqrt(), rtol=1e-6, atol=1e-6)
}

test "padding modes on a ramp" {
  let x = tensor([[[1.0, 2.0, 3.0]]])
  expect(pad(x, [2, 1]).tolist() == [[[0.0, 0.0, 1.0, 2.0, 3.0, 0.0]]])
  expect(pad(x, [2, 1], mode="reflect").tolist() == [[[3.0, 2.0, 1.0, 2.0, 3.0, 2.0]]])
  expect(pad(x, [2, 1], mode="replicate").tolist() == [[[1.0, 1.0, 1.0, 2.0, 3.0, 3.0]]])
  expect(pad(x, [2, 1], mode="circular").tolist() == [[[2.0, 3.0, 1.0, 2.0, 3.0, 1.0]]])
  expect(pad(x, [-1, 0]).tolist() == [[[2.0, 3.0]]])
}

test "gradients flow through GroupNorm, Upsample and reflect padding" {
  manual_seed(2)
  let x = randn([2, 4, 3, 3], requires_grad=true)
  let net = nn.Sequential([nn.ReflectionPad2d(1), nn.GroupNorm(2, 4), nn.Upsample(scale_factor=2, mode="bilinear")])
  let y = net(x)
  expect(y.shape == (2, 4, 10, 10))
  y.sum().backward()
  expect(x.grad.shape == (2, 4, 3, 3))
  # GroupNorm's output sums to its bias per group whatever x is: the gradient of the sum is 0.
  expect_close(x.grad, zeros([2, 4, 3, 3]), rtol=0.0, atol=1e-4)
}

test "GroupNorm checks its channels when it is built" {
  expect_error("nn.GroupNorm(4, 6)", "GroupNorm: num_channels (6) must be divisible by num_groups (4)")
}

test "interpolate refuses a scale_factor whose size does not fit in 64 bits" {
  expect_error("interpolate(randn([1, 1, 2, 2]), scale_factor=1e300)", "larger than 64 bits can count")
}

test "reset_running_stats() and reset_parameters() as PyTorch's _NormBase" {
  for m in [nn.BatchNorm1d(3), nn.BatchNorm2d(3), nn.BatchNorm3d(3), nn.SyncBatchNorm(3),
            nn.InstanceNorm1d(3, affine=true, track_running_stats=true)] {
    let dims = {"BatchNorm1d": [4, 3], "BatchNorm2d": [4, 3, 2, 2], "BatchNorm3d": [4, 3, 2, 2, 2],
                "SyncBatchNorm": [4, 3, 5], "InstanceNorm1d": [4, 3, 5]}[type(m)]
    m(randn(dims) * 3.0 + 1.0)
    no_grad { m.weight.mul_(2.0) }
    expect(m.running_mean.abs().sum().item() > 0)  # (InstanceNorm keeps num_batches_tracked at 0, as PyTorch)
    m.reset_running_stats()
    expect(equal(m.running_mean, zeros(3)) and equal(m.running_var, ones(3)) and m.num_batches_tracked.item() == 0)
    expect(equal(m.weight, full([3], 2.0)), "reset_running_stats leaves the affine parameters")
    m.reset_parameters()
    expect(equal(m.weight, ones(3)) and equal(m.bias, zeros(3)) and m.weight.requires_grad, type(m))
  }
  nn.BatchNorm1d(3, affine=false, track_running_stats=false).reset_parameters()  # nothing to reset
}
