// gm.cost() and `:cost`: the cost of the graph in use (graph/cost.hpp) on this
// machine's measured roofline (autograd/roofline.hpp), as a table or as figures the
// language can check (docs/cost.md).
#include "autograd/roofline.hpp"
#include "graph/cost.hpp"
#include "interp/builtins/builtins_internal.hpp"
#include "interp/builtins/graph_module.hpp"
#include "tensor/cuda/cuda_runtime.hpp"

namespace nabla::interp {

namespace {

const Roofline& roofline_for(const GraphModule& gm, const Device* device) {
  Device d = device ? *device : graph_device(gm);
  if (d.kind == DeviceKind::cuda && cuda::device_count() == 0)
    fail("graph module: cost(): no GPU here to measure " + d.str() + "'s roofline on");
  return machine_roofline(d);
}

Value figure(double x) { return Value::integer(static_cast<int64_t>(x + 0.5)); }  // exact below 2^53

// One node's figures: {value, op, type, origin, flops, bytes, intensity, bound, time_s, fused}.
Value node_dict(const graph::NodeCost& n, const Roofline& roof) {
  RooflineEstimate e = roofline_estimate(n.cost, roof);
  auto d = std::make_shared<DictObj>();
  d->set(make_str("value"), make_str(n.results));
  d->set(make_str("op"), make_str(n.op));
  d->set(make_str("type"), make_str(n.type));
  d->set(make_str("origin"), make_str(n.origin));
  d->set(make_str("flops"), figure(n.cost.flops));
  d->set(make_str("bytes"), figure(n.cost.bytes));
  d->set(make_str("intensity"), Value::number(e.intensity));
  bool moves = n.cost.bytes > 0 || n.cost.flops > 0;
  d->set(make_str("bound"), moves ? make_str(e.memory_bound ? "memory" : "compute") : Value());
  d->set(make_str("time_s"), Value::number(e.seconds));
  d->set(make_str("fused"), Value::boolean(n.fused));
  return Value::object(Tag::Dict, d);
}

// {nodes: [...], flops, bytes, intensity, time_s, device, peak_flops, peak_bandwidth, ridge}.
Value cost_dict(const graph::GraphCost& c, const Roofline& roof) {
  std::vector<Value> nodes;
  for (const graph::NodeCost& n : c.nodes) nodes.push_back(node_dict(n, roof));
  auto d = std::make_shared<DictObj>();
  d->set(make_str("nodes"), make_list(std::move(nodes)));
  d->set(make_str("flops"), figure(c.total.flops));
  d->set(make_str("bytes"), figure(c.total.bytes));
  d->set(make_str("intensity"), Value::number(c.total.bytes > 0 ? c.total.flops / c.total.bytes : 0.0));
  d->set(make_str("time_s"), Value::number(graph::graph_seconds(c, roof)));
  d->set(make_str("device"), make_str(roof.device.str()));
  d->set(make_str("peak_flops"), Value::number(roof.peak_flops));
  d->set(make_str("peak_bandwidth"), Value::number(roof.peak_bandwidth));
  d->set(make_str("ridge"), Value::number(roof.ridge()));
  return Value::object(Tag::Dict, d);
}

}  // namespace

std::string graph_cost_table(const GraphModule& gm, const Device* device) {
  const Roofline& roof = roofline_for(gm, device);
  return graph::format_graph_cost(graph::graph_cost(graph_in_use(gm)), roof, graph_heading(gm));
}

Value graph_cost_method(const GraphModule& gm, CallArgs& a) {
  Bound b = bind("cost", a, {"self", "table", "device"}, 1);
  Device device;
  if (b.has(2) && !parse_device(str(b[2]), &device))
    fail("graph module: cost(): device must be \"cpu\", \"cuda\" or \"cuda:N\", got '" + str(b[2]) + "'");
  const Device* d = b.has(2) ? &device : nullptr;
  if (!b.has(1) || as_bool(b[1], "cost(): table")) return make_report(graph_cost_table(gm, d));
  return cost_dict(graph::graph_cost(graph_in_use(gm)), roofline_for(gm, d));
}

}  // namespace nabla::interp
