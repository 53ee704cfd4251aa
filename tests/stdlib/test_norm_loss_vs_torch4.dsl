# Round 4 of the differential tests against PyTorch 1.13 in f64 (after
# test_*_vs_torch2.dsl): norms, losses and embedding on the argument combinations the
# earlier rounds leave out. layer_norm over several trailing dims with and without
# affine, group_norm with one group per channel, BatchNorm with momentum=none (the
# cumulative average), untracked and in eval, functional batch_norm and instance_norm
# moving the running statistics they are given; cross_entropy and nll_loss on K-d
# inputs with class weights, ignore_index and label_smoothing in every reduction,
# probability targets, unbatched inputs; bce's clamped log and pos_weight broadcast;
# smooth_l1 with beta=0, huber at its delta, kl_div with log_target and zero targets;
# margin losses in their other reductions; F.embedding with padding_idx and max_norm.
# Each case loads tests/stdlib/reference/vs_torch4.safetensors (written by
# tests/stdlib/reference/make_vs_torch4.py, norm_loss_cases, which names the torch call
# of each case) and compares outputs and the gradients of sum(y0 * g).
import nn
import "vs_torch2_check.inc" as vt

let ref = load("tests/stdlib/reference/vs_torch4.safetensors")

fn check(name, m, n, run) = vt.check_in(ref, name, m, n, run)
fn on_x(f) = fn(m, xs) = [f(xs[0])]
fn on_layer(m, xs) = [m(xs[0])]
fn on_pair(m, xs) = [m(xs[0], xs[1])]

test "layer_norm over three dims without affine, two dims with; LayerNorm without affine" {
  check("layer_norm_3dims_plain", none, 1, on_x(fn(x) = layer_norm(x, [3, 4, 5], eps=1e-3)))
  check("layer_norm_fn_affine", none, 3, fn(m, xs) = [layer_norm(xs[0], [4, 5], xs[1], xs[2])])
  check("layer_norm_layer_plain", nn.LayerNorm([2, 3], elementwise_affine=false, eps=1e-2), 1, on_layer)
}

test "group_norm: one group per channel, one group in all, without affine" {
  check("group_norm_per_channel", nn.GroupNorm(4, 4), 1, on_layer)
  check("group_norm_fn_1group", none, 3, fn(m, xs) = [group_norm(xs[0], 1, xs[1], xs[2], eps=1e-3)])
  check("group_norm_fn_plain", none, 1, on_x(fn(x) = group_norm(x, 2)))
}

test "BatchNorm: momentum=none is the cumulative average; eval without affine; untracked" {
  let m = nn.BatchNorm1d(3, momentum=none)
  check("batch_norm_cumulative", m, 1, on_layer)
  expect(m.num_batches_tracked.item() == 4)
  let e = nn.BatchNorm2d(3, affine=false)
  e.eval()
  check("batch_norm_eval_plain", e, 1, on_layer)
  check("batch_norm_untracked", nn.BatchNorm1d(4, track_running_stats=false, momentum=0.5), 1, on_layer)
}

# [y, running_mean, running_var] after one call on fresh statistics, as the generator's
fn bn_train(m, xs) {
  let rm = tensor([0.1, 0.2, -0.3], dtype=f64)
  let rv = tensor([1.0, 2.0, 0.5], dtype=f64)
  return [batch_norm(xs[0], rm, rv, xs[1], xs[2], true, 0.3, 1e-3), rm, rv]
}
fn in_train(m, xs) {
  let rm = tensor([0.1, -0.2], dtype=f64)
  let rv = tensor([1.5, 0.5], dtype=f64)
  return [instance_norm(xs[0], rm, rv, xs[1], xs[2], use_input_stats=true, momentum=0.25), rm, rv]
}

test "functional batch_norm and instance_norm move the running statistics they are given" {
  check("batch_norm_fn_train", none, 3, bn_train)
  check("batch_norm_fn_eval", none, 3, fn(m, xs) = [batch_norm(xs[0], xs[1].detach(), xs[2].detach(), training=false,
                                                               eps=1e-2)])
  check("instance_norm_fn_stats", none, 3, in_train)
  check("instance3d_track_momentum", nn.InstanceNorm3d(2, affine=true, track_running_stats=true, momentum=0.4), 1,
        on_layer)
}

let w3 = ref["w3"]

test "cross_entropy on K-d inputs with weight, ignore_index and label_smoothing, every reduction" {
  for red in ["mean", "sum", "none"] {
    check("ce_kd_" + red, none, 2, fn(m, xs) = [cross_entropy(xs[0], xs[1], weight=w3, ignore_index=1,
                                                              label_smoothing=0.15, reduction=red)])
  }
  check("ce_layer_kd", nn.CrossEntropyLoss(weight=w3, ignore_index=0, label_smoothing=0.1, reduction="sum"), 2, on_pair)
}

