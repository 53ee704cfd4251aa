// The functional API: one C++ function per op of the table (plus a few composites
// built from them). Everything here goes through call(), so every function records
// autograd nodes when gradients are on, and backward rules written with these
// functions are themselves differentiable.
#pragma once
#include <functional>
#include <optional>
#include <utility>

#include "autograd/op_table.hpp"
#include "tensor/tensor.hpp"

namespace nabla {

// The one dispatch path: shape rule, kernel, autograd recording.
TensorList call(OpId id, const TensorList& inputs, const Attrs& attrs = {});
Tensor call1(OpId id, const TensorList& inputs, const Attrs& attrs = {});
// Runs a row's kernel into outputs the caller allocated (contiguous, with the shapes
// and dtypes of the row's shape rule): no autograd, no tracing, no
// autocast. The graph executor's path, which owns its buffers, so `attrs` may carry a
// node's layout attributes (complete_attrs). Not for view rows.
void call_into(OpId id, const TensorList& inputs, const Attrs& attrs, TensorList& outputs);

using IntList = std::vector<int64_t>;

// Views and layout.
Tensor view(const Tensor& x, const IntList& shape);
Tensor reshape(const Tensor& x, const IntList& shape);
Tensor transpose(const Tensor& x, int64_t dim0, int64_t dim1);
Tensor permute(const Tensor& x, const IntList& dims);
Tensor slice(const Tensor& x, int64_t dim, int64_t start, int64_t end, int64_t step = 1);
Tensor select(const Tensor& x, int64_t dim, int64_t index);
Tensor expand(const Tensor& x, const IntList& shape);
Tensor squeeze(const Tensor& x);  // every size-1 dim
Tensor squeeze(const Tensor& x, const IntList& dims);
Tensor unsqueeze(const Tensor& x, int64_t dim);
// The offset-th diagonal of dims dim1 and dim2, last (a view, as torch.diagonal).
Tensor diagonal(const Tensor& x, int64_t offset = 0, int64_t dim1 = 0, int64_t dim2 = 1);
// The windows of `size` elements every `step` along dim, in a new last dim (a view, as
// Tensor.unfold; not F.unfold's im2col).
Tensor unfold(const Tensor& x, int64_t dim, int64_t size, int64_t step);
// The same elements as x under a new tensor (a view); differentiable.
Tensor alias(const Tensor& x);
Tensor contiguous(const Tensor& x);
Tensor slice_backward(const Tensor& grad, const IntList& input_shape, int64_t dim, int64_t start, int64_t end, int64_t step);
Tensor to_dtype(const Tensor& x, DType dtype);
// x on `device` (x itself when it is there); differentiable: the gradient comes back.
Tensor to_device(const Tensor& x, const Device& device, bool non_blocking = false);
// A CPU number (0-dim tensor) on a GPU, uploaded once per value, dtype and stream and
// then reused, as dispatch does for the numbers ops read (Note [Devices]).
Tensor number_on_device(const Tensor& number, Device device);
Tensor flatten(const Tensor& x, int64_t start_dim = 0, int64_t end_dim = -1);

// Unary elementwise: one function per op of NABLA_UNARY_OPS (tensor/op_list.hpp).
#define NABLA_UNARY_DECL(name) Tensor name(const Tensor& x);
NABLA_UNARY_OPS(NABLA_UNARY_DECL)
#undef NABLA_UNARY_DECL

// Unary elementwise with scalar attributes: one function per op of
// NABLA_PARAMETRIC_UNARY_OPS, its attributes by name, the row's defaults for those left
// out: softplus(x, {{"beta", 2.0}}).
#define NABLA_PARAMETRIC_UNARY_DECL(name) Tensor name(const Tensor& x, const Attrs& attrs = {});
NABLA_PARAMETRIC_UNARY_OPS(NABLA_PARAMETRIC_UNARY_DECL)
#undef NABLA_PARAMETRIC_UNARY_DECL

// Binary elementwise and comparisons, with broadcasting and type promotion: one
// function per op of NABLA_BINARY_OPS and NABLA_COMPARISON_OPS; a double argument is a
// wrapped number that does not widen the tensor's dtype (as in PyTorch).
#define NABLA_BINARY_DECL(name) Tensor name(const Tensor& a, const Tensor& b);
NABLA_BINARY_OPS(NABLA_BINARY_DECL)
NABLA_COMPARISON_OPS(NABLA_BINARY_DECL)
#undef NABLA_BINARY_DECL
Tensor pow(const Tensor& a, double exponent);
Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b);
Tensor clamp(const Tensor& x, std::optional<double> min, std::optional<double> max);
// clamp with its bounds as attributes: an int64 bound keeps an integer input's dtype
// (PyTorch's promotion: clamp(int_tensor, 0, 5) is an int tensor), a double makes it f32.
Tensor clamp_attrs(const Tensor& x, AttrValue min, AttrValue max);
// relu's gradient: grad where x > threshold, else 0 (PyTorch's threshold_backward).
Tensor threshold_backward(const Tensor& grad, const Tensor& x, double threshold);

