# The composite functions' errors name the function, the argument and what was wrong
# (interp/builtins/composites/composite_math.cpp, composite_nn.cpp); their values are checked
# against PyTorch in test_composites.dsl. Also: each is a tensor method too, and the nn
# layers of the same names call them. Run by ctest dsl_tests.
import nn

let x = randn([3, 4])

test "bad arguments are errors that say what was expected" {
  expect_error(fn() = chunk(x, 0), "chunk(): argument 'chunks' must be at least 1")
  expect_error(fn() = narrow(x, 1, 3, 2), "narrow(): start 3 and length 2 do not fit dim 1 of size 4")
  expect_error(fn() = bmm(x, x), "bmm(): argument 'input' must be 3-D")
  expect_error(fn() = bmm(randn([2, 2, 3]), randn([3, 3, 4])), "must have the same batch size")
  expect_error(fn() = diagonal(x, 0, 1, 1), "dim1 and dim2 must differ")
  expect_error(fn() = trace(randn([2, 2, 2])), "trace(): expected a 2-D tensor")
  expect_error(fn() = quantile(x, 1.5), "q must be in [0, 1]")
  expect_error(fn() = median(zeros([0])), "median(): the input has no elements")
  expect_error(fn() = norm(x, "nuc"), "expected a number or \"fro\"")
  expect_error(fn() = masked_select(x, x), "argument 'mask' must be bool")
  expect_error(fn() = masked_select(x, zeros([5]) > 0), "do not broadcast")
  expect_error(fn() = take_along_dim(x, tensor([[0]]), 5), "out of range")
  expect_error(fn() = glu(randn([3])), "glu(): dim 0 must have an even size")
  expect_error(fn() = prelu(x, ones([3])), "one slope, or one per channel")
  expect_error(fn() = dropout2d(randn([3]), 0.5), "dropout2d(): expected a 3-d or 4-d input")
  expect_error(fn() = dropout2d(x, 1.5), "p must be in [0, 1]")
  expect_error(fn() = pixel_shuffle(randn([1, 3, 2, 2]), 2), "not divisible by 4")
  expect_error(fn() = fold(randn([1, 8, 5]), [4, 4], 2), "fold(): input [1, 8, 5] is not [N, C * 4, 9]")
  expect_error(fn() = unfold(randn([4]), 2), "unfold(): expected [N, C, H, W] or [C, H, W]")
  expect_error(fn() = l1_loss(x, x, reduction="avg"), "expected 'mean', 'sum' or 'none', got 'avg'")
  expect_error(fn() = huber_loss(x, x, delta=0.0), "delta must be positive")
  expect_error(fn() = gaussian_nll_loss(x, x, -ones([3, 4])), "var has negative entries")
  expect_error(fn() = cdist(randn([3]), randn([3])), "must be [..., P, M] and [..., R, M]")
  expect_error(fn() = celu(x, 0.0), "alpha' must not be 0")
  # Once a crash (an integer division by a zero stride) and an out-of-range read.
  expect_error(fn() = fold(randn([1, 8, 9]), [4, 4], [2, 2], stride=0), "argument 'stride' must be at least 1, got 0")
  expect_error(fn() = unfold(randn([1, 2, 4, 4]), 2, dilation=0), "argument 'dilation' must be at least 1, got 0")
  expect(glu(zeros([0])).shape == (0,) and logcumsumexp(zeros([0, 3]), 0).shape == (0, 3))
}

test "composites are tensor methods too, and differentiate twice" {
  expect_close(x.square(), x * x)
  expect_close(x.norm(), sqrt((x * x).sum()))
  expect(len(x.chunk(2, dim=1)) == 2)
  let w = randn([4], dtype=f64, requires_grad=true)
  let g = grad([w.norm(p=3) + w.logsigmoid().sum() + w.asinh().sum()], [w], create_graph=true)[0]
  expect(g.requires_grad)
  expect(gradgradcheck(fn(v) = (v.norm(p=3) + v.logsigmoid().sum() + v.tan().sum()), w))
  expect(gradcheck(fn(a, b) = cosine_similarity(a, b, dim=0) + triplet_margin_loss(a.unsqueeze(0), b.unsqueeze(0), a.unsqueeze(0) * 2),
                   randn([5], dtype=f64, requires_grad=true), randn([5], dtype=f64, requires_grad=true)))
}

