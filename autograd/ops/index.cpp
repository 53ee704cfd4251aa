// Rows of the indexing and joining ops: gather, scatter_add, index_select,
// embedding (kernels in tensor/cpu/index.cpp), cat and stack (copies), and split (a
// view row with one output per piece). Backward rules use only table ops, so they
// are differentiable again: gather and scatter_add are each other's adjoints, and
// cat/stack/split undo each other with slice/select/cat.
#include "autograd/cost.hpp"
#include "autograd/ops/common.hpp"
#include "tensor/allocator.hpp"

namespace nabla {

namespace {

std::string str(int64_t v) { return std::to_string(v); }

void check_index_dtype(const char* op, const Tensor& index) {
  if (!is_index_type(index.dtype()))
    throw Error(std::string(op) + ": index must be an integer tensor (i64 or i32), got " + dtype_name(index.dtype()));
}

// Rank as the kernels see it: a 0-dim tensor counts as one element along dim 0.
int64_t rank(const Tensor& t) { return std::max<int64_t>(t.dim(), 1); }
int64_t size_at(const Tensor& t, int64_t d) { return t.dim() == 0 ? 1 : t.sizes()[d]; }

// gather / scatter_add: index has the rank of `other` and, off dim, no larger sizes.
void check_index_fits(const char* op, const Tensor& index, const Tensor& other, const char* other_name, int64_t dim,
                      bool including_dim) {
  NABLA_CHECK(rank(index) == rank(other), std::string(op) + ": index of shape " + index.shape_str() +
                                              " must have as many dims as " + other_name + " of shape " +
                                              other.shape_str());
  for (int64_t d = 0; d < rank(index); ++d) {
    if (d == dim && !including_dim) continue;
    NABLA_CHECK(size_at(index, d) <= size_at(other, d), std::string(op) + ": index of shape " + index.shape_str() +
                                                            " is larger than " + other_name + " of shape " +
                                                            other.shape_str() + " at dim " + str(d));
  }
}

// ---- gather(x, index; dim) ----

std::vector<TensorMeta> infer_gather(const TensorList& in, const Attrs& a) {
  check_index_dtype("gather", in[1]);
  int64_t dim = wrap_dim(a.i("dim"), in[0].dim(), "gather");
  check_index_fits("gather", in[1], in[0], "input", dim, false);
  return one(in[1].sizes(), in[0].dtype());
}
TensorList backward_gather(BackwardContext& c) {
  const Tensor& g = c.grad();
  return {scatter_add(zeros(c.input_shape(0), g.dtype(), g.device()), c.attrs().i("dim"), c.input(1), g), Tensor()};
}

// ---- scatter_add(self, index, src; dim) ----

std::vector<TensorMeta> infer_scatter_add(const TensorList& in, const Attrs& a) {
  const Tensor &self = in[0], &index = in[1], &src = in[2];
  check_index_dtype("scatter_add", index);
  NABLA_CHECK(self.dtype() == src.dtype(), std::string("scatter_add: src must have the dtype of self (") +
                                               dtype_name(self.dtype()) + "), got " + dtype_name(src.dtype()));
  int64_t dim = wrap_dim(a.i("dim"), self.dim(), "scatter_add");
  if (index.numel() > 0) {
    check_index_fits("scatter_add", index, self, "self", dim, false);
    check_index_fits("scatter_add", index, src, "src", dim, true);
  }
  return one(self.sizes(), self.dtype());
}
// The gradient of src lives where index reads it; where src is larger than index,
// its remaining elements were never added and get zeros (slice_backward pads).
Tensor pad_to(Tensor g, const Shape& shape) {
  for (int64_t d = 0; d < g.dim(); ++d) {
    if (g.sizes()[d] == shape[d]) continue;
    IntList grown = g.sizes().vec();  // one dim at a time
    grown[d] = shape[d];
    g = slice_backward(g, grown, d, 0, g.sizes()[d], 1);
  }
  return g;
}
TensorList backward_scatter_add(BackwardContext& c) {
  Tensor gs;
  if (c.needs_grad(2)) gs = pad_to(gather(c.grad(), c.attrs().i("dim"), c.input(1)), c.input_shape(2));
  return {c.needs_grad(0) ? c.grad() : Tensor(), Tensor(), gs};
}

// ---- index_select(x, index; dim) ----

std::vector<TensorMeta> infer_index_select(const TensorList& in, const Attrs& a) {
  check_index_dtype("index_select", in[1]);
  NABLA_CHECK(in[1].dim() <= 1, "index_select: index must be 0-dim or 1-D, got shape " + in[1].shape_str());
  int64_t dim = wrap_dim(a.i("dim"), in[0].dim(), "index_select");
  // A 0-dim input has one element to select: its output stays 0-dim (as PyTorch).
  NABLA_CHECK(in[0].dim() > 0 || in[1].numel() == 1,
              "index_select: a 0-dim input can be indexed by one index only, got " + std::to_string(in[1].numel()));
  Shape s = in[0].sizes();
  if (!s.empty()) s[dim] = in[1].numel();
  return one(s, in[0].dtype());
}
TensorList backward_index_select(BackwardContext& c) {
  const Tensor& g = c.grad();
  int64_t dim = wrap_dim(c.attrs().i("dim"), g.dim(), "index_select");
  // index as [1, .., n, .., 1] expanded to g's shape: the scatter_add adjoint.
  IntList shape(std::max<int64_t>(g.dim(), 1), 1);
  shape[dim] = c.input(1).numel();
  Tensor index = expand(reshape(c.input(1), shape), g.dim() == 0 ? IntList{1} : g.sizes().vec());
  Tensor gx = scatter_add(zeros(c.input_shape(0), g.dtype(), g.device()), dim, index,
                          g.dim() == 0 ? reshape(g, {1}) : g);
  return {gx, Tensor()};
}

// ---- embedding(weight, indices) ----

std::vector<TensorMeta> infer_embedding(const TensorList& in, const Attrs&) {
  NABLA_CHECK(in[0].dim() == 2, "embedding: weight must be 2-D [num_embeddings, dim], got shape " + in[0].shape_str());
  check_index_dtype("embedding", in[1]);
  Shape s = in[1].sizes();
  s.push_back(in[0].sizes()[1]);
  return one(s, in[0].dtype());
}
TensorList backward_embedding(BackwardContext& c) {
  const Shape& w = c.input_shape(0);
  int64_t n = c.input(1).numel();
  Tensor rows = expand(reshape(c.input(1), {n, 1}), {n, w[1]});
  Tensor gw = scatter_add(zeros(w, c.grad().dtype(), c.grad().device()), 0, rows, reshape(c.grad(), {n, w[1]}));
  return {gw, Tensor()};
}

// ---- cat(tensors...; dim), stack(tensors...; dim) ----

void check_nonempty_list(const char* op, const TensorList& in) {
  NABLA_CHECK(!in.empty(), std::string(op) + ": expected a non-empty list of tensors");
}

std::vector<TensorMeta> infer_cat(const TensorList& in, const Attrs& a) {
  check_nonempty_list("cat", in);
  NABLA_CHECK(in[0].dim() > 0, "cat: zero-dimensional tensor 0 cannot be concatenated");
  int64_t dim = wrap_dim(a.i("dim"), in[0].dim(), "cat");
  Shape s = in[0].sizes();
  s[dim] = 0;
  for (size_t i = 0; i < in.size(); ++i) {
    const Tensor& t = in[i];
    bool fits = t.dim() == in[0].dim();
    for (int64_t d = 0; fits && d < t.dim(); ++d) fits = d == dim || t.sizes()[d] == in[0].sizes()[d];
    NABLA_CHECK(fits, "cat: tensor " + std::to_string(i) + " has shape " + t.shape_str() + " but tensor 0 has shape " +
                          in[0].shape_str() + "; sizes must match except in dim " + str(dim));
    s[dim] = size_add("cat", s[dim], t.sizes()[dim]);  // Note [Shape arithmetic]
  }
  return one(s, result_type(in));
}
// Each input's gradient is its slab of g, in its own dtype (cat may have promoted).
TensorList backward_cat(BackwardContext& c) {
  int64_t dim = wrap_dim(c.attrs().i("dim"), c.grad().dim(), "cat");
  TensorList out(c.num_inputs());
  int64_t at = 0;
  for (size_t i = 0; i < c.num_inputs(); ++i) {
    int64_t len = c.input_shape(i)[dim];
    if (c.needs_grad(i)) out[i] = to_dtype(slice(c.grad(), dim, at, at + len, 1), c.input_dtype(i));
    at += len;
  }
  return out;
}

std::vector<TensorMeta> infer_stack(const TensorList& in, const Attrs& a) {
  check_nonempty_list("stack", in);
  int64_t dim = wrap_dim(a.i("dim"), in[0].dim() + 1, "stack");
  for (size_t i = 1; i < in.size(); ++i)
    NABLA_CHECK(in[i].sizes() == in[0].sizes(), "stack: tensor " + std::to_string(i) + " has shape " +
                                                    in[i].shape_str() + " but tensor 0 has shape " + in[0].shape_str() +
                                                    "; all must have the same shape");
  Shape s = in[0].sizes();
  s.insert(dim, static_cast<int64_t>(in.size()));
  return one(s, result_type(in));
}
// One unbind for every input's slice (not a select each: Note at unbind below).
TensorList backward_stack(BackwardContext& c) {
  int64_t dim = wrap_dim(c.attrs().i("dim"), c.grad().dim(), "stack");
  TensorList slices = unbind(c.grad(), dim);
  TensorList out(c.num_inputs());
  for (size_t i = 0; i < c.num_inputs(); ++i)
    if (c.needs_grad(i)) out[i] = to_dtype(slices[i], c.input_dtype(i));
  return out;
}

// ---- split(x; sizes, dim): views, one per piece ----

int64_t split_dim(const Tensor& x, const Attrs& a) {
  NABLA_CHECK(x.dim() > 0, "split: cannot split a 0-dim tensor");
  int64_t dim = wrap_dim(a.i("dim"), x.dim(), "split");
  const auto& sizes = a.ints("sizes");
  int64_t total = 0;
  for (int64_t s : sizes) {
    NABLA_CHECK(s >= 0, "split: sizes must be non-negative, got " + shape_str(Shape(sizes)));
    total += s;
  }
  NABLA_CHECK(total == x.sizes()[dim], "split: sizes " + shape_str(Shape(sizes)) + " sum to " + str(total) +
                                           " but dim " + str(dim) + " of the input of shape " + x.shape_str() +
                                           " has size " + str(x.sizes()[dim]));
  return dim;
}
std::vector<TensorMeta> infer_split(const TensorList& in, const Attrs& a) {
  int64_t dim = split_dim(in[0], a);
  std::vector<TensorMeta> metas;
  for (int64_t len : a.ints("sizes")) {
    Shape s = in[0].sizes();
    s[dim] = len;
    metas.push_back({s, in[0].dtype()});
  }
  return metas;
}
TensorList view_split(const TensorList& in, const Attrs& a) {
  const Tensor& x = in[0];
  int64_t dim = split_dim(x, a);
  TensorList pieces;
  int64_t offset = x.offset();
  for (int64_t len : a.ints("sizes")) {
    Shape s = x.sizes();
    s[dim] = len;
    pieces.push_back(make_view(x, s, x.strides(), offset));
    offset += len * x.strides()[dim];
  }
  return pieces;
}
// The engine fills zeros for pieces that got no gradient, so every grad is defined.
TensorList backward_split(BackwardContext& c) {
  TensorList grads;
  for (size_t k = 0; k < c.attrs().ints("sizes").size(); ++k) grads.push_back(c.grad(k));
  return {cat(grads, c.attrs().i("dim"))};
}

// ---- unbind(x; dim): views, one per index along dim, that dim removed ----
// One node for all the slices (a list's rows after a lowered loop, stack's backward),
// where one select per slice would make a graph's size grow with their number.

int64_t unbind_dim(const Tensor& x, const Attrs& a) {
  NABLA_CHECK(x.dim() > 0, "unbind: cannot unbind a 0-dim tensor");
  return wrap_dim(a.i("dim"), x.dim(), "unbind");
}
// Each piece of unbind or split is a tensor on the host, asked for before any is made:
// the 2^62 empty rows of a [2^62, 0] tensor were "cannot create std::vector larger
// than max_size()" (unbind) or grew the memory until the kernel killed nabla (split).
void ask_for_pieces(int64_t count, const char* op) {
  CpuAllocator::instance().check_host_request(static_cast<size_t>(count), sizeof(TensorMeta) + sizeof(TensorImpl),
                                              std::string(op) + " into " + std::to_string(count) + " pieces");
}
std::vector<TensorMeta> infer_unbind(const TensorList& in, const Attrs& a) {
  int64_t dim = unbind_dim(in[0], a);
  ask_for_pieces(in[0].sizes()[dim], "unbind");
  Shape s = in[0].sizes();
  s.erase(static_cast<size_t>(dim));
  return std::vector<TensorMeta>(static_cast<size_t>(in[0].sizes()[dim]), TensorMeta{s, in[0].dtype()});
}
TensorList view_unbind(const TensorList& in, const Attrs& a) {
  const Tensor& x = in[0];
  int64_t dim = unbind_dim(x, a);
  Shape sizes = x.sizes(), strides = x.strides();
  sizes.erase(static_cast<size_t>(dim));
  strides.erase(static_cast<size_t>(dim));
  TensorList slices;
  for (int64_t k = 0; k < x.sizes()[dim]; ++k)
    slices.push_back(make_view(x, sizes, strides, x.offset() + k * x.strides()[dim]));
  return slices;
}
TensorList backward_unbind(BackwardContext& c) {
  TensorList grads;
  for (size_t k = 0; k < c.num_outputs(); ++k) grads.push_back(c.grad(k));
  return {stack(grads, c.attrs().i("dim"))};
}

AttrSpec dim_attr(int64_t default_dim) { return attr_optional("dim", AttrKind::integer, default_dim); }

// Cost rules (docs/cost.md). embedding, gather and index_select compute nothing and
// read only the rows they pick: the indices, then the output's worth of the input,
// written once. scatter_add does one add per element of src. cat and stack copy.
OpCost cost_gather_like(const TensorList& in, const Attrs&, const TensorList& out) {
  return {0.0, cost_bytes(in[1]) + 2.0 * cost_bytes(out)};  // input 1: the indices, in all three
}
OpCost cost_scatter_add(const TensorList& in, const Attrs&, const TensorList& out) {
  return {cost_numel(in[2]), io_bytes(in, out)};
}

}  // namespace

void register_index_ops(std::vector<OpDef>& t) {
  row(t, OpId::gather) = {.num_inputs = 2,
                          .attrs = {attr_required("dim", AttrKind::integer)},
                          .infer = infer_gather,
                          .cpu = cpu::gather,
                          .backward = backward_gather,
                          .saves = {0b10, 0},
                          .half_native = true};
  row(t, OpId::scatter_add) = {.num_inputs = 3,
                               .attrs = {attr_required("dim", AttrKind::integer)},
                               .infer = infer_scatter_add,
                               .cpu = cpu::scatter_add,
                               .backward = backward_scatter_add,
                               .saves = {0b010, 0}};
  row(t, OpId::index_select) = {.num_inputs = 2,
                                .attrs = {attr_required("dim", AttrKind::integer)},
                                .infer = infer_index_select,
                                .cpu = cpu::index_select,
                                .backward = backward_index_select,
                                .saves = {0b10, 0},
                                .half_native = true};
  row(t, OpId::embedding) = {.num_inputs = 2,
                             .infer = infer_embedding,
                             .cpu = cpu::embedding,
                             .backward = backward_embedding,
                             .saves = {0b10, 0},
                             .half_native = true};
  row(t, OpId::cat) = {.num_inputs = -1,
                       .attrs = {dim_attr(0)},
                       .infer = infer_cat,
                       .cpu = cpu::cat,
                       .backward = backward_cat,
                       .half_native = true};
  row(t, OpId::stack) = {.num_inputs = -1,
                         .attrs = {dim_attr(0)},
                         .infer = infer_stack,
                         .cpu = cpu::stack,
                         .backward = backward_stack,
                         .half_native = true};
  row(t, OpId::split) = {.num_inputs = 1,
                         .num_outputs = -1,
                         .attrs = {attr_required("sizes", AttrKind::ints), dim_attr(0)},
                         .infer = infer_split,
                         .view = view_split,
                         .backward = backward_split};
  row(t, OpId::unbind) = {.num_inputs = 1,
                          .num_outputs = -1,
                          .attrs = {dim_attr(0)},
                          .infer = infer_unbind,
                          .view = view_unbind,
                          .backward = backward_unbind};
  for (OpId id : {OpId::embedding, OpId::gather, OpId::index_select}) row(t, id).cost = cost_gather_like;
  row(t, OpId::scatter_add).cost = cost_scatter_add;
  row(t, OpId::cat).cost = cost_copy;
  row(t, OpId::stack).cost = cost_copy;
  name_inputs(t, {{OpId::embedding, {"weight", "indices"}},
                  {OpId::gather, {"input", "index"}},
                  {OpId::index_select, {"input", "index"}},
                  {OpId::scatter_add, {"input", "index", "src"}},
                  {OpId::cat, {"tensors"}},
                  {OpId::stack, {"tensors"}},
                  {OpId::split, {"input"}},
                  {OpId::unbind, {"input"}}});
  // What :help prints for each op of this family; tests/interp/op_docs.cpp runs every example.
  document_ops(t, {{OpId::embedding,
                    "The rows of weight that the integer tensor input names, as torch.nn.functional.embedding. "
                    "Example: embedding(tensor([0, 2]), randn(5, 3))"},
                   {OpId::gather,
                    "The elements of input at index along dim (out[i][j] = input[i][index[i][j]] for dim 1), as "
                    "torch.gather. "
                    "Example: gather(randn(2, 3), 1, tensor([[0], [2]]))"},
                   {OpId::index_select,
                    "The slices of input at the indices along dim, as torch.index_select. "
                    "Example: index_select(randn(4, 3), 0, tensor([0, 2]))"},
                   {OpId::scatter_add,
                    "A copy of input with each element of src added at its index along dim, as torch.scatter_add. "
                    "Example: scatter_add(zeros(3), 0, tensor([0, 1, 0]), ones(3))"},
                   {OpId::cat,
                    "The tensors joined along an existing dim, as torch.cat. "
                    "Example: cat([randn(2, 3), randn(1, 3)], dim=0)"},
                   {OpId::stack,
                    "The tensors, all of one shape, joined along a new dim, as torch.stack. "
                    "Example: stack([randn(3), randn(3)], dim=1)"},
                   {OpId::split,
                    "A tuple of views of input along dim: pieces of split_size (the last may be smaller), or of the "
                    "sizes in a list, as torch.split. "
                    "Example: split(randn(4, 5), [2, 3], dim=1)"},
                   {OpId::unbind,
                    "A tuple of views of input, one per index along dim, that dim removed, as torch.unbind. "
                    "Example: unbind(randn(3, 2), dim=0)"}});
}

// The functional API of this family.

Tensor embedding(const Tensor& weight, const Tensor& indices) { return call1(OpId::embedding, {weight, indices}); }
Tensor gather(const Tensor& x, int64_t dim, const Tensor& index) {
  return call1(OpId::gather, {x, index}, {{"dim", dim}});
}
Tensor index_select(const Tensor& x, int64_t dim, const Tensor& index) {
  return call1(OpId::index_select, {x, index}, {{"dim", dim}});
}
Tensor scatter_add(const Tensor& self, int64_t dim, const Tensor& index, const Tensor& src) {
  return call1(OpId::scatter_add, {self, index, src}, {{"dim", dim}});
}
Tensor cat(const TensorList& tensors, int64_t dim) { return call1(OpId::cat, tensors, {{"dim", dim}}); }
Tensor stack(const TensorList& tensors, int64_t dim) { return call1(OpId::stack, tensors, {{"dim", dim}}); }
TensorList unbind(const Tensor& x, int64_t dim) { return call(OpId::unbind, {x}, {{"dim", dim}}); }
TensorList split(const Tensor& x, const IntList& sizes, int64_t dim) {
  return call(OpId::split, {x}, {{"sizes", sizes}, {"dim", dim}});
}
// Pieces of split_size along dim, the last one smaller when it does not divide
// (torch.split); an empty dim gives one empty piece.
TensorList split(const Tensor& x, int64_t split_size, int64_t dim) {
  NABLA_CHECK(x.dim() > 0, "split: cannot split a 0-dim tensor");
  int64_t size = x.sizes()[wrap_dim(dim, x.dim(), "split")];
  NABLA_CHECK(split_size > 0 || size == 0, "split: split_size must be positive, got " + str(split_size));
  if (size > 0) ask_for_pieces(size / split_size + (size % split_size != 0), "split");
  IntList sizes;
  for (int64_t at = 0; at < size; at += split_size) sizes.push_back(std::min(split_size, size - at));
  if (sizes.empty()) sizes.push_back(0);
  return split(x, sizes, dim);
}

}  // namespace nabla
