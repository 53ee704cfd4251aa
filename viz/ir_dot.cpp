// Drawing the graph IR (graph_dot) and a pass's before and after (diff_dot).
//
// DOT ids: graph inputs "v<id>", nodes "n<index>", graph outputs "out<k>", each
// with a prefix: "b_"/"a_" for the two sides of a diff, "<node id>_" inside a fused
// node's body. A fused node has no DOT node of its own: it is a cluster, and edges
// run straight from producers outside to the body nodes that read them, and from
// the body nodes that produce its outputs to their readers outside.
#include <algorithm>
#include <map>

#include "graph/control_flow.hpp"
#include "graph/ir_text.hpp"
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
using detail::kLayoutBudget;
using detail::nodes_within_budget;
using graph::Graph;
using graph::Node;
using graph::Value;
using graph::ValueKind;

// How one role looks; css_class is the class tests and style sheets look for.
struct Look {
  const char* css_class;
  const char* shape;
  const char* style;
  const char* fill;
  const char* border;
};
const Look kInputLook{"input", "ellipse", "filled", "#dbeafe", "#1d4ed8"};
const Look kParamLook{"param", "cylinder", "filled", "#dcfce7", "#15803d"};
const Look kConstLook{"const", "note", "filled", "#f3f4f6", "#6b7280"};
// Square corners: the gd renderer (PNG) drops the border of "rounded,filled".
const Look kOpLook{"op", "box", "filled", "#ffffff", "#374151"};
const Look kGraphOpLook{"graph_op", "box", "filled", "#fef3c7", "#b45309"};
const Look kOutputLook{"output", "invhouse", "filled", "#fce7f3", "#be185d"};
const Look kFusedLook{"fused", "", "filled", "#fff7ed", "#c2410c"};

// Nodes and graph inputs a diff highlights on one side, and how.
struct Highlight {
  std::vector<bool> nodes;   // by node index
  std::vector<bool> values;  // by value id (graph inputs only)
  const char* css_class;     // "removed" or "added"
  const char* fill;
  const char* border;
};
const char kRemovedFill[] = "#fecaca", kRemovedBorder[] = "#dc2626";
const char kAddedFill[] = "#bbf7d0", kAddedBorder[] = "#16a34a";

bool marked(const std::vector<bool>& marks, int i) { return i >= 0 && static_cast<size_t>(i) < marks.size() && marks[static_cast<size_t>(i)]; }

// Node (or cluster) attributes of a look, with the highlight when `mark` is set.
DotAttrs look_attrs(const Look& look, const Highlight* hl, bool mark) {
  bool on = hl && mark;
  std::string css = std::string(look.css_class) + (on ? std::string(" ") + hl->css_class : "");
  DotAttrs attrs{{"class", css}, {"style", look.style}, {"fillcolor", on ? hl->fill : look.fill},
                 {"color", on ? hl->border : look.border}, {"penwidth", on ? "2.5" : "1"}};
  if (*look.shape) attrs.push_back({"shape", look.shape});
  return attrs;
}

// ---- labels -----------------------------------------------------------------------

// "%x" for named values (graph inputs), "%5" for node outputs, as print_graph writes them.
std::string value_ref(const Graph& g, int id) {
  const Value& v = g.value(id);
  return "%" + (v.name.empty() ? std::to_string(id) : v.name);
}

// "%5, %6 = max_pool2d"
std::string node_heading(const Graph& g, const Node& n) {
  std::string s;
  for (size_t k = 0; k < n.outputs.size(); ++k) s += (k ? ", " : "") + value_ref(g, n.outputs[k]);
  return (s.empty() ? "" : s + " = ") + n.name();
}

// "kernel_size=[2, 2], stride=[2, 2]", cut short so that a node stays narrow.
std::string attrs_line(const Attrs& attrs) {
  std::string s;
  for (const Attr& a : attrs.items()) s += (s.empty() ? "" : ", ") + a.name + "=" + graph::attr_text(a.value);
  constexpr size_t kMax = 48;
  return s.size() > kMax ? s.substr(0, kMax - 3) + "..." : s;
}