test "the loss, distance, fold and dropout layers call their functions" {
  let a = randn([4, 3])
  let b = randn([4, 3])
  let s = tensor([1.0, -1.0, 1.0, -1.0])
  expect_close(nn.L1Loss()(a, b), l1_loss(a, b))
  expect_close(nn.SmoothL1Loss(beta=0.5)(a, b), smooth_l1_loss(a, b, beta=0.5))
  expect_close(nn.HuberLoss(reduction="sum", delta=0.3)(a, b), huber_loss(a, b, reduction="sum", delta=0.3))
  expect_close(nn.CosineEmbeddingLoss(0.2)(a, b, s), cosine_embedding_loss(a, b, s, margin=0.2))
  expect_close(nn.TripletMarginLoss(swap=true)(a, b, a * 2), triplet_margin_loss(a, b, a * 2, swap=true))
  expect_close(nn.GaussianNLLLoss()(a, b, ones([4, 3])), gaussian_nll_loss(a, b, ones([4, 3])))
  expect_close(nn.CosineSimilarity(dim=0)(a, b), cosine_similarity(a, b, dim=0))
  expect_close(nn.PairwiseDistance(p=1.0)(a, b), pairwise_distance(a, b, p=1.0))
  let img = randn([2, 3, 5, 5])
  expect_close(nn.Fold([5, 5], 2)(nn.Unfold(2)(img)), fold(unfold(img, 2), [5, 5], 2))
  let d = nn.Dropout2d(0.5)
  d.eval()
  expect_close(d(img), img)
  manual_seed(3)
  let y = dropout2d(ones([8, 16, 2, 2]), 0.5)
  let per_channel = y.sum(dim=[2, 3])
  expect((per_channel == 0).sum().item() + (per_channel == 8).sum().item() == 128)
}

test "volumes, sampling grids and weighted losses name the argument and the shapes" {
  expect_error(fn() = adaptive_avg_pool3d(randn([1, 1, 2, 2, 2]), 0), "adaptive_avg_pool3d(): argument 'output_size' must be positive, got 0")
  expect_error(fn() = adaptive_max_pool3d(randn([1, 1, 0, 2, 2]), 1), "adaptive_max_pool3d(): argument 'input' of shape [1, 1, 0, 2, 2] has an empty spatial dim")
  expect_error(fn() = conv_transpose3d(randn([1, 2, 0, 2, 2]), randn([2, 1, 2, 2, 2])), "has an empty spatial dim")
  expect_error(fn() = conv_transpose3d(randn([1, 2, 2, 2, 2]), randn([2, 1, 2, 2, 2]), bias=randn([5])), "argument 'bias' must be [1] (one per output channel), got shape [5]")
  expect_error(fn() = grid_sample(randn([1, 1, 0, 3]), randn([1, 2, 2, 2])), "grid_sample(): argument 'input' of shape [1, 1, 0, 3] has an empty spatial dim")
  expect(grid_sample(randn([0, 1, 3, 3]), randn([0, 2, 2, 2])).shape == (0, 1, 2, 2))
  expect_error(fn() = grid_sample(randn([1, 1, 3, 3]), randn([1, 2, 2, 2]), mode="area"), "argument 'mode' must be \"bilinear\", \"nearest\" or \"bicubic\"")
  expect_error(fn() = affine_grid(randn([1, 2, 3]), [2, 1, 3, 3]), "affine_grid(): argument 'theta' must be a floating [N, 2, 3] for size N = 2")
  expect_error(fn() = cross_entropy(randn([3, 2]), tensor([0, 5, 1]), weight=ones([2])), "cross_entropy(): target 5 is out of range for 2 classes")
  expect_error(fn() = nll_loss(randn([3, 2]), tensor([0, 1, 1]), weight=ones([3])), "nll_loss(): argument 'weight' must be a floating 1-D tensor of 2 class weights")
  expect_error(fn() = cross_entropy(randn([3, 2]), tensor([true, false, true]), weight=ones([2])), "must hold class indices (an integer tensor), got bool")
  expect(cross_entropy(randn([4, 3]), tensor([0, 1, 2, 1]), weight=ones([3]), ignore_index=1).shape == ())
}

test "ctc_loss: nn.CTCLoss is the function; bad lengths, targets and blanks name themselves" {
  import nn
  let lp = log_softmax(randn([6, 2, 4]), 2)
  let t = tensor([[1, 2], [3, 3]])
  expect_close(nn.CTCLoss(blank=0, reduction="sum")(lp, t, [6, 5], [2, 2]), ctc_loss(lp, t, [6, 5], [2, 2], reduction="sum"))
  expect_error(fn() = ctc_loss(lp, t, [7, 5], [2, 2]), "ctc_loss(): input_lengths[0] is 7, outside 0 to 6")
  expect_error(fn() = ctc_loss(lp, t, [6, 5], [3, 2]), "ctc_loss(): target_lengths[0] (3) does not fit the targets [2, 2]")
  expect_error(fn() = ctc_loss(lp, tensor([[1, 0], [3, 3]]), [6, 5], [2, 2]), "target 0 of sequence 0 must be a class 0 to 3 other than the blank 0")
  expect_error(fn() = ctc_loss(lp, t, [6], [2, 2]), "argument 'input_lengths' must hold one integer per sequence (2)")
  expect_error(fn() = ctc_loss(lp, t, [6, 5], [2, 2], blank=4), "argument 'blank' (4) must be a class, 0 to 3")
  expect(ctc_loss(lp, t, [6, 5], [2, 2], reduction="none").shape == (2,))
  fn f(x, il) = ctc_loss(log_softmax(x, 2), t, il, [2, 2])
  expect_error(fn() = compile(f, randn([6, 2, 4]), tensor([6, 5])), "reads the value of")
}
