// Drawing the eager autograd graph behind tensors (autograd_dot): the roots, their
// grad_fn nodes, everything reachable through next_edges, and the AccumulateGrad
// nodes of leaves. It only reads the graph: it never makes a leaf's accumulator
// (gradient_edge would), so drawing a graph does not change it.
#include <deque>
#include <map>

#include "autograd/node.hpp"
#include "passes/ir.hpp"
#include "viz/dot_writer.hpp"
#include "viz/graphviz.hpp"

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

// Assigns "f<k>" ids in breadth-first order from the roots, so the same graph
// always gives the same text.
class AutogradDrawer {
 public:
  explicit AutogradDrawer(DotWriter& out) : out_(out) {}

  void draw(const std::vector<Tensor>& roots) {
    for (size_t k = 0; k < roots.size(); ++k) draw_root(roots[k], k);
    while (!pending_.empty()) {
      const Node* node = pending_.front();
      pending_.pop_front();
      draw_node(*node);
    }
  }

 private:
  void draw_root(const Tensor& t, size_t k) {
    std::string id = detail::numbered("t", static_cast<long long>(k));
    out_.node(id, {{"class", "root"},
                   {"shape", "box"},
                   {"fillcolor", "#dcfce7"},
                   {"color", "#15803d"},
                   {"label", root_label(t, k), true}});
    if (t.defined() && t.grad_fn()) out_.edge(id, id_of(t.grad_fn().get()), {{"style", "dashed"}});
  }

  // The node's id, queueing it the first time it is seen.
  std::string id_of(const Node* node) {
    auto [it, inserted] = ids_.emplace(node, detail::numbered("f", static_cast<long long>(ids_.size())));
    if (inserted) pending_.push_back(node);
    return it->second;
  }

  void draw_node(const Node& node) {
    std::string id = ids_.at(&node);
    out_.node(id, node_attrs(node));
    // With several next edges, a label says which input of the forward op each feeds.
    bool label = node.next_edges.size() > 1;
    for (size_t i = 0; i < node.next_edges.size(); ++i) {
      const Edge& e = node.next_edges[i];
      if (!e.valid()) continue;
      std::string target = id_of(e.fn.get());
      out_.edge(id, target, label ? DotAttrs{{"label", std::to_string(i)}} : DotAttrs{});
    }
  }

  DotWriter& out_;
  std::map<const Node*, std::string> ids_;
  std::deque<const Node*> pending_;
};

}  // namespace

std::string autograd_dot(const std::vector<Tensor>& roots) {
  DotWriter out("autograd", {{"label", "autograd graph"}, {"nodesep", "0.3"}, {"ranksep", "0.35"}});
  AutogradDrawer(out).draw(roots);
  return out.finish();
}

std::string autograd_dot(const Tensor& root) { return autograd_dot(std::vector<Tensor>{root}); }

}  // namespace nabla::viz
