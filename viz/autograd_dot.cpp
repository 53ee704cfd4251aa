// Drawing the eager autograd graph behind tensors (autograd_dot): the roots, their
// grad_fn nodes, everything reachable through next_edges, and the AccumulateGrad
// nodes of leaves. It only reads the graph: it never makes a leaf's accumulator
// (gradient_edge would), so drawing a graph does not change it.
#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "autograd/node.hpp"
#include "graph/ir.hpp"
#include "viz/dot_writer.hpp"
#include "viz/graphviz.hpp"
#include "viz/layout_budget.hpp"

namespace nabla::viz {

namespace {

using detail::DotAttrs;
using detail::DotWriter;
using detail::html_bold;
using detail::html_escape;
using detail::html_note;

std::string meta_text(const Shape& sizes, DType dtype) { return graph::meta_str(TensorMeta{sizes, dtype}); }

// A root tensor: its type, and whether it has history at all.
std::string root_label(const Tensor& t, size_t k) {
  std::string label = html_bold("tensor " + std::to_string(k));
  if (!t.defined()) return label + "<BR/>" + html_note("undefined");
  label += "<BR/>" + html_escape(meta_text(t.sizes(), t.dtype()));
  if (!t.grad_fn()) label += "<BR/>" + html_note(t.requires_grad() ? "leaf" : "no history");
  return label;
}

// A backward node: its name, the types of the gradients it receives (its forward
// op's outputs), the DSL line of the forward call, and whether backward already
// freed its saved tensors.
std::string node_label(const Node& node, bool freed) {
  std::string label = html_bold(node.name());
  for (const TensorMeta& m : node.output_metas) label += "<BR/>" + html_escape(graph::meta_str(m));
  if (node.origin != 0) label += "<BR/>" + html_note(origin_text(node.origin));
  if (freed) label += "<BR/>" + html_note("saved tensors freed");
  return label;
}

bool saved_freed(const Node& node) {
  const auto* op = dynamic_cast<const OpNode*>(&node);
  return op && op->released;
}

DotAttrs node_attrs(const Node& node) {
  bool leaf = dynamic_cast<const AccumulateGrad*>(&node) != nullptr;
  bool freed = saved_freed(node);
  std::string css = leaf ? "leaf" : freed ? "fn freed" : "fn";
  DotAttrs attrs{{"class", css},
                 {"shape", "box"},
                 {"style", freed ? "filled,dashed" : "filled"},
                 {"fillcolor", leaf ? "#dbeafe" : "#ffffff"},
                 {"color", leaf ? "#1d4ed8" : "#374151"}};
  attrs.push_back({"label", node_label(node, freed), true});
  return attrs;
}

// The nodes reachable from the roots in breadth-first order, at most `limit`.
std::vector<const Node*> breadth_first(const std::vector<Tensor>& roots, size_t limit) {
  std::vector<const Node*> order;
  std::unordered_set<const Node*> seen;
  auto visit = [&](const Node* n) {
    if (n && order.size() < limit && seen.insert(n).second) order.push_back(n);
  };
  for (const Tensor& t : roots)
    if (t.defined()) visit(t.grad_fn().get());
  for (size_t i = 0; i < order.size(); ++i)
    for (const Edge& e : order[i]->next_edges) visit(e.fn.get());
  return order;
}

// How many of the first nodes of `order` fit the drawing budget (Note [Drawing
// budget] in layout_budget.hpp): the edges as positions in `order`.
size_t nodes_within_budget(const std::vector<const Node*>& order) {
  std::unordered_map<const Node*, size_t> position;
  for (size_t i = 0; i < order.size(); ++i) position.emplace(order[i], i);
  std::vector<std::vector<size_t>> edges(order.size());
  for (size_t i = 0; i < order.size(); ++i)
    for (const Edge& e : order[i]->next_edges)
      if (auto it = e.fn ? position.find(e.fn.get()) : position.end(); it != position.end()) edges[i].push_back(it->second);
  return detail::nodes_within_budget(edges);
}

// Draws the roots and the first `drawn` nodes of `order` ("f<k>" ids in that order,
// so the same graph always gives the same text); edges to nodes left out are not
// drawn, and the nodes they leave from say so.
class AutogradDrawer {
 public:
  AutogradDrawer(DotWriter& out, const std::vector<const Node*>& order, size_t drawn)
      : out_(out), order_(order), drawn_(drawn) {
    for (size_t k = 0; k < drawn; ++k) ids_.emplace(order[k], detail::numbered("f", static_cast<long long>(k)));
  }

  void draw(const std::vector<Tensor>& roots) {
    for (size_t k = 0; k < roots.size(); ++k) draw_root(roots[k], k);
    for (size_t k = 0; k < drawn_; ++k) draw_node(*order_[k]);
  }

 private:

  void draw_root(const Tensor& t, size_t k) {
    std::string id = detail::numbered("t", static_cast<long long>(k));
    out_.node(id, {{"class", "root"},
                   {"shape", "box"},
                   {"fillcolor", "#dcfce7"},
                   {"color", "#15803d"},
                   {"label", root_label(t, k), true}});
    if (!t.defined() || !t.grad_fn()) return;
    if (auto it = ids_.find(t.grad_fn().get()); it != ids_.end()) out_.edge(id, it->second, {{"style", "dashed"}});
  }
  void draw_node(const Node& node) {
    const std::string& id = ids_.at(&node);
    DotAttrs attrs = node_attrs(node);
    // With several next edges, a label says which input of the forward op each feeds.
    bool label = node.next_edges.size() > 1;
    bool cut = false;
    for (size_t i = 0; i < node.next_edges.size(); ++i) {
      const Edge& e = node.next_edges[i];
      if (!e.valid()) continue;
      auto it = ids_.find(e.fn.get());
      if (it == ids_.end()) {
        cut = true;
        continue;
      }
      out_.edge(id, it->second, label ? DotAttrs{{"label", std::to_string(i)}} : DotAttrs{});
    }
    if (cut) attrs.back().value += "<BR/>" + html_note("more of the graph below is not drawn");
    out_.node(id, attrs);
  }

  DotWriter& out_;
  const std::vector<const Node*>& order_;
  size_t drawn_;
  std::unordered_map<const Node*, std::string> ids_;
};

}  // namespace

std::string autograd_dot(const std::vector<Tensor>& roots) {
  std::vector<const Node*> order = breadth_first(roots, detail::kLayoutBudget + 1);
  size_t drawn = nodes_within_budget(order);
  std::string title = "autograd graph";
  if (drawn < order.size())
    title += " (the " + std::to_string(drawn) + " nodes nearest the outputs; the rest would take Graphviz too long)";
  DotWriter out("autograd", {{"label", title}, {"nodesep", "0.3"}, {"ranksep", "0.35"}});
  AutogradDrawer(out, order, drawn).draw(roots);
  return out.finish();
}

std::string autograd_dot(const Tensor& root) { return autograd_dot(std::vector<Tensor>{root}); }

}  // namespace nabla::viz
