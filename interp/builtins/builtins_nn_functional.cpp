// The torch.nn.functional functions written in the language (stdlib/_nn_functional.dsl)
// as global builtins, as the C++ composites are: each row calls the module's function
// of its name with the call's arguments as they were given, so `pdist(x)`,
// `gumbel_softmax(z, hard=true)` or `relu_(h)` work without an import and `nn.pdist`
// finds the same function. Their arguments, checks and gradients are the DSL
// function's (composites of ops, so they differentiate to any order and trace in
// graph mode); the module is imported at the first call. The table at the end is
// this family's (Note [Builtin tables]); tests/stdlib/test_nn_extra.dsl checks them
// against PyTorch.
#include "interp/builtins/builtins_internal.hpp"

namespace nabla::interp {

namespace {

// stdlib/_nn_functional.dsl's function `name` called with the builtin's arguments.
Value call_stdlib(Evaluator& ev, const char* name, CallArgs& a) {
  std::shared_ptr<Module> module = ev.find_module("_nn_functional");
  if (!module) fail(std::string(name) + "(): the standard library's _nn_functional module is missing");
  return ev.call_value(ev.get_attr(Value::object(Tag::Module, module), name), a);
}

#define NN_FUNCTIONAL(name, signature, doc) \
  {#name, [](Evaluator& ev, CallArgs& a) { return call_stdlib(ev, #name, a); }, signature, doc}

const BuiltinEntry kNnFunctionalBuiltins[] = {
    // ---- in-place activations (PyTorch's torch.relu_, F.elu_, ...)
    NN_FUNCTIONAL(relu_, "relu_(input)",
                  "max(x, 0) written into input, which it returns, as torch.nn.functional.relu_. Example: relu_(randn(4))"),
    NN_FUNCTIONAL(elu_, "elu_(input, alpha=1.0)",
                  "elu(input, alpha) written into input, which it returns, as torch.nn.functional.elu_. "
                  "Example: elu_(randn(4), alpha=0.5)"),
    NN_FUNCTIONAL(leaky_relu_, "leaky_relu_(input, negative_slope=0.01)",
                  "leaky_relu(input, negative_slope) written into input, which it returns, as "
                  "torch.nn.functional.leaky_relu_. Example: leaky_relu_(randn(4), 0.2)"),
    NN_FUNCTIONAL(hardtanh_, "hardtanh_(input, min_val=-1.0, max_val=1.0)",
                  "input clamped to [min_val, max_val] in place, as torch.nn.functional.hardtanh_. "
                  "Example: hardtanh_(randn(4), -0.5, 0.5)"),
    NN_FUNCTIONAL(selu_, "selu_(input)",
                  "selu(input) written into input, which it returns, as torch.nn.functional.selu_. Example: selu_(randn(4))"),
    NN_FUNCTIONAL(celu_, "celu_(input, alpha=1.0)",
                  "celu(input, alpha) written into input, which it returns, as torch.nn.functional.celu_. "
                  "Example: celu_(randn(4), alpha=2.0)"),
    NN_FUNCTIONAL(threshold_, "threshold_(input, threshold, value)",
                  "Elements not above threshold replaced by value, in place, as torch.nn.functional.threshold_. "
                  "Example: threshold_(randn(4), 0.1, 0.0)"),
    NN_FUNCTIONAL(rrelu, "rrelu(input, lower=0.125, upper=0.3333333333333333, training=false, inplace=false)",
                  "Leaky ReLU with a random slope in [lower, upper] per element in training (manual_seed repeats "
                  "it), the mean slope in eval, as torch.nn.functional.rrelu. Example: rrelu(randn(4), training=true)"),
    NN_FUNCTIONAL(rrelu_, "rrelu_(input, lower=0.125, upper=0.3333333333333333, training=false)",
                  "rrelu written into input, which it returns, as torch.nn.functional.rrelu_. "
                  "Example: rrelu_(randn(4), training=true)"),
    NN_FUNCTIONAL(gumbel_softmax, "gumbel_softmax(logits, tau=1.0, hard=false, eps=1e-10, dim=-1)",
                  "Samples of softmax((logits + Gumbel noise) / tau) along dim (manual_seed repeats them); hard=true "
                  "gives one-hot samples with the soft sample's gradient, as torch.nn.functional.gumbel_softmax. "
                  "Example: gumbel_softmax(randn(2, 5), tau=0.5, hard=true)"),
    // ---- distances and normalization
    NN_FUNCTIONAL(pdist, "pdist(input, p=2.0)",
                  "The p-norm distance between each pair of rows i < j of input [N, M], N (N - 1) / 2 of them, as "
                  "torch.nn.functional.pdist. Example: pdist(randn(4, 3))"),
    NN_FUNCTIONAL(local_response_norm, "local_response_norm(input, size, alpha=0.0001, beta=0.75, k=1.0)",
                  "Each channel divided by (k + alpha * the mean square over size neighbouring channels) ** beta, "
                  "as torch.nn.functional.local_response_norm. Example: local_response_norm(randn(1, 6, 4, 4), 3)"),
    // ---- losses
    NN_FUNCTIONAL(multi_margin_loss,
                  "multi_margin_loss(input, target, p=1, margin=1.0, weight=none, reduction=\"mean\")",
                  "The multi-class hinge loss: max(0, margin - x[y] + x[i]) ** p over the classes i != y, divided by "
                  "C, as torch.nn.functional.multi_margin_loss. Example: multi_margin_loss(randn(3, 5), tensor([0, 4, 2]))"),
    NN_FUNCTIONAL(multilabel_margin_loss, "multilabel_margin_loss(input, target, reduction=\"mean\")",
                  "The multi-label hinge loss: max(0, 1 - (x[j] - x[i])) over target classes j (each row of target "
                  "read up to its first -1) and the other classes i, divided by C, as "
                  "torch.nn.functional.multilabel_margin_loss. Example: multilabel_margin_loss(randn(1, 4), tensor([[3, 0, -1, 1]]))"),
    NN_FUNCTIONAL(triplet_margin_with_distance_loss,
                  "triplet_margin_with_distance_loss(anchor, positive, negative, distance_function=none, margin=1.0, "
                  "swap=false, reduction=\"mean\")",
                  "max(d(anchor, positive) - d(anchor, negative) + margin, 0) for any distance function d "
                  "(pairwise_distance by default), as torch.nn.functional.triplet_margin_with_distance_loss. "
                  "Example: triplet_margin_with_distance_loss(randn(4, 3), randn(4, 3), randn(4, 3))"),
    // ---- pooling
    NN_FUNCTIONAL(lp_pool1d, "lp_pool1d(input, norm_type, kernel_size, stride=none, ceil_mode=false)",
                  "The norm_type-norm of each kernel_size window of the last dim, as torch.nn.functional.lp_pool1d. "
                  "Example: lp_pool1d(randn(1, 2, 8), 2, 2)"),
    NN_FUNCTIONAL(lp_pool2d, "lp_pool2d(input, norm_type, kernel_size, stride=none, ceil_mode=false)",
                  "The norm_type-norm of each kernel_size window of the last two dims, as "
                  "torch.nn.functional.lp_pool2d. Example: lp_pool2d(randn(1, 2, 8, 8), 2, 2)"),
    NN_FUNCTIONAL(adaptive_max_pool1d, "adaptive_max_pool1d(input, output_size, return_indices=false)",
                  "The largest value in each of output_size windows that tile the last dim, with return_indices also "
                  "where it was, as torch.nn.functional.adaptive_max_pool1d. Example: adaptive_max_pool1d(randn(1, 3, 8), 2)"),
    NN_FUNCTIONAL(max_pool1d_with_indices,
                  "max_pool1d_with_indices(input, kernel_size, stride=none, padding=0, dilation=1, ceil_mode=false, "
                  "return_indices=false)",
                  "max_pool1d's (values, indices), whatever return_indices says, as "
                  "torch.nn.functional.max_pool1d_with_indices. Example: max_pool1d_with_indices(randn(1, 2, 8), 2)"),
    NN_FUNCTIONAL(max_pool2d_with_indices,
                  "max_pool2d_with_indices(input, kernel_size, stride=none, padding=0, dilation=1, ceil_mode=false, "
                  "return_indices=false)",
                  "max_pool2d's (values, indices), whatever return_indices says, as "
                  "torch.nn.functional.max_pool2d_with_indices. Example: max_pool2d_with_indices(randn(1, 2, 8, 8), 2)"),
    NN_FUNCTIONAL(max_pool3d_with_indices,
                  "max_pool3d_with_indices(input, kernel_size, stride=none, padding=0, dilation=1, ceil_mode=false, "
                  "return_indices=false)",
                  "max_pool3d's (values, indices), whatever return_indices says, as "
                  "torch.nn.functional.max_pool3d_with_indices. Example: max_pool3d_with_indices(randn(1, 2, 4, 4, 4), 2)"),
    NN_FUNCTIONAL(adaptive_max_pool1d_with_indices,
                  "adaptive_max_pool1d_with_indices(input, output_size, return_indices=false)",
                  "adaptive_max_pool1d's (values, indices), whatever return_indices says, as PyTorch's. "
                  "Example: adaptive_max_pool1d_with_indices(randn(1, 3, 8), 2)"),
    NN_FUNCTIONAL(adaptive_max_pool2d_with_indices,
                  "adaptive_max_pool2d_with_indices(input, output_size, return_indices=false)",
                  "adaptive_max_pool2d's (values, indices), whatever return_indices says, as PyTorch's. "
                  "Example: adaptive_max_pool2d_with_indices(randn(1, 3, 8, 8), 2)"),
    NN_FUNCTIONAL(adaptive_max_pool3d_with_indices,
                  "adaptive_max_pool3d_with_indices(input, output_size, return_indices=false)",
                  "adaptive_max_pool3d's (values, indices), whatever return_indices says, as PyTorch's. "
                  "Example: adaptive_max_pool3d_with_indices(randn(1, 3, 4, 4, 4), 2)"),
    NN_FUNCTIONAL(max_unpool1d, "max_unpool1d(input, indices, kernel_size, stride=none, padding=0, output_size=none)",
                  "The inverse of max_pool1d: each value back at its index, zeros elsewhere, as "
                  "torch.nn.functional.max_unpool1d. Example: max_unpool1d(*max_pool1d_with_indices(randn(1, 2, 8), 2), 2)"),
    NN_FUNCTIONAL(max_unpool2d, "max_unpool2d(input, indices, kernel_size, stride=none, padding=0, output_size=none)",
                  "The inverse of max_pool2d: each value back at its index, zeros elsewhere, as "
                  "torch.nn.functional.max_unpool2d. Example: max_unpool2d(*max_pool2d_with_indices(randn(1, 2, 4, 4), 2), 2)"),
    NN_FUNCTIONAL(max_unpool3d, "max_unpool3d(input, indices, kernel_size, stride=none, padding=0, output_size=none)",
                  "The inverse of max_pool3d: each value back at its index, zeros elsewhere, as "
                  "torch.nn.functional.max_unpool3d. Example: max_unpool3d(*max_pool3d_with_indices(randn(1, 1, 4, 4, 4), 2), 2)"),
    // ---- losses and layers' functions defined elsewhere in the standard library
    NN_FUNCTIONAL(kl_div, "kl_div(input, target, reduction=\"mean\", log_target=false)",
                  "The Kullback-Leibler divergence of target from input (log-probabilities), as "
                  "torch.nn.functional.kl_div; reduction \"batchmean\" is the true KL per item. "
                  "Example: kl_div(log_softmax(randn(2, 3), 1), softmax(randn(2, 3), 1), reduction=\"batchmean\")"),
    NN_FUNCTIONAL(bilinear, "bilinear(input1, input2, weight, bias=none)",
                  "x1^T W x2 + b per output feature, as torch.nn.functional.bilinear. "
                  "Example: bilinear(randn(2, 3), randn(2, 4), randn(5, 3, 4))"),
    NN_FUNCTIONAL(alpha_dropout, "alpha_dropout(input, p=0.5, training=false, inplace=false)",
                  "Dropout that keeps SELU's mean and variance, as torch.nn.functional.alpha_dropout. "
                  "Example: alpha_dropout(randn(4, 4), 0.2, training=true)"),
    NN_FUNCTIONAL(feature_alpha_dropout, "feature_alpha_dropout(input, p=0.5, training=false, inplace=false)",
                  "alpha_dropout of whole channels, as torch.nn.functional.feature_alpha_dropout. "
                  "Example: feature_alpha_dropout(randn(2, 4, 3), 0.2, training=true)"),
    NN_FUNCTIONAL(channel_shuffle, "channel_shuffle(input, groups)",
                  "The channels of [N, C, *] regrouped: groups x C/groups transposed, as "
                  "torch.nn.functional.channel_shuffle. Example: channel_shuffle(randn(1, 6, 2, 2), 3)"),
    NN_FUNCTIONAL(embedding_bag,
                  "embedding_bag(input, weight, offsets=none, max_norm=none, norm_type=2.0, "
                  "scale_grad_by_freq=false, mode=\"mean\", sparse=false, per_sample_weights=none, "
                  "include_last_offset=false, padding_idx=none)",
                  "Sums, averages or takes the max of each bag of embeddings, as torch.nn.functional.embedding_bag. "
                  "Example: embedding_bag(tensor([1, 2, 4, 5]), randn(6, 3), tensor([0, 2]), mode=\"sum\")"),
    // ---- resampling (PyTorch's deprecated names of interpolate)
    NN_FUNCTIONAL(upsample, "upsample(input, size=none, scale_factor=none, mode=\"nearest\", align_corners=none)",
                  "interpolate under its old name, as torch.nn.functional.upsample. "
                  "Example: upsample(randn(1, 1, 4, 4), scale_factor=2)"),
    NN_FUNCTIONAL(upsample_nearest, "upsample_nearest(input, size=none, scale_factor=none)",
                  "interpolate(mode=\"nearest\") under its old name, as torch.nn.functional.upsample_nearest. "
                  "Example: upsample_nearest(randn(1, 1, 4, 4), scale_factor=2)"),
    NN_FUNCTIONAL(upsample_bilinear, "upsample_bilinear(input, size=none, scale_factor=none)",
                  "interpolate(mode=\"bilinear\", align_corners=true) of [N, C, H, W] under its old name, as "
                  "torch.nn.functional.upsample_bilinear. Example: upsample_bilinear(randn(1, 1, 4, 4), scale_factor=2)"),
};

#undef NN_FUNCTIONAL

}  // namespace

const BuiltinLibrary kNnFunctionalLibrary = {"nn_functional", nullptr, kNnFunctionalBuiltins, nullptr};

}  // namespace nabla::interp