std::string op_label(const Graph& g, const Node& n) {
  std::string label = html_bold(node_heading(g, n));
  if (!n.attrs.items().empty()) label += "<BR/>" + html_note(attrs_line(n.attrs));
  for (int v : n.outputs) label += "<BR/>" + html_escape(graph::meta_str(g.value(v).meta));
  if (!n.origin.empty()) label += "<BR/>" + html_note(n.origin);
  return label;
}

// A one-element constant shows its value ("= 0.5"); bigger ones only their type.
std::string constant_note(const Graph& g, const Value& v) {
  auto it = g.constants.find(v.name);
  if (it == g.constants.end() || !it->second.defined() || it->second.numel() != 1) return "";
  return "= " + graph::number_text(it->second.item());
}

std::string input_label(const Graph& g, const Value& v) {
  const char* kind = v.kind == ValueKind::param ? "param " : v.kind == ValueKind::constant ? "const " : "";
  std::string label = html_bold(value_ref(g, v.id)) + "<BR/>" + html_escape(kind + graph::meta_str(v.meta));
  std::string note = v.kind == ValueKind::constant ? constant_note(g, v) : "";
  return note.empty() ? label : label + "<BR/>" + html_note(note);
}

// The cluster label of a fused node: what it computes, then what it absorbed, one
// op and DSL line per row (left-aligned, so the lines read as a list).
std::string fused_label(const Graph& g, const Node& n) {
  std::string label = html_bold(node_heading(g, n));
  for (int v : n.outputs) label += "<BR/>" + html_escape(graph::meta_str(g.value(v).meta));
  if (n.absorbed.empty()) return label;
  label += "<BR/>" + html_note("absorbed:") + "<BR ALIGN=\"LEFT\"/>";
  for (const std::string& line : n.absorbed) label += html_escape(line) + "<BR ALIGN=\"LEFT\"/>";
  return label;
}

const Look& input_look(ValueKind kind) {
  return kind == ValueKind::param ? kParamLook : kind == ValueKind::constant ? kConstLook : kInputLook;
}

// ---- what of a large graph is drawn (Note [Drawing budget]) ------------------------

// The top-level nodes and graph inputs a drawing holds: all of a small graph; of a
// large one those nearest the outputs (breadth first through the producers) that fit
// the layout budget. A fused node counts as one.
struct DrawnPart {
  std::vector<bool> nodes;   // by node index
  std::vector<bool> inputs;  // by value id
  size_t drawn = 0, total = 0;
};

DrawnPart drawn_part(const Graph& g) {
  // Units: node i is i, graph input value v is nodes.size() + v.
  size_t n_nodes = g.nodes.size();
  auto unit_of = [&](int value) {
    const Value& v = g.value(value);
    return v.kind == ValueKind::op ? static_cast<size_t>(v.node) : n_nodes + static_cast<size_t>(value);
  };
  std::vector<size_t> order;
  std::vector<long> position(n_nodes + g.values.size(), -1);
  auto visit = [&](int value) {
    if (value < 0) return;
    size_t u = unit_of(value);
    if (position[u] >= 0 || order.size() > kLayoutBudget) return;
    position[u] = static_cast<long>(order.size());
    order.push_back(u);
  };
  for (int v : g.outputs) visit(v);
  for (size_t i = 0; i < order.size(); ++i)
    if (order[i] < n_nodes)
      for (int v : g.nodes[order[i]].inputs) visit(v);
  std::vector<std::vector<size_t>> edges(order.size());
  for (size_t i = 0; i < order.size(); ++i)
    if (order[i] < n_nodes)
      for (int v : g.nodes[order[i]].inputs)
        if (v >= 0 && position[unit_of(v)] >= 0) edges[i].push_back(static_cast<size_t>(position[unit_of(v)]));
  DrawnPart part{std::vector<bool>(n_nodes, false), std::vector<bool>(g.values.size(), false), 0,
                 n_nodes + g.inputs.size()};
  part.drawn = nodes_within_budget(edges);
  for (size_t i = 0; i < part.drawn; ++i) {
    if (order[i] < n_nodes) part.nodes[order[i]] = true;
    else part.inputs[order[i] - n_nodes] = true;
  }
  // A graph drawn whole also shows what no output reads (dead inputs and nodes).
  if (part.drawn == order.size() && order.size() <= kLayoutBudget && part.total <= kLayoutBudget) {
    part.nodes.assign(n_nodes, true);
    part.inputs.assign(g.values.size(), true);
    part.drawn = part.total;
  }
  return part;
}

