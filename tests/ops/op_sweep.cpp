// The table-wide sweep (docs/DESIGN.md seam 1). For every case in tests/ops/reference/
// (expected values made by PyTorch, see scripts/gen_op_reference.py) it checks:
//   forward      the op's outputs against PyTorch's,
//   layout       the same op on non-contiguous copies of the inputs gives the same,
//   gradcheck    first derivatives against central differences (f64),
//   gradgrad     second derivatives likewise, unless the row says why it cannot,
//   jvp          forward-mode tangents against central differences (f64),
//   vmap         the row's batching rule against running it once per example.
// Rows whose backward is a surrogate (OpDef::straight_through: fake quantization)
// are not the derivative of their forward, so their cases carry PyTorch's gradients
// for a given output gradient ("grad_output", "input_grads") and the sweep compares
// with those instead; a case without them gradchecks as usual (one where every
// element is clamped, so that the estimator is the derivative).
// Adding an op: add its row, then a case in scripts/reference/<family>.py and rerun
// the generator. An op with no case fails this test.
// The same sweep runs on CUDA (test case "op table sweep on CUDA", the ctest test
// cuda_op_sweep, label cuda): every case's inputs on the GPU, the same expected
// values, gradcheck and gradgradcheck in f64 there. Without a GPU it says so and
// passes; a CUDA build must still give every row a CUDA kernel.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "autograd/cost.hpp"
#include "autograd/engine.hpp"
#include "autograd/gradcheck.hpp"
#include "autograd/ops.hpp"
#include "autograd/transforms/vmap.hpp"
#include "tensor/cpu/copy.hpp"
#include "tensor/cuda/cuda_runtime.hpp"
#include "tensor/random.hpp"

using namespace nabla;
using json = nlohmann::json;