Tensor operator+(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a, const Tensor& b);
Tensor operator*(const Tensor& a, const Tensor& b);
Tensor operator/(const Tensor& a, const Tensor& b);
Tensor operator-(const Tensor& a);
Tensor operator+(const Tensor& a, double b);
Tensor operator-(const Tensor& a, double b);
Tensor operator*(const Tensor& a, double b);
Tensor operator/(const Tensor& a, double b);
Tensor operator+(double a, const Tensor& b);
Tensor operator-(double a, const Tensor& b);
Tensor operator*(double a, const Tensor& b);
Tensor operator/(double a, const Tensor& b);

// Reductions. An empty dims list reduces over every dim.
Tensor sum(const Tensor& x, const IntList& dims = {}, bool keepdim = false);
Tensor mean(const Tensor& x, const IntList& dims = {}, bool keepdim = false);
Tensor max(const Tensor& x);  // of all elements
Tensor min(const Tensor& x);
std::pair<Tensor, Tensor> max(const Tensor& x, int64_t dim, bool keepdim = false);  // values, indices
std::pair<Tensor, Tensor> min(const Tensor& x, int64_t dim, bool keepdim = false);
Tensor argmax(const Tensor& x, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
Tensor argmin(const Tensor& x, std::optional<int64_t> dim = std::nullopt, bool keepdim = false);
Tensor var(const Tensor& x, const IntList& dims = {}, int64_t correction = 1, bool keepdim = false);
Tensor std(const Tensor& x, const IntList& dims = {}, int64_t correction = 1, bool keepdim = false);
Tensor logsumexp(const Tensor& x, const IntList& dims, bool keepdim = false);
Tensor softmax(const Tensor& x, int64_t dim);
Tensor log_softmax(const Tensor& x, int64_t dim);

// Linear algebra (f32 on oneDNN's sgemm, f64 on OpenBLAS).
Tensor matmul(const Tensor& a, const Tensor& b);
Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias = Tensor());
// Square matrices [..., n, n] (torch.linalg's inv, det, solve, cholesky).
Tensor inverse(const Tensor& a);
Tensor det(const Tensor& a);
Tensor linalg_solve(const Tensor& a, const Tensor& b);  // b [..., n, k]
Tensor cholesky(const Tensor& a);
TensorList eigh(const Tensor& a);  // eigenvalues [..., n] ascending, eigenvectors [..., n, n] as columns
TensorList svd(const Tensor& a);   // thin: U [..., m, k], S [..., k] descending, Vh [..., k, n]
TensorList qr(const Tensor& a);    // reduced: Q [..., m, k], R [..., k, n]

// Attention: softmax(q k^T * scale + mask) v over the last two dims of q [..., L, E],
// k [..., S, E], v [..., S, Ev] (batch dims broadcast), as PyTorch's
// scaled_dot_product_attention.
struct AttentionOptions {
  Tensor attn_mask;  // bool (true: attend) or additive, of q's dtype; broadcast to [..., L, S]
  double dropout_p = 0.0;  // dropout on the attention weights
  bool is_causal = false;  // query i sees keys j <= i (no attn_mask then)
  std::optional<double> scale;  // default 1/sqrt(E)
  bool enable_gqa = false;  // key/value may have fewer heads (dim -3) than q, a divisor
};
Tensor scaled_dot_product_attention(const Tensor& q, const Tensor& k, const Tensor& v, const AttentionOptions& options);
Tensor scaled_dot_product_attention(const Tensor& q, const Tensor& k, const Tensor& v, bool is_causal = false,
                                    std::optional<double> scale = std::nullopt);