std::string part_title(const std::string& title, const DrawnPart& part) {
  if (part.drawn >= part.total) return title;
  return title + " (the " + std::to_string(part.drawn) + " nodes nearest the outputs, of " +
         std::to_string(part.total) + "; the rest would take Graphviz too long)";
}

// ---- drawing one graph ------------------------------------------------------------

// One graph being drawn: the top level, one side of a diff, or a fused body.
struct Scope {
  const Graph* g = nullptr;
  std::string prefix;
  // A body's inputs are its fused node's inputs: the DOT ids of their producers
  // outside, by position in g->inputs ("" for an absent optional input).
  std::vector<std::string> bound;
  const Highlight* highlight = nullptr;  // top level of a diff side only
  const DrawnPart* part = nullptr;       // top level: what is drawn (null: everything)
};

class IrDrawer {
 public:
  explicit IrDrawer(DotWriter& out) : out_(out) {}

  void draw(const Scope& s) {
    draw_inputs(s);
    for (size_t i = 0; i < s.g->nodes.size(); ++i)
      if (!s.part || s.part->nodes[i]) draw_node(s, static_cast<int>(i));
    draw_outputs(s);
  }

 private:
  bool is_bound(const Scope& s, size_t input_position) const { return input_position < s.bound.size(); }

  // Whether the producer of `value` is in the drawing (a body's values always are).
  static bool drawn(const Scope& s, int value) {
    if (!s.part) return true;
    const Value& v = s.g->value(value);
    return v.kind == ValueKind::op ? s.part->nodes[static_cast<size_t>(v.node)] : s.part->inputs[static_cast<size_t>(value)];
  }

  // The DOT id of the node that produces `value` ("" for an absent input).
  std::string source_of(const Scope& s, int value) const {
    const Value& v = s.g->value(value);
    if (v.kind != ValueKind::op) {
      for (size_t k = 0; k < s.g->inputs.size(); ++k)
        if (s.g->inputs[k] == value && is_bound(s, k)) return s.bound[k];
      return s.prefix + "v" + std::to_string(value);
    }
    const Node& n = s.g->nodes.at(static_cast<size_t>(v.node));
    if (!n.body) return s.prefix + "n" + std::to_string(v.node);
    Scope body = body_scope(s, v.node);
    return source_of(body, n.body->outputs.at(static_cast<size_t>(v.output)));
  }

  Scope body_scope(const Scope& s, int index) const {
    const Node& n = s.g->nodes[static_cast<size_t>(index)];
    Scope body{n.body.get(), s.prefix + "n" + std::to_string(index) + "_", {}, nullptr};
    for (int v : n.inputs) body.bound.push_back(v < 0 || !drawn(s, v) ? "" : source_of(s, v));
    return body;
  }

  void draw_inputs(const Scope& s) {
    for (size_t k = 0; k < s.g->inputs.size(); ++k) {
      if (is_bound(s, k) || !drawn(s, s.g->inputs[k])) continue;
      const Value& v = s.g->value(s.g->inputs[k]);
      DotAttrs attrs = look_attrs(input_look(v.kind), s.highlight, s.highlight && marked(s.highlight->values, v.id));
      attrs.push_back({"label", input_label(*s.g, v), true});
      out_.node(s.prefix + "v" + std::to_string(v.id), attrs);
    }
  }