namespace {

Tensor tensor_from_json(const json& j) {
  if (j.is_null()) return Tensor();
  DType dtype;
  REQUIRE(dtype_from_name(j["dtype"].get<std::string>(), &dtype));
  return tensor_from(j["data"].get<std::vector<double>>(), Shape(j["shape"].get<std::vector<int64_t>>()), dtype);
}

AttrValue attr_from_json(const json& v) {
  if (v.is_null()) return NoneAttr{};
  if (v.is_boolean()) return v.get<bool>();
  if (v.is_number_integer()) return v.get<int64_t>();
  if (v.is_number()) return v.get<double>();
  if (v.is_array()) return v.get<std::vector<int64_t>>();
  if (v.is_object() && v.contains("dtype")) {
    DType t;
    REQUIRE(dtype_from_name(v["dtype"].get<std::string>(), &t));
    return t;
  }
  FAIL("unsupported attribute value " << v.dump());
  return NoneAttr{};
}

// t (a CPU tensor) on `device`.
Tensor on_device(const Tensor& t, Device device) {
  return !t.defined() || t.device() == device ? t : cuda::to_device(t, device);
}

// Same values, non-contiguous layout on `device`: stored transposed (or, for 1-D,
// every other element of a buffer twice as long).
Tensor non_contiguous(const Tensor& t, Device device) {
  if (!t.defined() || t.dim() == 0 || t.numel() < 2) return on_device(t, device);
  if (t.dim() == 1) {
    Tensor buffer = zeros({t.numel() * 2}, t.dtype(), device);
    Tensor strided = make_view(buffer, t.sizes(), {2}, 0);
    copy_into(strided, t);
    return strided;
  }
  Shape sizes = t.sizes();
  std::swap(sizes[0], sizes[sizes.size() - 1]);
  Tensor storage = empty(sizes, t.dtype(), device);
  Shape strides = storage.strides();
  std::swap(strides[0], strides[strides.size() - 1]);
  Tensor view = make_view(storage, t.sizes(), strides, 0);
  copy_into(view, t);
  return view;
}

// Two units in the last place of a floating dtype, relative. A reference rounded from f64
// to f32 can sit an ulp away from a kernel's own result where the device's math library
// is not correctly rounded (CUDA's atan2f), so no case is held tighter than this.
double two_ulps(DType dtype) {
  switch (dtype) {
    case DType::f32: return 0x1p-22;
    case DType::f16: return 0x1p-9;
    case DType::bf16: return 0x1p-6;
    default: return 0;
  }
}

bool close(const Tensor& got, const Tensor& want, double atol, double rtol, std::string* why) {
  rtol = std::max(rtol, two_ulps(want.dtype()));
  if (!(got.sizes() == want.sizes())) {
    *why = "shape " + got.shape_str() + ", expected " + want.shape_str();
    return false;
  }
  if (got.dtype() != want.dtype()) {
    *why = std::string("dtype ") + dtype_name(got.dtype()) + ", expected " + dtype_name(want.dtype());
    return false;
  }
  auto g = to_double_vector(got), w = to_double_vector(want);
  for (size_t i = 0; i < g.size(); ++i) {
    bool both_nan = std::isnan(g[i]) && std::isnan(w[i]);
    if (!both_nan && !(std::abs(g[i] - w[i]) <= atol + rtol * std::abs(w[i]))) {
      *why = "element " + std::to_string(i) + " is " + std::to_string(g[i]) + ", expected " + std::to_string(w[i]);
      return false;
    }
  }
  return true;
}

struct OpTally {
  int cases = 0;
  bool forward = true, gradcheck = true, gradgrad = true, jvp = true, vmap = true;
  bool gradchecked = false, gradgradchecked = false, jvpchecked = false, vmapchecked = false;
  std::vector<std::string> failures;
};

struct Case {
  std::string name;
  const OpDef* def;
  TensorList inputs;
  Attrs attrs;
  TensorList expected;
  std::vector<size_t> grad;
  Tensor grad_output;        // straight-through rows: the output gradient given,
  TensorList input_grads;    // and PyTorch's gradients of the inputs in `grad`
  // Rows that write their inputs (optimizer steps): each written input's index and
  // its value after the call, as PyTorch left it.
  std::vector<std::pair<size_t, Tensor>> updated;
  bool gradgrad, forward, layouts;
  double atol, rtol, eps;
};

Case parse_case(const json& j) {
  Case c;
  c.name = j["name"];
  c.def = find_op(j["op"].get<std::string>());
  REQUIRE_MESSAGE(c.def, "reference case names an op that is not in the table: " << j["op"]);
  for (const auto& t : j["inputs"]) c.inputs.push_back(tensor_from_json(t));
  for (const auto& [k, v] : j["attrs"].items()) c.attrs.set(k, attr_from_json(v));
  for (const auto& t : j["outputs"]) c.expected.push_back(tensor_from_json(t));
  c.grad = j["grad"].get<std::vector<size_t>>();
  if (j.contains("grad_output")) {
    c.grad_output = tensor_from_json(j["grad_output"]);
    for (const auto& t : j["input_grads"]) c.input_grads.push_back(tensor_from_json(t));
  }
  if (j.contains("updated"))
    for (const auto& u : j["updated"]) c.updated.emplace_back(u[0].get<size_t>(), tensor_from_json(u[1]));
  c.gradgrad = j["gradgrad"];
  c.forward = j["forward"];
  c.layouts = j["layouts"];
  c.atol = j["atol"];
  c.rtol = j["rtol"];
  c.eps = j["eps"];
  return c;
}

TensorList run(const Case& c, const TensorList& inputs) {
  manual_seed(42);  // random ops (dropout) are a fixed function of their inputs here
  return call(c.def->id, inputs, c.attrs);
}

void check_outputs(const Case& c, const TensorList& got, const char* what, OpTally& tally) {
  if (got.size() != c.expected.size()) {
    tally.forward = false;
    tally.failures.push_back(c.name + ": " + what + ": " + std::to_string(got.size()) + " outputs, expected " +
                             std::to_string(c.expected.size()));
    return;
  }
  for (size_t k = 0; k < got.size(); ++k) {
    std::string why;
    if (!close(got[k], c.expected[k], c.atol, c.rtol, &why)) {
      tally.forward = false;
      tally.failures.push_back(c.name + ": " + what + ": output " + std::to_string(k) + ": " + why);
    }
  }
}

// Outputs are on the inputs' device, except where the case names one (to_device).
void check_device(const Case& c, const TensorList& got, Device inputs_device, OpTally& tally) {
  Device device = c.attrs.has("device") ? device_from_code(c.attrs.i("device")) : inputs_device;
  for (size_t k = 0; k < got.size(); ++k)
    if (got[k].defined() && got[k].device() != device) {
      tally.forward = false;
      tally.failures.push_back(c.name + ": output " + std::to_string(k) + " is on " + got[k].device().str() +
                               ", expected " + device.str());
    }
}

// The gradients of output 0 for c.grad_output against PyTorch's (c.input_grads).
GradcheckResult check_reference_grads(const Case& c, const TensorList& given, Device device) {
  TensorList inputs, wrt;
  for (size_t i = 0; i < given.size(); ++i) {
    Tensor t = given[i].defined() ? detach(given[i]) : Tensor();
    if (std::find(c.grad.begin(), c.grad.end(), i) != c.grad.end()) {
      t = contiguous_raw(t);
      t.set_requires_grad(true);
      wrt.push_back(t);
    }
    inputs.push_back(t);
  }
  TensorList outs = run(c, inputs);
  TensorList got = grad({outs[0]}, wrt, {on_device(c.grad_output, device)});
  GradcheckResult r;
  for (size_t k = 0; k < got.size() && r.ok; ++k) {
    std::string why;
    if (!close(cpu_copy(got[k]), c.input_grads[k], 1e-12, 0, &why)) {
      r.ok = false;
      r.message = "gradient of input " + std::to_string(c.grad[k]) + " against PyTorch's: " + why;
    }
  }
  return r;
}

// Note [Batching rule checks]
// Each case runs under vmap over a batch of three examples (floating inputs scaled a
// little per example; indices and masks the same), three ways: every input batched
// at dim 0, only the first batched, every input batched at its last dim. The result
// must equal the op run once per example and stacked. Random rows are left out.
constexpr int64_t kBatch = 3;

Tensor example_of(const Tensor& t, int64_t b) {
  if (!t.defined() || !is_floating(t.dtype()) || t.dim() == 0) return t;
  return t * (1.0 - 0.05 * static_cast<double>(b));
}

enum class BatchLayout { all_first, first_only, all_last };

TensorList vmap_of(const Case& c, const TensorList& inputs, BatchLayout layout) {
  transforms::LevelScope scope(transforms::LevelKind::batch, kBatch, transforms::Randomness::error);
  TensorList args;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& t = inputs[i];
    bool batched = t.defined() && (layout != BatchLayout::first_only || i == 0);
    if (!batched) {
      args.push_back(t);
      continue;
    }
    TensorList examples;
    for (int64_t b = 0; b < kBatch; ++b) examples.push_back(example_of(t, b));
    int64_t bdim = layout == BatchLayout::all_last ? t.dim() : 0;
    args.push_back(transforms::make_batched(stack(examples, bdim), scope.id(), bdim));
  }
  TensorList outs;
  for (const Tensor& out : run(c, args)) outs.push_back(transforms::unbatch(out, scope.id(), kBatch, 0));
  return outs;
}

