// Graph cost (graph/cost.hpp): the op table's cost rules summed over a graph, and the
// table that gm.cost() and `:cost` print.
#include "graph/cost.hpp"

#include <cstdio>

#include "autograd/cost.hpp"
#include "graph/rewrite.hpp"

namespace nabla::graph {

namespace {

// Stand-ins for value ids (an absent optional input, -1, is an undefined Tensor).
TensorList stand_ins(const Graph& g, const std::vector<int>& ids) {
  TensorList out;
  for (int v : ids) out.push_back(v < 0 ? Tensor() : meta_tensor(g.value(v)));
  return out;
}

OpCost cost_of_node(const Graph& g, const Node& n) {
  TensorList in = stand_ins(g, n.inputs), out = stand_ins(g, n.outputs);
  if (n.body) return {graph_cost(*n.body).total.flops, io_bytes(in, out)};
  if (const OpDef* def = Graph::table_op(n)) return op_cost(*def, in, complete_attrs(*def, n.attrs, /*graph_node=*/true), out);
  return {0.0, io_bytes(in, out)};
}

}  // namespace

NodeCost node_cost(const Graph& g, const Node& n) {
  NodeCost c;
  c.node = static_cast<int>(&n - g.nodes.data());
  for (size_t k = 0; k < n.outputs.size(); ++k) c.results += (k ? ", %" : "%") + value_name(g, n.outputs[k]);
  c.op = n.name();
  if (!n.outputs.empty()) c.type = meta_str(g.value(n.outputs[0]).meta);
  c.origin = n.origin;
  c.cost = cost_of_node(g, n);
  c.fused = n.body != nullptr;
  return c;
}

double graph_seconds(const GraphCost& cost, const Roofline& roof) {
  double s = 0;
  for (const NodeCost& n : cost.nodes) s += roofline_estimate(n.cost, roof).seconds;
  return s;
}

GraphCost graph_cost(const Graph& g) {
  GraphCost c;
  for (const Node& n : g.nodes) {
    c.nodes.push_back(node_cost(g, n));
    c.total.flops += c.nodes.back().cost.flops;
    c.total.bytes += c.nodes.back().cost.bytes;
  }
  return c;
}

namespace {

std::string bound_text(const OpCost& cost, const RooflineEstimate& e) {
  if (cost.bytes <= 0 && cost.flops <= 0) return "-";  // a view: moves and computes nothing
  return e.memory_bound ? "memory" : "compute";
}

std::string intensity_text(const OpCost& cost, const RooflineEstimate& e) {
  if (cost.bytes <= 0) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", e.intensity);
  return buf;
}

// seconds < 0: the roofline's estimate for `cost`.
std::string cost_line(const std::string& value, const std::string& op, const std::string& type, const OpCost& cost,
                      const Roofline& roof, double seconds = -1) {
  RooflineEstimate e = roofline_estimate(cost, roof);
  if (seconds >= 0) e.seconds = seconds;
  char buf[256];
  std::snprintf(buf, sizeof buf, "%-8s %-20s %-22s %12s %11s %8s %-8s %s\n", value.c_str(), op.c_str(), type.c_str(),
                si_figure(cost.flops, "FLOP").c_str(), si_figure(cost.bytes, "B").c_str(),
                intensity_text(cost, e).c_str(), bound_text(cost, e).c_str(), duration_figure(e.seconds).c_str());
  return buf;
}

std::string roofline_line(const Roofline& roof) {
  char ridge[32];
  std::snprintf(ridge, sizeof ridge, "%.3g", roof.ridge());
  return "roofline on " + roof.device.str() + " (measured in " + duration_figure(roof.measure_seconds) + "): peak " +
         si_figure(roof.peak_flops, "FLOP/s") + ", " +
         si_figure(roof.peak_bandwidth, "B/s") + ", ridge point " + ridge +
         " FLOP/B (below it an op is memory-bound)\n";
}

}  // namespace

std::string format_graph_cost(const GraphCost& cost, const Roofline& roof, const std::string& heading) {
  std::string s = heading.empty() ? "" : heading + "\n";
  char head[256];
  std::snprintf(head, sizeof head, "%-8s %-20s %-22s %12s %11s %8s %-8s %s\n", "value", "op", "type", "FLOPs", "bytes",
                "FLOP/B", "bound", "est. time");
  s += head;
  bool any_fused = false;
  for (const NodeCost& n : cost.nodes) {
    s += cost_line(n.results, n.op + (n.fused ? "*" : ""), n.type, n.cost, roof);
    any_fused |= n.fused;
  }
  s +=
      cost_line("total", std::to_string(cost.nodes.size()) + " nodes", "", cost.total, roof, graph_seconds(cost, roof));
  if (any_fused)
    s += "* fused: the FLOPs of its body, the bytes of its own inputs and outputs only (its intermediates never "
         "reach memory)\n";
  return s + roofline_line(roof);
}

}  // namespace nabla::graph
