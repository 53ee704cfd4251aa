// Drawing with Graphviz, in-process: DOT text for a graph of the IR, for a pass's
// before and after, for the eager autograd graph of tensors and for a memory plan;
// render() lays DOT out with cgraph + gvc (no `dot` binary, no plugin config) and
// writes .dot, .svg or .png. viz/ reads graphs and autograd nodes and never changes
// them; nothing in tensor/, autograd/ or passes/ includes it. A nabla built without
// Graphviz (NABLA_GRAPHVIZ=OFF) still makes and writes DOT; SVG and PNG are then an
// Error that says so (graphviz_available() tells beforehand).
//
// Every drawing gives each element a CSS class that says what it is, which SVG
// output keeps (`<g class="node input">`), so tests and style sheets can find them:
//   IR nodes        input, param, const, op, graph_op (a graph-level op such as
//                   "conv2d_act"), output; fused clusters: fused
//   before/after    removed, added (on nodes and on fused clusters)
//   autograd        root, fn (a backward node), leaf (AccumulateGrad), freed
//                   (saved tensors already released)
//   memory plan     plan
#pragma once
#include <string>
#include <vector>

#include "graph/buffer_use.hpp"
#include "graph/ir.hpp"
#include "tensor/tensor.hpp"

namespace nabla::viz {

// One node per IR node ("%3 = linear", its attributes, output types, DSL line), one
// per graph input (inputs, parameters and constants styled apart) and one per graph
// output; an edge per use of a value. A fused node (Node::body set) is a cluster
// labelled with the ops and DSL lines it absorbed, its body's nodes inside.
std::string graph_dot(const graph::Graph& g);

// `before` and `after` a pass, side by side as two clusters. Nodes are matched by
// (op, origin, input types, output types) and graph inputs by (kind, name, type),
// in order, each match used once: a node of `before` left unmatched is drawn as
// removed, one of `after` as added. `pass` names the pass in the title.
std::string diff_dot(const graph::Graph& before, const graph::Graph& after, const std::string& pass = "");

// The backward graph behind `roots`: their grad_fn nodes and everything reachable
// through next_edges, down to the AccumulateGrad nodes of leaves. Arrows point the
// way gradients flow (from a node to its next edges). A gradient computed with
// create_graph=true has a graph of its own, drawn the same way.
std::string autograd_dot(const std::vector<Tensor>& roots);
std::string autograd_dot(const Tensor& root);

// A memory plan as a table: one row per slot, one column per step, each buffer a
// cell spanning its lifetime, coloured by slot. Buffers of one slot whose lifetimes
// overlap (a planner bug) go on extra rows marked "overlap". `step_labels[i]`, when
// given, names step i in the header ("3 relu"). Invalid entries (negative slot or
// step, last_step < first_step, negative bytes) are errors naming the buffer.
std::string memory_plan_dot(const std::vector<graph::BufferUse>& plan, const std::vector<std::string>& step_labels = {},
                            const std::string& title = "memory plan");

// Lays `dot_text` out with dot and returns it as `format`: "svg" (text), "png"
// (bytes), or "dot" (the text itself, once it parses). Graphviz's own complaints
// (a syntax error, a bad label) are nabla::Error with its message.
std::string render_data(const std::string& dot_text, const std::string& format);
// Writes render_data(dot_text, format) to `path`, the format named by the extension
// (.dot or .gv, .svg, .png). Writes a temporary file beside `path` and renames it,
// so a failure never leaves a partial file; errors name the path and the reason.
void render(const std::string& dot_text, const std::string& path);
// Whether PNG output works here (Graphviz's gd plugin could be loaded), and if not, why.
bool png_available(std::string* why_not = nullptr);
// Whether this nabla was built with Graphviz, so that SVG (and PNG, see png_available)
// can be laid out; if not, why_not gets the message that render() gives.
bool graphviz_available(std::string* why_not = nullptr);

}  // namespace nabla::viz