TensorList loop_of(const Case& c, const TensorList& inputs, BatchLayout layout) {
  std::vector<TensorList> per_example;
  for (int64_t b = 0; b < kBatch; ++b) {
    TensorList args;
    for (size_t i = 0; i < inputs.size(); ++i)
      args.push_back(layout != BatchLayout::first_only || i == 0 ? example_of(inputs[i], b) : inputs[i]);
    per_example.push_back(run(c, args));
  }
  TensorList outs;
  for (size_t k = 0; k < per_example[0].size(); ++k) {
    TensorList column;
    for (auto& one : per_example) column.push_back(one[k]);
    outs.push_back(stack(column, 0));
  }
  return outs;
}

void check_batching(const Case& c, OpTally& tally) {
  const char* names[] = {"all inputs batched at dim 0", "only the first input batched", "batched at the last dim"};
  for (BatchLayout layout : {BatchLayout::all_first, BatchLayout::first_only, BatchLayout::all_last}) {
    TensorList expected;
    try {
      expected = loop_of(c, c.inputs, layout);
    } catch (const std::exception&) {
      continue;  // not valid per example either (a batched index): nothing to compare
    }
    tally.vmapchecked = true;
    std::string what = std::string("vmap (") + names[static_cast<int>(layout)] + ")";
    try {
      TensorList got = vmap_of(c, c.inputs, layout);
      for (size_t k = 0; k < expected.size(); ++k) {
        std::string why;
        if (k >= got.size() || !close(got[k], expected[k], 1e-12, 1e-9, &why)) {
          tally.vmap = false;
          tally.failures.push_back(c.name + ": " + what + ": output " + std::to_string(k) + ": " + why);
        }
      }
    } catch (const std::exception& e) {
      tally.vmap = false;
      tally.failures.push_back(c.name + ": " + what + " threw: " + e.what());
    }
  }
}

