#include "autograd/op_table.hpp"

#include "tensor/cuda/cuda_runtime.hpp"

namespace nabla {

namespace {

std::vector<OpDef> build_table() {
  std::vector<OpDef> table(kNumOps);
  register_view_ops(table);
  register_strided_view_ops(table);
  register_elementwise_ops(table);
  register_reduction_ops(table);
  register_linalg_ops(table);
  register_conv_ops(table);
  register_pool_ops(table);
  register_norm_ops(table);
  register_resample_ops(table);
  register_index_ops(table);
  register_ordering_ops(table);
  register_random_ops(table);
  register_loss_ops(table);
  register_attention_ops(table);
  register_dist_ops(table);
  register_quant_ops(table);
  register_optim_ops(table);
  register_jvp_rules(table);
  register_batch_rules(table);
  // PyTorch's autocast lists, in short: products lower, numerically touchy ops f32.
  set_autocast(table, AutocastPolicy::lower,
               {OpId::matmul, OpId::linear, OpId::conv2d, OpId::conv3d, OpId::conv1d, OpId::conv_transpose1d,
                OpId::conv_transpose2d, OpId::scaled_dot_product_attention});
  set_autocast(table, AutocastPolicy::f32,
               {OpId::sum, OpId::mean, OpId::var, OpId::std, OpId::logsumexp, OpId::softmax, OpId::log_softmax,
                OpId::batch_norm, OpId::batch_norm_backward, OpId::layer_norm, OpId::cross_entropy, OpId::nll_loss,
                OpId::mse_loss, OpId::binary_cross_entropy, OpId::binary_cross_entropy_with_logits, OpId::inverse,
                OpId::det, OpId::linalg_solve, OpId::cholesky, OpId::eigh, OpId::svd, OpId::qr});
  for (int i = 0; i < kNumOps; ++i) {
    table[i].id = static_cast<OpId>(i);
    table[i].name = op_name(table[i].id);
    // Rows whose kernel serves every device (the collectives) set their cuda slot.
    if (table[i].cuda) continue;
    cuda::Kernel k = cuda::find_kernel(table[i].id);
    table[i].cuda = k.fn;
    table[i].cuda_half_native = k.half_native;
  }
  // Note [Every device has every kernel]
  // A row with a CPU kernel has a CUDA one too, unless it says why not (cpu_only).
  // Checked here, when the table is built at start-up, so a kernel left out of
  // tensor/cuda/kernel_table.cu stops nabla at once with the op's name rather than
  // at the first call on a GPU tensor; tests/ops checks the same on every build.
  if (cuda::built_with_cuda()) {
    std::vector<std::string> missing = rows_missing_cuda_kernel(table);
    if (!missing.empty()) {
      std::string names;
      for (const std::string& n : missing) names += (names.empty() ? "" : ", ") + n;
      throw Error("op table: no CUDA kernel for " + names + " (tensor/cuda/kernel_table.cu; or mark the row cpu_only)");
    }
  }
  return table;
}

}  // namespace

const std::vector<OpDef>& op_table() {
  static const std::vector<OpDef> table = build_table();
  return table;
}

bool row_complete(const OpDef& row) { return row.infer && (row.cpu || row.view); }

bool draws_random_numbers(OpId id) {
  return id == OpId::dropout || id == OpId::multinomial || id == OpId::random_uniform || id == OpId::random_normal ||
         id == OpId::random_integers;
}

const OpDef& op_def(OpId id) {
  const OpDef& row = op_table()[static_cast<size_t>(id)];
  // A missing row fails loudly (and tests/ops checks that none is missing).
  if (!row_complete(row)) throw Error(std::string("op '") + row.name + "' has no complete row in the op table");
  return row;
}

std::vector<std::string> incomplete_rows() {
  std::vector<std::string> out;
  for (const OpDef& row : op_table())
    if (!row_complete(row)) out.push_back(row.name);
  return out;
}

void check_inputs_present(const OpDef& def, const TensorList& inputs) {
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].defined() || (def.num_inputs >= 0 && (def.optional_inputs >> i & 1u))) continue;
    std::string arg = def.num_inputs < 0           ? "tensors[" + std::to_string(i) + "]"
                      : i < def.input_names.size() ? def.input_names[i]
                                                   : "input " + std::to_string(i);
    throw Error(std::string(def.name) + ": argument '" + arg + "' is missing");
  }
}

const OpDef* find_op(const std::string& name) {
  OpId id = op_id_from_name(name);
  return id == OpId::kCount ? nullptr : &op_table()[static_cast<size_t>(id)];
}

std::vector<std::string> rows_missing_cuda_kernel(const std::vector<OpDef>& table) {
  std::vector<std::string> out;
  for (const OpDef& row : table)
    if (row.cpu && !row.cuda && !row.cpu_only) out.push_back(row.name);
  return out;
}

void set_autocast(std::vector<OpDef>& table, AutocastPolicy policy, std::initializer_list<OpId> ops) {
  for (OpId id : ops) table[static_cast<size_t>(id)].autocast = policy;
}

void name_inputs(std::vector<OpDef>& table, std::initializer_list<std::pair<OpId, std::vector<std::string>>> names) {
  for (const auto& [id, list] : names) table[static_cast<size_t>(id)].input_names = list;
}

void document_ops(std::vector<OpDef>& table, std::initializer_list<std::pair<OpId, const char*>> docs) {
  for (const auto& [id, doc] : docs) table[static_cast<size_t>(id)].doc = doc;
}

Attrs complete_attrs(const OpDef& def, const Attrs& given, bool graph_node) {
  for (const Attr& a : given.items()) {
    bool layout = a.name == "blocked_inputs" || a.name == "blocked_out" || a.name == "window_codes";
    if (layout && !graph_node)
      throw Error(std::string(def.name) + ": argument '" + a.name +
                  "' is a compiled graph's memory layout, set by its block_layout pass; a call cannot pass it");
    bool known = layout;
    for (const AttrSpec& s : def.attrs) known |= s.name == a.name;
    if (!known) {
      std::string names;
      for (const AttrSpec& s : def.attrs) names += (names.empty() ? "" : ", ") + s.name;
      throw Error(std::string(def.name) + ": unknown argument '" + a.name +
                  "' (expected one of: " + (names.empty() ? "none" : names) + ")");
    }
  }
  Attrs out = given;
  for (const AttrSpec& s : def.attrs) {
    if (given.has(s.name)) continue;
    if (s.required) throw Error(std::string(def.name) + ": missing required argument '" + s.name + "'");
    out.set(s.name, s.default_value);
  }
  return out;
}

}  // namespace nabla