// Convolution and pooling (NCHW).
struct Conv2dOptions {
  IntList stride{1, 1};
  IntList padding{0, 0};
  IntList dilation{1, 1};
  int64_t groups = 1;
};
Tensor conv2d(const Tensor& x, const Tensor& weight, const Tensor& bias = Tensor(), const Conv2dOptions& opt = {});
Tensor conv2d_backward_input(const Tensor& grad, const Tensor& weight, const IntList& input_shape, const Conv2dOptions& opt);
Tensor conv2d_backward_weight(const Tensor& x, const Tensor& grad, const IntList& weight_shape, const Conv2dOptions& opt);
struct Pool2dOptions {
  IntList kernel_size;
  IntList stride;  // empty: equal to kernel_size
  IntList padding{0, 0};
  IntList dilation{1, 1};  // max_pool2d only
  bool ceil_mode = false;
  bool count_include_pad = true;  // avg_pool2d only
};
std::pair<Tensor, Tensor> max_pool2d_with_indices(const Tensor& x, const Pool2dOptions& opt);
Tensor max_pool2d(const Tensor& x, const Pool2dOptions& opt);
Tensor avg_pool2d(const Tensor& x, const Pool2dOptions& opt);
Tensor avg_pool2d_backward(const Tensor& grad, const IntList& input_shape, const Pool2dOptions& opt);
// The gradient of a max pool at its input of shape input_shape: grad [N, C, *out]
// added into each (n, c) plane at the pool's flat indices (same shape as grad).
Tensor max_pool2d_backward(const Tensor& grad, const Tensor& indices, const IntList& input_shape);
// 1-D convolution and pooling ([N, C, L]; they run as the 2-D ops on a unit height),
// transposed convolution (weight [C_in, C_out / groups, k...], as PyTorch's) and
// adaptive pooling (windows [floor(i*in/out), ceil((i+1)*in/out)) per output cell).
struct Conv1dOptions {
  int64_t stride = 1, padding = 0, dilation = 1, groups = 1;
};
Tensor conv1d(const Tensor& x, const Tensor& weight, const Tensor& bias = Tensor(), const Conv1dOptions& opt = {});
struct ConvTransposeOptions {  // one value per list stands for every spatial dim
  IntList stride{1};
  IntList padding{0};
  IntList output_padding{0};
  int64_t groups = 1;
  IntList dilation{1};
};
Tensor conv_transpose1d(const Tensor& x, const Tensor& weight, const Tensor& bias = Tensor(),
                        const ConvTransposeOptions& opt = {});
Tensor conv_transpose2d(const Tensor& x, const Tensor& weight, const Tensor& bias = Tensor(),
                        const ConvTransposeOptions& opt = {});
struct Pool1dOptions {
  int64_t kernel_size = 1;
  std::optional<int64_t> stride;  // none: equal to kernel_size
  int64_t padding = 0;
  int64_t dilation = 1;  // max_pool1d only
  bool ceil_mode = false;
  bool count_include_pad = true;  // avg_pool1d only
};
std::pair<Tensor, Tensor> max_pool1d_with_indices(const Tensor& x, const Pool1dOptions& opt);
Tensor max_pool1d(const Tensor& x, const Pool1dOptions& opt);
Tensor avg_pool1d(const Tensor& x, const Pool1dOptions& opt);
Tensor adaptive_avg_pool1d(const Tensor& x, int64_t output_size);
Tensor adaptive_avg_pool2d(const Tensor& x, const IntList& output_size);
std::pair<Tensor, Tensor> adaptive_max_pool2d(const Tensor& x, const IntList& output_size);
// 3-D convolution over [N, C, D, H, W] (weight [C_out, C_in / groups, kD, kH, kW]);
// lists of one or three values. Its two adjoints, as conv2d's, are its gradients.
struct Conv3dOptions {
  IntList stride{1};
  IntList padding{0};
  IntList dilation{1};
  int64_t groups = 1;
};
Tensor conv3d(const Tensor& x, const Tensor& weight, const Tensor& bias = Tensor(), const Conv3dOptions& opt = {});
Tensor conv3d_backward_input(const Tensor& grad, const Tensor& weight, const IntList& input_shape,
                             const Conv3dOptions& opt = {});
Tensor conv3d_backward_weight(const Tensor& x, const Tensor& grad, const IntList& weight_shape,
                              const Conv3dOptions& opt = {});

// Normalization and regularization.
Tensor batch_norm(const Tensor& x, const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                  const Tensor& running_var, bool training, double momentum = 0.1, double eps = 1e-5);
// The gradients (input, weight, bias) of batch_norm given grad = dL/dy; running stats in
// eval mode only.
TensorList batch_norm_backward(const Tensor& grad, const Tensor& x, const Tensor& weight, const Tensor& running_mean,
                               const Tensor& running_var, bool training, double eps = 1e-5);
