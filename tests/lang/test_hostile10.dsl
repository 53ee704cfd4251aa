# What the hardening of round 10 (tests/lang/errors_hostile10.dsl) keeps working, each
# value checked against PyTorch 1.13's: the observers pass over an empty tensor (as
# PyTorch's do), calibration batches given as (input, target) pairs, functional.one_hot
# through the checked builtin, distill's losses at the ends of alpha's range, gradcheck
# with a negative eps (a central difference is symmetric) and zero tolerances, and
# histograms and image grids of ordinary sizes.
import nn
import quant
import distill
import functional
import plot
import prune
import data

test "an observer passes over an empty tensor and returns it, as PyTorch's observers do" {
  # torch 1.13: MinMaxObserver(); obs(zeros(0)); obs(tensor([-1., .5, 2.])); obs(zeros(0));
  # calculate_qparams() is (tensor([0.0117647061]), tensor([85]))
  let obs = quant.MinMaxObserver()
  let empty = zeros([0])
  expect(obs(empty).shape == empty.shape)
  expect(obs.min_val.numel() == 0, "an empty tensor leaves the observer unstarted")
  obs(tensor([-1.0, 0.5, 2.0]))
  obs(zeros([0]))
  let (scale, zp) = obs.calculate_qparams()
  expect_close(scale, tensor(0.0117647061), atol=1e-9)
  expect(zp.item() == 85)
}

test "the per-channel and histogram observers pass over an empty tensor too" {
  # torch 1.13: PerChannelMinMaxObserver(ch_axis=0, dtype=qint8, qscheme=per_channel_symmetric)
  # after zeros(0, 3) and [[-1., .5], [2., 3.]]: (tensor([0.0078431377, 0.0235294122]), tensor([0, 0]))
  let obs = quant.PerChannelMinMaxObserver(ch_axis=0)
  obs(zeros([0, 3]))
  obs(zeros([3, 0]))
  obs(tensor([[-1.0, 0.5], [2.0, 3.0]]))
  let (scales, zps) = obs.calculate_qparams()
  expect_close(scales, tensor([0.0078431377, 0.0235294122]), atol=1e-9)
  expect(zps.tolist() == [0, 0])
  # torch 1.13: HistogramObserver() after zeros(0) and [-1., .5, 2., 1.]:
  # (tensor([0.0117589617]), tensor([85]))
  let hist = quant.HistogramObserver()
  hist(zeros([0]))
  hist(tensor([-1.0, 0.5, 2.0, 1.0]))
  let (hs, hz) = hist.calculate_qparams()
  expect_close(hs.reshape([]), tensor(0.0117589617), atol=1e-8)
  expect(hz.reshape([]).item() == 85)
}

test "an observer still takes finite values of any dtype" {
  let obs = quant.MinMaxObserver()
  obs(tensor([1, 2, 3]))
  # torch 1.13: MinMaxObserver()(tensor([1, 2, 3])) then calculate_qparams(): scale 3/255, zero point 0
  let (scale, zp) = obs.calculate_qparams()
  expect_close(scale, tensor(3.0 / 255.0), atol=1e-9)
  expect(zp.item() == 0)
}

test "calibrate takes tensors and (input, target) pairs, and names a bad batch" {
  let prepared = quant.prepare(nn.Sequential(nn.Linear(3, 2)))
  quant.calibrate(prepared, [ones([4, 3]), (ones([2, 3]) * 2, tensor([0, 1])), [ones([1, 3]), 0]])
  let q = quant.convert(prepared)
  expect(q(ones([1, 3])).shape == (1, 2))
  expect_error(fn() = quant.calibrate(quant.prepare(nn.Sequential(nn.Linear(3, 2))), [[]]),
               "batch 0 must be a tensor or an (input, target) pair, got list")
  expect_error(fn() = quant.calibrate(quant.prepare(nn.Sequential(nn.Linear(3, 2))), {"x": ones([1, 3])}),
               "batches must be a list of batches, got dict")
}

test "quant.model_size_bytes counts a model's stored bytes" {
  # Linear(4, 2): 8 weights and 2 biases, f32
  expect(quant.model_size_bytes(nn.Linear(4, 2)) == 40)
}