  void draw_node(const Scope& s, int index) {
    const Node& n = s.g->nodes[static_cast<size_t>(index)];
    bool mark = s.highlight && marked(s.highlight->nodes, index);
    if (n.body) return draw_fused(s, index, mark);
    const Look& look = Graph::table_op(n) ? kOpLook : kGraphOpLook;
    DotAttrs attrs = look_attrs(look, s.highlight, mark);
    bool cut = std::any_of(n.inputs.begin(), n.inputs.end(), [&](int v) { return v >= 0 && !drawn(s, v); });
    attrs.push_back({"label", op_label(*s.g, n) + (cut ? "<BR/>" + html_note("inputs from nodes not drawn") : ""), true});
    std::string id = s.prefix + "n" + std::to_string(index);
    out_.node(id, attrs);
    for (int v : n.inputs)
      if (v >= 0 && drawn(s, v)) draw_edge(s, v, id);
    for (size_t r = 0; r < n.regions.size(); ++r) draw_region(n, id, r);
  }

  // A region of cond, while_loop or scan: a dashed cluster beside its node, labelled
  // with the region, the node and the DSL line it came from; its inputs and yields are
  // its own (regions are closed: the node's operands feed it).
  void draw_region(const Node& n, const std::string& node_id, size_t r) {
    const std::vector<std::string>& labels = graph::region_labels(n.kind);
    std::string label = html_bold((r < labels.size() ? labels[r] : "region") + " of " + n.name());
    if (!n.origin.empty()) label += "<BR/>" + html_note(n.origin);
    std::string id = node_id + "_r" + std::to_string(r);
    out_.begin_cluster(id, {{"class", "region"}, {"style", "dashed"}, {"color", "#6d28d9"}, {"labeljust", "l"},
                            {"fontsize", "10"}, {"label", label, true}});
    draw(Scope{n.regions[r].get(), id + "_", {}, nullptr});
    out_.end_cluster();
  }

  void draw_fused(const Scope& s, int index, bool mark) {
    const Node& n = s.g->nodes[static_cast<size_t>(index)];
    DotAttrs attrs = look_attrs(kFusedLook, s.highlight, mark);
    attrs.push_back({"labeljust", "l"});
    attrs.push_back({"fontsize", "10"});
    attrs.push_back({"label", fused_label(*s.g, n), true});
    out_.begin_cluster(s.prefix + "n" + std::to_string(index), attrs);
    draw_body(body_scope(s, index));
    out_.end_cluster();
  }

  // A body's own nodes; its bound inputs are drawn outside, its yields are not drawn.
  void draw_body(const Scope& body) {
    draw_inputs(body);
    for (size_t i = 0; i < body.g->nodes.size(); ++i) draw_node(body, static_cast<int>(i));
  }

  void draw_outputs(const Scope& s) {
    for (size_t k = 0; k < s.g->outputs.size(); ++k) {
      int v = s.g->outputs[k];
      DotAttrs attrs = look_attrs(kOutputLook, nullptr, false);
      attrs.push_back({"label", html_bold("output " + std::to_string(k)) + "<BR/>" +
                                    html_escape(graph::meta_str(s.g->value(v).meta)), true});
      std::string id = s.prefix + "out" + std::to_string(k);
      out_.node(id, attrs);
      if (drawn(s, v)) draw_edge(s, v, id);
    }
  }

  // An edge for one use of `value`; labelled with the value when its node has
  // several outputs, so the reader can tell which one flows.
  void draw_edge(const Scope& s, int value, const std::string& target) {
    std::string source = source_of(s, value);
    if (source.empty()) return;
    const Value& v = s.g->value(value);
    bool several = v.kind == ValueKind::op && s.g->nodes.at(static_cast<size_t>(v.node)).outputs.size() > 1;
    out_.edge(source, target, several ? DotAttrs{{"label", value_ref(*s.g, value)}} : DotAttrs{});
  }

  DotWriter& out_;
};