Tensor layer_norm(const Tensor& x, const IntList& normalized_shape, const Tensor& weight = Tensor(),
                  const Tensor& bias = Tensor(), double eps = 1e-5);
Tensor dropout(const Tensor& x, double p, bool training = true);
// Normalizes each group of channels/num_groups channels of x [N, C, ...] over the
// group and the spatial dims, then scales and shifts per channel (weight, bias [C]).
Tensor group_norm(const Tensor& x, int64_t num_groups, const Tensor& weight = Tensor(),
                  const Tensor& bias = Tensor(), double eps = 1e-5);
// group_norm with one group per channel.
Tensor instance_norm(const Tensor& x, const Tensor& weight = Tensor(), const Tensor& bias = Tensor(),
                     double eps = 1e-5);
// PyTorch's F.instance_norm with running statistics [C]: with use_input_stats each
// sample normalizes over its own values, and running_mean/running_var (when given)
// move by momentum toward the batch's average of the per-sample mean and unbiased
// variance; without it the running statistics normalize, as batch_norm in eval.
Tensor instance_norm(const Tensor& x, const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                     const Tensor& running_var, bool use_input_stats, double momentum, double eps);
// x * rsqrt(mean(x^2) + eps) * weight over the last dims; eps defaults to the dtype's
// machine epsilon, as PyTorch's rms_norm.
Tensor rms_norm(const Tensor& x, const IntList& normalized_shape, const Tensor& weight = Tensor(),
                std::optional<double> eps = std::nullopt);

// Resampling and padding (autograd/ops/resample.cpp).
enum class InterpolateMode : int64_t { nearest = 0, linear = 1, bicubic = 2, area = 3, nearest_exact = 4 };
// "nearest", "nearest-exact", "area", "linear" (3-D inputs), "bilinear", "bicubic" (4-D)
// and "trilinear" (5-D); anything else is an error naming the modes.
InterpolateMode interpolate_mode(const std::string& mode, int64_t input_dims);
struct InterpolateOptions {
  IntList size;                       // output size of the spatial dims, or empty
  std::vector<double> scale_factor;   // one per spatial dim (or one for all), or empty
  InterpolateMode mode = InterpolateMode::nearest;
  std::optional<bool> align_corners;  // linear, bilinear, bicubic and trilinear only
  // scale_factor gives the output size only; the taps then use in / out, as size does
  bool recompute_scale_factor = false;
};
// Resizes the spatial dims of x [N, C, W], [N, C, H, W] or [N, C, D, H, W], as PyTorch's
// interpolate.
Tensor interpolate(const Tensor& x, const InterpolateOptions& opt);
// The gradient of interpolate for x of shape input_shape: the adjoint linear map.
Tensor interpolate_backward(const Tensor& grad, const IntList& input_shape, const Attrs& interpolate_attrs);
enum class PadMode : int64_t { constant = 0, reflect = 1, replicate = 2, circular = 3 };
PadMode pad_mode(const std::string& mode);
// Pads the last len(pad)/2 dims of x; pad lists (left, right) pairs, last dim first.
Tensor pad(const Tensor& x, const IntList& pad, PadMode mode = PadMode::constant, double value = 0.0);
// The gradient of a reflect, replicate or circular pad: sums each padded element back
// onto the element it copies.
Tensor pad_backward(const Tensor& grad, const IntList& pad, PadMode mode);

// Indexing and joining.
Tensor embedding(const Tensor& weight, const Tensor& indices);
Tensor gather(const Tensor& x, int64_t dim, const Tensor& index);
Tensor index_select(const Tensor& x, int64_t dim, const Tensor& index);
Tensor scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src);
Tensor cat(const TensorList& tensors, int64_t dim = 0);
Tensor stack(const TensorList& tensors, int64_t dim = 0);
TensorList split(const Tensor& x, const IntList& sizes, int64_t dim = 0);
TensorList unbind(const Tensor& x, int64_t dim = 0);  // the slices along dim, as views
TensorList split(const Tensor& x, int64_t split_size, int64_t dim = 0);