// One derivative check of a case: marks it checked, and records its failure.
void run_check(const Case& c, const char* what, bool& checked, bool& ok, OpTally& tally,
               const std::function<GradcheckResult()>& check) {
  checked = true;
  try {
    GradcheckResult r = check();
    if (!r.ok) {
      ok = false;
      tally.failures.push_back(c.name + ": " + r.message);
    }
  } catch (const std::exception& e) {
    ok = false;
    tally.failures.push_back(c.name + ": " + what + " threw: " + e.what());
  }
}

// A row that writes its inputs gets copies, so that the case's own tensors stay as
// the generator made them for every later check.
TensorList written_copies(const Case& c, const TensorList& inputs) {
  if (!c.def->updated_inputs) return inputs;
  TensorList copies;
  for (const Tensor& t : inputs) {
    Tensor copy;
    if (t.defined()) {
      copy = empty(t.sizes(), t.dtype(), t.device());
      copy_into(copy, t);
    }
    copies.push_back(copy);
  }
  return copies;
}

// The inputs a row wrote (args, after the call) against PyTorch's values.
void check_updated(const Case& c, const TensorList& args, OpTally& tally) {
  for (const auto& [index, want] : c.updated) {
    std::string why;
    if (index >= args.size() || !close(cpu_copy(args[index]), want, c.atol, c.rtol, &why)) {
      tally.forward = false;
      tally.failures.push_back(c.name + ": input " + std::to_string(index) + " after the call: " + why);
    }
  }
}

void sweep_case(const Case& c, OpTally& tally, Device device = cpu_device()) {
  ++tally.cases;
  TensorList inputs;
  for (const Tensor& t : c.inputs) inputs.push_back(on_device(t, device));
  try {
    if (c.forward) {
      TensorList args = written_copies(c, inputs);
      TensorList got = run(c, args);
      check_device(c, got, device, tally);
      check_outputs(c, got, "forward", tally);
      check_updated(c, args, tally);
    }
    if (c.forward && c.layouts) {
      TensorList strided;
      for (const Tensor& t : c.inputs) strided.push_back(non_contiguous(t, device));
      check_outputs(c, run(c, strided), "non-contiguous inputs", tally);
    }
  } catch (const std::exception& e) {
    tally.forward = false;
    tally.failures.push_back(c.name + ": forward threw: " + e.what());
  }
  bool random = draws_random_numbers(c.def->id);
  if (c.forward && c.def->batch && !random && device.kind == DeviceKind::cpu) check_batching(c, tally);
  if (c.grad.empty() || !c.def->backward) return;
  GradcheckFn f = [&](const TensorList& in) { return run(c, in); };
  GradcheckOptions opt;
  opt.eps = c.eps;
  if (c.def->jvp_kind != JvpKind::none && !c.grad_output.defined())
    run_check(c, "jvpcheck", tally.jvpchecked, tally.jvp, tally, [&] { return jvpcheck(f, inputs, c.grad, opt); });
  run_check(c, "gradcheck", tally.gradchecked, tally.gradcheck, tally, [&] {
    return c.grad_output.defined() ? check_reference_grads(c, inputs, device) : gradcheck(f, inputs, c.grad, opt);
  });
  if (!c.gradgrad || c.def->no_double_backward) return;
  run_check(c, "gradgradcheck", tally.gradgradchecked, tally.gradgrad, tally,
            [&] { return gradgradcheck(f, inputs, c.grad, opt); });
}