test "nll_loss on K-d inputs with weight and ignore_index, every reduction; a 1-D input" {
  for red in ["mean", "sum", "none"] {
    check("nll_kd_" + red, none, 2, fn(m, xs) = [nll_loss(xs[0], xs[1], weight=w3, ignore_index=2, reduction=red)])
  }
  check("nll_1d_input", none, 2, fn(m, xs) = [nll_loss(xs[0], xs[1])])
}

test "cross_entropy with probability targets, unbatched, and smoothing with ignored targets" {
  check("ce_probs_kd_smooth", none, 2, fn(m, xs) = [cross_entropy(xs[0], xs[1].detach(), weight=w3, label_smoothing=0.2)])
  check("ce_probs_sum", none, 2, fn(m, xs) = [cross_entropy(xs[0], xs[1].detach(), reduction="sum", label_smoothing=0.3)])
  check("ce_unbatched", none, 2, fn(m, xs) = [cross_entropy(xs[0], xs[1], label_smoothing=0.1)])
  check("ce_smooth_ignore_none", none, 2, fn(m, xs) = [cross_entropy(xs[0], xs[1], label_smoothing=0.25, reduction="none")])
}

test "binary losses: pos_weight and weight broadcast, huge logits, the clamped log" {
  check("bce_logits_pos_weight_bcast", none, 4, fn(m, xs) = [binary_cross_entropy_with_logits(
    xs[0], xs[1].detach(), weight=xs[3].detach(), pos_weight=xs[2].detach(), reduction="none")])
  check("bce_logits_mean_big", none, 2, fn(m, xs) = [binary_cross_entropy_with_logits(
    xs[0], xs[1].detach(), pos_weight=tensor([3.0], dtype=f64))])
  check("bce_clamped_log", none, 2, fn(m, xs) = [binary_cross_entropy(xs[0], xs[1].detach(), reduction="sum")])
}

test "regression losses at their kinks: smooth_l1 beta 0 and 2, huber at delta, l1, mse" {
  check("smooth_l1_beta0", none, 2, fn(m, xs) = [smooth_l1_loss(xs[0], xs[1], beta=0.0)])
  check("smooth_l1_beta2_sum", none, 2, fn(m, xs) = [smooth_l1_loss(xs[0], xs[1], beta=2.0, reduction="sum")])
  check("huber_delta2_none", none, 2, fn(m, xs) = [huber_loss(xs[0], xs[1], delta=2.0, reduction="none")])
  check("huber_layer_mean", nn.HuberLoss(delta=0.5), 2, on_pair)
  check("smooth_l1_layer_none", nn.SmoothL1Loss(beta=0.5, reduction="none"), 2, on_pair)
  check("l1_sum_kink", none, 2, fn(m, xs) = [l1_loss(xs[0], xs[1], reduction="sum")])
  check("mse_none", none, 2, fn(m, xs) = [mse_loss(xs[0], xs[1], reduction="none")])
}

test "kl_div: log_target with batchmean, a zero target, reduction none; KLDivLoss" {
  check("kl_div_log_target_batchmean", none, 2, fn(m, xs) = [kl_div(xs[0], xs[1], reduction="batchmean", log_target=true)])
  check("kl_div_zero_target_sum", none, 2, fn(m, xs) = [kl_div(xs[0], xs[1].detach(), reduction="sum")])
  check("kl_div_none", none, 2, fn(m, xs) = [kl_div(xs[0], xs[1], reduction="none")])
  check("kl_div_layer_log_target", nn.KLDivLoss(reduction="mean", log_target=true), 2, on_pair)
}

test "margin and likelihood losses in their other reductions" {
  check("margin_ranking_none", none, 3, fn(m, xs) = [margin_ranking_loss(xs[0], xs[1], xs[2].detach(), margin=0.2,
                                                                         reduction="none")])
  check("hinge_embedding_sum", none, 2, fn(m, xs) = [hinge_embedding_loss(xs[0], xs[1].detach(), margin=1.5,
                                                                          reduction="sum")])
  check("cosine_embedding_unbatched", none, 3, fn(m, xs) = [cosine_embedding_loss(xs[0], xs[1], xs[2].detach(),
                                                                                  margin=-0.5)])
  check("cosine_embedding_none", none, 3, fn(m, xs) = [cosine_embedding_loss(xs[0], xs[1], xs[2].detach(), margin=0.2,
                                                                             reduction="none")])
  check("soft_margin_none", none, 2, fn(m, xs) = [soft_margin_loss(xs[0], xs[1].detach(), reduction="none")])
  check("multilabel_soft_margin_weight", none, 3, fn(m, xs) = [multilabel_soft_margin_loss(
    xs[0], xs[1].detach(), weight=xs[2].detach(), reduction="none")])
  check("triplet_p1_none", none, 3, fn(m, xs) = [triplet_margin_loss(xs[0], xs[1], xs[2], margin=0.7, p=1.0,
                                                                     reduction="none")])
  check("poisson_rate_full", none, 2, fn(m, xs) = [poisson_nll_loss(xs[0], xs[1].detach(), log_input=false, full=true,
                                                                     reduction="sum")])
  check("gaussian_nll_bcast_var", none, 3, fn(m, xs) = [gaussian_nll_loss(xs[0], xs[1], xs[2], reduction="sum",
                                                                          eps=1e-3)])
}