// Scans, ordering and indexing (autograd/ops/ordering.cpp), as PyTorch's.
Tensor cumsum(const Tensor& x, int64_t dim);
Tensor cumprod(const Tensor& x, int64_t dim);
// Values and indices sorted along dim; stable keeps equal elements in their order
// (nabla's sort is always stable; the flag is PyTorch's).
std::pair<Tensor, Tensor> sort(const Tensor& x, int64_t dim = -1, bool descending = false, bool stable = false);
Tensor argsort(const Tensor& x, int64_t dim = -1, bool descending = false, bool stable = false);
// The k largest (or smallest) elements along dim and their indices.
std::pair<Tensor, Tensor> topk(const Tensor& x, int64_t k, int64_t dim = -1, bool largest = true, bool sorted = true);
Tensor flip(const Tensor& x, const IntList& dims);
Tensor roll(const Tensor& x, const IntList& shifts, const IntList& dims = {});
Tensor tril(const Tensor& x, int64_t diagonal = 0);
Tensor triu(const Tensor& x, int64_t diagonal = 0);
// x with `value` where the bool mask (broadcast to x's shape) is true. A 0-dim tensor
// value is differentiable: its gradient sums the output's over the filled positions.
Tensor masked_fill(const Tensor& x, const Tensor& mask, const Tensor& value);
Tensor masked_fill(const Tensor& x, const Tensor& mask, double value);
Tensor repeat(const Tensor& x, const IntList& sizes);  // torch.Tensor.repeat
// Each element (or slice along dim) repeated `repeats` times; dim none flattens first.
Tensor repeat_interleave(const Tensor& x, int64_t repeats, std::optional<int64_t> dim = std::nullopt);
Tensor repeat_interleave(const Tensor& x, const Tensor& repeats, std::optional<int64_t> dim = std::nullopt);
// i64 [..., num_classes]; num_classes -1: one more than the largest class.
Tensor one_hot(const Tensor& x, int64_t num_classes = -1);
// Category indices drawn from the rows of probs (1-D or 2-D) with nabla's RNG.
Tensor multinomial(const Tensor& probs, int64_t num_samples, bool replacement = false);
// The random draws as ops, so a compiled graph draws at every call (Note [Random
// draws are ops] in autograd/ops/random.cpp).
Tensor random_uniform(const Shape& size, DType dtype, double low = 0.0, double high = 1.0);
Tensor random_normal(const Shape& size, DType dtype, double mean = 0.0, double std = 1.0);
Tensor random_integers(const Shape& size, DType dtype, int64_t low, int64_t high);

// Losses; reduction is "mean", "sum" or "none".
Tensor cross_entropy(const Tensor& logits, const Tensor& target, const std::string& reduction = "mean",
                     int64_t ignore_index = -100, double label_smoothing = 0.0);
Tensor nll_loss(const Tensor& log_probs, const Tensor& target, const std::string& reduction = "mean",
                int64_t ignore_index = -100);
Tensor mse_loss(const Tensor& input, const Tensor& target, const std::string& reduction = "mean");
Tensor binary_cross_entropy(const Tensor& probs, const Tensor& target, const std::string& reduction = "mean");
Tensor binary_cross_entropy_with_logits(const Tensor& logits, const Tensor& target,
                                        const std::string& reduction = "mean");
// Reductions are an int attribute in the table: 0 none, 1 mean, 2 sum.
int64_t reduction_code(const std::string& reduction);

// Quantization (docs/quantization.md; autograd/ops/quant.cpp). Quantized values are
// integer tensors (u8, i8, i32) with their scale and zero point kept beside them.
Tensor quantize_per_tensor(const Tensor& x, double scale, int64_t zero_point, DType dtype);
Tensor quantize_per_channel(const Tensor& x, const Tensor& scales, const Tensor& zero_points, int64_t axis,
                            DType dtype);
Tensor dequantize_per_tensor(const Tensor& q, double scale, int64_t zero_point, DType dtype = DType::f32);
Tensor dequantize_per_channel(const Tensor& q, const Tensor& scales, const Tensor& zero_points, int64_t axis,
                              DType dtype = DType::f32);
// Quantize then dequantize in x's dtype; differentiable through the straight-through
// estimator (Note [Straight-through estimator]).
Tensor fake_quantize_per_tensor(const Tensor& x, double scale, int64_t zero_point, int64_t quant_min,
                                int64_t quant_max);
Tensor fake_quantize_per_channel(const Tensor& x, const Tensor& scales, const Tensor& zero_points, int64_t axis,
                                 int64_t quant_min, int64_t quant_max);