std::vector<Case> load_cases() {
  std::vector<Case> cases;
  std::filesystem::path dir = std::filesystem::path(NABLA_TEST_DATA) / "ops" / "reference";
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (const auto& path : files) {
    std::ifstream in(path);
    json all = json::parse(in);
    for (const auto& j : all) cases.push_back(parse_case(j));
  }
  return cases;
}

}  // namespace

TEST_CASE("every op has a complete row") {
  auto missing = incomplete_rows();
  std::string names;
  for (const auto& m : missing) names += m + " ";
  CHECK_MESSAGE(missing.empty(), "ops without a complete row: " << names);
}

TEST_CASE("op table sweep: forward, layouts, gradcheck, gradgradcheck") {
  std::map<std::string, OpTally> tallies;
  for (const Case& c : load_cases()) sweep_case(c, tallies[c.def->name]);

  int total = 0, grad_ok = 0, gradgrad_ok = 0, jvp_ok = 0, vmap_ok = 0;
  for (const OpDef& row : op_table()) {
    ++total;
    auto it = tallies.find(row.name);
    if (it == tallies.end()) {
      FAIL_CHECK("op '" << std::string(row.name) << "' has no reference case in tests/ops/reference/");
      continue;
    }
    OpTally& t = it->second;
    for (const auto& f : t.failures) FAIL_CHECK(std::string(row.name) << ": " << f);
    if (row.jvp_kind != JvpKind::none) {
      CHECK_MESSAGE(t.jvpchecked, "op '" << std::string(row.name) << "' has a forward rule but no case checks it");
      if (t.jvpchecked && t.jvp) ++jvp_ok;
    }
    if (row.batch && t.vmapchecked && t.vmap) ++vmap_ok;
    if (row.backward) {
      CHECK_MESSAGE(t.gradchecked, "op '" << std::string(row.name) << "' is differentiable but no case gradchecks it");
      if (t.gradchecked && t.gradcheck) ++grad_ok;
      if (!row.no_double_backward) {
        CHECK_MESSAGE(t.gradgradchecked, "op '" << std::string(row.name) << "' claims grad of grad but no case checks it");
        if (t.gradgradchecked && t.gradgrad) ++gradgrad_ok;
      }
    }
  }
  MESSAGE("OPS total=" << total << " gradcheck=" << grad_ok << " gradgradcheck=" << gradgrad_ok << " jvp=" << jvp_ok
                       << " vmap=" << vmap_ok);
  std::printf("OPS total=%d gradcheck=%d gradgradcheck=%d jvp=%d vmap=%d\n", total, grad_ok, gradgrad_ok, jvp_ok,
              vmap_ok);
}

// Every row's cost rule (OpDef::cost, or the default) on the inputs of the reference
// cases: finite, non-negative figures; views cost nothing. tests/ops/cost.cpp checks
// the formulas of matmul, linear and conv2d.
TEST_CASE("every row has a cost: finite, non-negative FLOPs and bytes") {
  std::set<std::string> costed;
  for (const Case& c : load_cases()) {
    CAPTURE(c.name);
    TensorList outputs = run(c, c.inputs);
    OpCost cost = op_cost(*c.def, c.inputs, complete_attrs(*c.def, c.attrs), outputs);
    CHECK(std::isfinite(cost.flops));
    CHECK(std::isfinite(cost.bytes));
    CHECK(cost.flops >= 0);
    CHECK(cost.bytes >= 0);
    if (c.def->view && !c.def->cost) CHECK(cost.bytes == 0);
    if (!c.def->view && !outputs.empty() && outputs[0].numel() > 0) CHECK(cost.bytes > 0);
    costed.insert(c.def->name);
  }
  for (const OpDef& row : op_table()) CHECK_MESSAGE(costed.count(row.name), "no case costs op '" << row.name << "'");
}