# the lookup and the weight it renormalized in place
fn emb_max_norm(m, xs) {
  let w2 = xs[1].detach().clone() * 2
  return [embedding(xs[0], w2, max_norm=1.2, norm_type=3.0), w2]
}

test "embedding with padding_idx (negative too) and max_norm, which renormalizes the weight in place" {
  check("embedding_fn_padding", none, 2, fn(m, xs) = [embedding(xs[0], xs[1], padding_idx=3)])
  check("embedding_fn_neg_padding", none, 2, fn(m, xs) = [embedding(xs[0], xs[1], padding_idx=-1)])
  check("embedding_fn_max_norm", none, 2, emb_max_norm)
  check("embedding_layer_pad_max_norm", nn.Embedding(7, 3, padding_idx=-2, max_norm=0.8), 1, on_layer)
}

test "norms given only some affine parameters or statistics; GroupNorm of [N, C]" {
  check("layer_norm_weight_only", none, 2, fn(m, xs) = [layer_norm(xs[0], [5], xs[1])])
  check("group_norm_2d_input", nn.GroupNorm(2, 4), 1, on_layer)
  check("batch_norm_fn_weight_only", none, 2, fn(m, xs) = [batch_norm(xs[0], none, none, xs[1], training=true)])
  check("instance_norm_fn_running", none, 3, fn(m, xs) = [instance_norm(xs[0], xs[1].detach(), xs[2].detach(),
                                                                        use_input_stats=false)])
}

# A zero-initialized head gives logits of exactly 0, where softplus(-x) written with
# max(-x, 0) had the derivative -1 instead of -sigmoid(0) = -0.5.
test "losses at zero logits and at their kinks" {
  check("bce_logits_zero_weight", none, 3, fn(m, xs) = [binary_cross_entropy_with_logits(xs[0], xs[1].detach(),
                                                                                          weight=xs[2].detach())])
  check("bce_logits_zero_pos_weight_none", none, 3, fn(m, xs) = [binary_cross_entropy_with_logits(
    xs[0], xs[1].detach(), pos_weight=xs[2].detach(), reduction="none")])
  check("soft_margin_zero", none, 2, fn(m, xs) = [soft_margin_loss(xs[0], xs[1].detach())])
  check("multilabel_soft_margin_zero", none, 2, fn(m, xs) = [multilabel_soft_margin_loss(xs[0], xs[1].detach())])
  check("hinge_embedding_kink", none, 2, fn(m, xs) = [hinge_embedding_loss(xs[0], xs[1].detach(), margin=1.5,
                                                                           reduction="none")])
  check("margin_ranking_kink", none, 3, fn(m, xs) = [margin_ranking_loss(xs[0], xs[1], xs[2].detach(), margin=0.5,
                                                                         reduction="sum")])
  check("triplet_swap_p1", none, 3, fn(m, xs) = [triplet_margin_loss(xs[0], xs[1], xs[2], margin=0.3, p=1.0, swap=true,
                                                                     reduction="sum")])
  check("poisson_log_full", none, 2, fn(m, xs) = [poisson_nll_loss(xs[0], xs[1].detach(), full=true, reduction="none")])
  check("kl_div_3d_batchmean", none, 2, fn(m, xs) = [kl_div(xs[0], xs[1], reduction="batchmean")])
  check("ce_probs_kd_none", none, 2, fn(m, xs) = [cross_entropy(xs[0], xs[1].detach(), weight=tensor([0.5, 2.0, 1.0],
                                                  dtype=f64), label_smoothing=0.1, reduction="none")])
}

# PyTorch 1.13's smooth_l1 backward with beta=0 at a zero difference takes its
# x <= -beta branch (-1); beta=0 is l1_loss, whose gradient there is 0, as nabla's.
test "smooth_l1_loss with beta=0 has l1_loss's gradient at a zero difference" {
  let x = tensor([0.0, 0.5, -2.0], dtype=f64).requires_grad_(true)
  smooth_l1_loss(x, zeros([3], dtype=f64), beta=0.0, reduction="sum").backward()
  expect(x.grad.tolist() == [0.0, 1.0, -1.0])
}

test "mse with a broadcast target, nll with every target ignored, weighted mean with some ignored" {
  check("mse_bcast_target", none, 2, fn(m, xs) = [mse_loss(xs[0], xs[1].expand([3, 4]))])
  check("nll_all_ignored_sum", none, 2, fn(m, xs) = [nll_loss(xs[0], xs[1], ignore_index=1, reduction="sum")])
  check("ce_weight_mean_partial_ignore", none, 2, fn(m, xs) = [cross_entropy(xs[0], xs[1], weight=tensor([0.2, 1.0, 3.0],
                                                               dtype=f64), ignore_index=2)])
}