test "functional.one_hot gives F.one_hot(labels, classes).float()" {
  # torch 1.13: F.one_hot(tensor([2, 0, 1]), 3).float()
  let h = functional.one_hot(tensor([2, 0, 1]), 3)
  expect(h.dtype == f32)
  expect(h.tolist() == [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
  expect_error(fn() = functional.one_hot(tensor([0, -1]), 3), "one_hot")
}

test "distill's loss at alpha's ends and an int temperature, as PyTorch computes it" {
  let s = tensor([[1.0, 2.0, 0.5], [0.1, -1.0, 2.0]])
  let t = tensor([[0.5, 1.5, -0.5], [1.0, 0.0, 1.0]])
  let y = tensor([2, 0])
  # torch 1.13: a*T*T*F.kl_div(F.log_softmax(s/T, -1), F.log_softmax(t/T, -1), reduction="batchmean",
  # log_target=True) + (1-a)*F.cross_entropy(s, y)
  expect_close(distill.kd_loss(s, t, y, temperature=1, alpha=1.0), tensor(0.22233395278453827), atol=1e-6)
  expect_close(distill.kd_loss(s, t, y, temperature=2.0, alpha=0.0), tensor(2.0230765342712402), atol=1e-6)
  expect_close(distill.kd_loss(s, t, y, temperature=4.0, alpha=0.9), tensor(0.4165650010108948), atol=1e-6)
  expect_close(distill.soft_targets(tensor([[0.0, 0.0]]), temperature=1).sum(), tensor(1.0))
}

test "gradcheck takes a negative eps and zero tolerances (PyTorch's central difference)" {
  let x = tensor([1.0, 2.0], dtype=f64, requires_grad=true)
  expect(gradcheck(fn(x) = (x * x).sum(), [x], eps=-1e-6))
  expect(gradcheck(fn(x) = (x * 3.0).sum(), [x], atol=0, rtol=0.001))
  expect(gradgradcheck(fn(x) = (x * x * x).sum(), [x], atol=1e-5, rtol=0))
}

test "histograms and image grids of ordinary sizes are drawn" {
  let fig = plot.hist([1.0, 2.0, 2.5], bins=1)
  expect(str(fig).find("1 histogram") >= 0 or str(fig).find("hist") >= 0)
  let grid = plot.image_grid(zeros([2, 1, 4, 4]), padding=0)
  expect(str(grid).find("image grid 8x4") >= 0)
  let padded = plot.image_grid(zeros([3, 1, 4, 4]), nrow=3, padding=5)
  # torchvision's make_grid: 3 * (4 + 5) + 5 = 32 wide, 4 + 2 * 5 = 14 high
  expect(str(padded).find("image grid 32x14") >= 0)
}

test "nn.checkpoint's recomputation draws the first run's random values (PyTorch's preserve_rng_state)" {
  # torch 1.13: with torch.utils.checkpoint.checkpoint(f, x), f = lambda a: (a * torch.randn(4)).sum(),
  # x.grad after backward is the randn the forward drew; it was a second, different draw
  manual_seed(0)
  let x = ones([4], requires_grad=true)
  let y = nn.checkpoint(fn(a) = (a * randn([4])).sum(), x)
  let after = get_rng_state()
  manual_seed(0)
  let drawn = randn([4])
  set_rng_state(after)
  y.backward()
  expect(x.grad.equal(drawn))
  expect(get_rng_state() == after, "backward leaves the generator where it was")
  # dropout inside: the recomputed mask is the forward's
  manual_seed(1)
  let x2 = ones([6], requires_grad=true)
  let z = nn.checkpoint(fn(a) = dropout(a, 0.5, training=true).sum(), x2)
  z.backward()
  manual_seed(1)
  expect(x2.grad.equal(dropout(ones([6]), 0.5, training=true)))
}

test "QuantizedTensor takes what quantize_per_tensor and quantize_per_channel take" {
  # torch 1.13: torch.quantize_per_tensor(ones(2), 0.1, 3, quint8).dequantize() is tensor([1., 1.])
  expect(quant.quantize(ones([2]), tensor(0.1), 3).dequantize().tolist() == [1.0, 1.0])
  expect(quant.quantize(ones([2]), 0.1, tensor(3)).dequantize().tolist() == [1.0, 1.0])
  # scale * (int_repr - zero_point) per index of axis 1: [[0.1 * 1, 0.2 * 2]]
  let q = quant.QuantizedTensor(tensor([[1, 2]], dtype=u8), tensor([0.1, 0.2]), tensor([0, 0]), axis=1)
  expect_close(q.dequantize(), tensor([[0.1, 0.4]]))
  expect(q.qscheme() == "per_channel_affine")
}

test "prune ranks NaN scores above every number, as PyTorch's topk does" {
  # torch 1.13: prune.l1_unstructured(l, "weight", amount=2) of [[0.5, nan, -0.1, 2.0]] masks [[0, 1, 0, 1]]
  let l = nn.Linear(4, 1)
  no_grad { l.weight.copy_(tensor([[0.5, float("nan"), -0.1, 2.0]])) }
  prune.l1_unstructured(l, amount=2)
  expect(l.weight_mask.tolist() == [[0.0, 1.0, 0.0, 1.0]])
  # a NaN among the pruned: the quickselect emptied itself ("index 0 is out of range")
  let l2 = nn.Linear(4, 1)
  no_grad { l2.weight.copy_(tensor([[0.5, float("nan"), -0.1, float("nan")]])) }
  prune.l1_unstructured(l2, amount=3)
  expect(l2.weight_mask.sum().item() == 1.0)
  let l3 = nn.Linear(4, 3)
  prune.l1_unstructured(l3, amount=0.5, importance_scores=full([3, 4], float("nan")))
  expect(l3.weight_mask.sum().item() == 6.0)
}

test "data.fashion_mnist_available takes a folder, and says false for one without the files" {
  expect(data.fashion_mnist_available(dir="/nonexistent/fashion") == false)
  expect_error(fn() = data.fashion_mnist_available(dir=5), "dir must be a str (a folder), got int")
  expect_error(fn() = data.fashion_mnist("test", flatten=1), "flatten must be a bool, got int")
}

test "a full backward hook's returned grad_input replaces the input's gradient, as PyTorch's" {
  let m = nn.Linear(3, 2)
  let x = randn([4, 3], requires_grad=true)
  let h = m.register_full_backward_hook(fn(mod, gi, go) = (gi[0] * 5.0,))
  m(x).sum().backward()
  # torch 1.13: the same hook makes x.grad 5 * (ones([4, 2]) @ weight)
  expect_close(x.grad, (ones([4, 2]) @ m.weight * 5.0).detach(), rtol=1e-6, atol=1e-6)
  h.remove()
  x.grad = none
  m(x).sum().backward()
  expect_close(x.grad, (ones([4, 2]) @ m.weight).detach(), rtol=1e-6, atol=1e-6)
}