// x (u8/i8, quantized with input_scale and input_zero_point) times weight^T (i8 [N, K],
// symmetric per channel with weight_scales [N]) plus bias, then max(., 0) with relu:
// f32 [..., N], or with output_scale > 0 that requantized to u8 with output_scale and
// output_zero_point (PyTorch's quantized::linear / linear_relu; Note [Int8 epilogue]).
Tensor quantized_linear(const Tensor& x, double input_scale, int64_t input_zero_point, const Tensor& weight,
                        const Tensor& weight_scales, const Tensor& bias = Tensor(), double output_scale = 0.0,
                        int64_t output_zero_point = 0, bool relu = false);
// The same for conv2d: x u8/i8 [N, C, H, W], weight i8 [OC, C/groups, kH, kW] with
// weight_scales [OC]; the padding holds the input's zero point (a real 0). PyTorch's
// quantized::conv2d / conv2d_relu.
Tensor quantized_conv2d(const Tensor& x, double input_scale, int64_t input_zero_point, const Tensor& weight,
                        const Tensor& weight_scales, const Tensor& bias = Tensor(), const Conv2dOptions& opt = {},
                        double output_scale = 0.0, int64_t output_zero_point = 0, bool relu = false);
// The same with x in f32, quantized to u8 per call from its min and max (PyTorch's
// quantized::linear_dynamic).
Tensor dynamic_quantized_linear(const Tensor& x, const Tensor& weight, const Tensor& weight_scales,
                                const Tensor& bias = Tensor(), bool reduce_range = false);

// Composites used by backward rules (made of ops above).
Tensor zeros_like(const Tensor& x);
Tensor ones_like(const Tensor& x);
// Sums g over the dims that broadcasting added or expanded, giving `shape`.
Tensor reduce_to_shape(const Tensor& g, const Shape& shape);
// Einstein summation as torch.einsum ("ij,jk->ik", "bhld,bhmd->bhlm", "ii->i", "...ij,...jk"),
// lowered to sum, permute, reshape and batched matmul (autograd/einsum.cpp).
Tensor einsum(const std::string& equation, const TensorList& operands);

// Autograd-aware in-place writes (bump the version; rebase history).
Tensor& copy_(Tensor& dst, const Tensor& src);
Tensor& add_(Tensor& dst, const Tensor& src);
Tensor& sub_(Tensor& dst, const Tensor& src);
Tensor& mul_(Tensor& dst, const Tensor& src);
Tensor& div_(Tensor& dst, const Tensor& src);
Tensor& zero_(Tensor& dst);
// dst[part] = src, in place, for a part of dst made of views (x[t], x[:, :k]): the same
// view of any tensor of dst's shape. With autograd, dst's history becomes PyTorch's
// CopySlices (Note [A write into part of a tensor with gradients], autograd/inplace.cpp).
// Not for a graph capture or a function transform (they write the whole tensor).
using PartOf = std::function<Tensor(const Tensor&)>;
Tensor& write_into_part(Tensor& dst, const Tensor& src, const PartOf& part);

// A tensor sharing x's data with no autograd history; records nothing.
Tensor detach(const Tensor& x);
// The language's x.detach() and x.data: detach(x), but under a graph capture the op
// row `detach`, so that a lowered region's replay stops the gradient there too
// (Note [Detach in a graph], autograd/ops/views.cpp).
Tensor detach_op(const Tensor& x);

// Tensor-parallel collectives on dist's default group (autograd/ops/dist.cpp, Note
// [Tensor-parallel regions]); without a group, identities.
Tensor dist_copy(const Tensor& x);                // forward identity, backward all_reduce
Tensor dist_reduce(const Tensor& x);              // forward all_reduce, backward identity
Tensor dist_split(const Tensor& x, int64_t dim);  // this rank's chunk; backward all_gather
Tensor dist_gather(const Tensor& x, int64_t dim); // all chunks along dim; backward split
// FSDP's flat parameter: every rank's 1-D shard joined (cast to `dtype`), whose gradient
// is reduce-scattered as the average over the ranks (in `reduce_dtype`); and its adjoint.
Tensor dist_shard_gather(const Tensor& shard, std::optional<DType> dtype = std::nullopt,
                         std::optional<DType> reduce_dtype = std::nullopt);
Tensor dist_shard_reduce(const Tensor& full, std::optional<DType> dtype = std::nullopt,
                         std::optional<DType> reduce_dtype = std::nullopt);

}  // namespace nabla