DotAttrs graph_attrs(const std::string& title) {
  return {{"label", title}, {"nodesep", "0.3"}, {"ranksep", "0.35"}};
}

// ---- before and after -------------------------------------------------------------

std::string types_key(const Graph& g, const std::vector<int>& values) {
  std::string s;
  for (int v : values) s += (v < 0 ? std::string("none") : graph::meta_str(g.value(v).meta)) + ";";
  return s;
}

// What a node is, for matching across a pass: op, DSL line, input and output types.
std::string node_key(const Graph& g, const Node& n) {
  return n.name() + "|" + n.origin + "|" + types_key(g, n.inputs) + "->" + types_key(g, n.outputs);
}

std::string input_key(const Graph& g, int id) {
  const Value& v = g.value(id);
  return std::to_string(static_cast<int>(v.kind)) + "|" + v.name + "|" + graph::meta_str(v.meta);
}

// The entries of `keys` that have no partner in `others`, each partner used once.
std::vector<bool> unmatched(const std::vector<std::string>& keys, const std::vector<std::string>& others) {
  std::map<std::string, int> available;
  for (const std::string& k : others) ++available[k];
  std::vector<bool> out(keys.size(), false);
  for (size_t i = 0; i < keys.size(); ++i) {
    int& left = available[keys[i]];
    if (left > 0)
      --left;
    else
      out[i] = true;
  }
  return out;
}

std::vector<std::string> node_keys(const Graph& g) {
  std::vector<std::string> keys;
  for (const Node& n : g.nodes) keys.push_back(node_key(g, n));
  return keys;
}

std::vector<std::string> input_keys(const Graph& g) {
  std::vector<std::string> keys;
  for (int id : g.inputs) keys.push_back(input_key(g, id));
  return keys;
}

// The highlight of `side`: what it has that `other` lacks.
Highlight differences(const Graph& side, const Graph& other, const char* css_class, const char* fill,
                      const char* border) {
  Highlight hl{unmatched(node_keys(side), node_keys(other)), std::vector<bool>(side.values.size(), false),
               css_class, fill, border};
  std::vector<bool> inputs = unmatched(input_keys(side), input_keys(other));
  for (size_t k = 0; k < side.inputs.size(); ++k) hl.values[static_cast<size_t>(side.inputs[k])] = inputs[k];
  return hl;
}

int count(const Highlight& hl) {
  int n = 0;
  for (bool b : hl.nodes) n += b;
  for (bool b : hl.values) n += b;
  return n;
}

void draw_side(DotWriter& out, const std::string& id, const std::string& title, const Graph& g,
               const Highlight& hl) {
  DrawnPart part = drawn_part(g);
  out.begin_cluster(id, {{"label", part_title(title, part)}, {"class", id}, {"style", "dashed"}, {"color", "#9ca3af"}});
  IrDrawer(out).draw(Scope{&g, id.substr(0, 1) + "_", {}, &hl, &part});
  out.end_cluster();
}

}  // namespace

std::string graph_dot(const graph::Graph& g) {
  DrawnPart part = drawn_part(g);
  DotWriter out(g.name, graph_attrs(part_title("graph " + g.name, part)));
  IrDrawer(out).draw(Scope{&g, "", {}, nullptr, &part});
  return out.finish();
}

std::string diff_dot(const graph::Graph& before, const graph::Graph& after, const std::string& pass) {
  Highlight removed = differences(before, after, "removed", kRemovedFill, kRemovedBorder);
  Highlight added = differences(after, before, "added", kAddedFill, kAddedBorder);
  std::string name = pass.empty() ? "a pass" : pass;
  std::string title = "before and after " + name + ": " + std::to_string(count(removed)) + " removed, " +
                      std::to_string(count(added)) + " added";
  DotWriter out("diff", graph_attrs(title));
  draw_side(out, "before", "before " + name, before, removed);
  draw_side(out, "after", "after " + name, after, added);
  return out.finish();
}

}  // namespace nabla::viz