TEST_CASE("every row names its tensor arguments") {
  for (const OpDef& row : op_table()) {
    size_t expected = row.num_inputs < 0 ? 1 : static_cast<size_t>(row.num_inputs);
    CHECK_MESSAGE(row.input_names.size() == expected, "op '" << std::string(row.name) << "' names "
                                                           << row.input_names.size() << " of " << expected
                                                           << " tensor arguments");
  }
}

// Each tensor argument of each row left out in turn (an undefined tensor, which is
// what the language passes for one not given): the row's optional arguments may be
// left out, any other is an error that names it, never a crash. The fuzzer found
// add(x) reading a null tensor before call() checked this.
TEST_CASE("every row: a missing tensor argument is an error naming it, unless optional") {
  std::set<std::string> seen;
  for (const Case& c : load_cases()) {
    if (!seen.insert(c.def->name).second || c.def->num_inputs < 0) continue;  // one case per row
    for (size_t i = 0; i < c.inputs.size(); ++i) {
      if (!c.inputs[i].defined()) continue;
      CAPTURE(c.name);
      CAPTURE(i);
      TensorList inputs = c.inputs;
      inputs[i] = Tensor();
      bool optional = c.def->optional_inputs >> i & 1u;
      std::string missing = std::string(c.def->name) + ": argument '" + c.def->input_names[i] + "' is missing";
      try {
        run(c, inputs);
        CHECK_MESSAGE(optional, "ran without its argument '" << c.def->input_names[i] << "'");
      } catch (const Error& e) {
        if (!optional) CHECK(std::string(e.what()).find(missing) != std::string::npos);
      }
    }
  }
  for (const char* op : {"add", "lt", "where", "linear"}) CHECK(seen.count(op));
  Attrs dim0;
  dim0.set("dim", int64_t(0));
  CHECK_THROWS_WITH_AS(call(OpId::cat, {ones({2}), Tensor()}, dim0),
                       doctest::Contains("cat: argument 'tensors[1]' is missing"), Error);
}

TEST_CASE("a CUDA build gives every op of the table a CUDA kernel") {
  if (!cuda::built_with_cuda()) {
    MESSAGE("this nabla is built without CUDA: nothing to check");
    return;
  }
  std::string missing;
  for (const OpDef& row : op_table())
    if (!row.cuda && !row.view && !row.cpu_only) missing += std::string(missing.empty() ? "" : ", ") + row.name;
  CHECK_MESSAGE(missing.empty(), "ops without a CUDA kernel: " << missing);
}

TEST_CASE("op table sweep on CUDA: forward, layouts, gradcheck, gradgradcheck") {
  if (cuda::device_count() == 0) {
    MESSAGE("no GPU here: skipping the CUDA sweep (" << cuda::runtime_info() << ")");
    return;
  }
  std::map<std::string, OpTally> tallies;
  for (const Case& c : load_cases())
    if (!c.def->cpu_only) sweep_case(c, tallies[c.def->name], cuda_device(0));
  int total = 0, forward_ok = 0, grad_ok = 0;
  for (const OpDef& row : op_table()) {
    auto it = tallies.find(row.name);
    if (it == tallies.end()) continue;  // the CPU sweep reports ops without cases
    ++total;
    OpTally& t = it->second;
    for (const auto& f : t.failures) FAIL_CHECK("cuda: " << std::string(row.name) << ": " << f);
    forward_ok += t.forward;
    grad_ok += t.gradchecked && t.gradcheck && t.gradgrad;
  }
  std::printf("OPS cuda total=%d forward=%d gradcheck=%d\n", total, forward_ok, grad_ok);
}
