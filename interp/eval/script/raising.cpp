// Note [A failing side of a lowered if]: the raise node of a side that fails (regions.hpp
// declares these; choice.cpp and conditional.cpp lower the sides).
#include "autograd/ops.hpp"
#include "autograd/trace.hpp"
#include "graph/executor.hpp"
#include "graph/rewrite.hpp"
#include "interp/eval/script/regions.hpp"

namespace nabla::interp::script {

// Note [A failing side of a lowered if]
// `if x.sum() > 0 { h = h * 2 } else { fail("negative input") }` (or an assert() that
// fails there, or `h if h.sum() > 0 else fail("...")`, or a lowered while's body the
// example never enters) raises in eager only in a call that takes the failing side. Script mode
// runs both sides once, on the example's values, so the error made the whole capture
// fail even when the example never takes that side. Now an error the program raised
// itself (fail(), assert(): LangError::raised) in a side the example's run does not
// take (ScriptMode::live: this side and every enclosing one taken) makes that side a
// region of one `raise` node: a custom node that yields zeros of the other side's
// outputs' types and whose kernel throws the error, located at the fail() or assert()
// line, in a call that runs that side. Where the example takes it, it is eager's
// error and the capture stops with it; where both sides raise, the enclosing side
// raises. A raise node has an effect (graph/rewrite.hpp's side_effect), so no pass
// folds, merges or drops it or a node holding it, and the VJP of its side (never
// run: the forward raised) yields zeros. What the side ran before the error (a
// print, a write) is not replayed: the call ends with the error, whose message is the
// one the capture built. Other errors (a shape mismatch, a refusal to lower) still
// fail the capture at their line; so does a message that formats a value the graph computes or
// takes (fail(f"row {t} of {h.sum()}"), the function's input, a loop's index or counter):
// the raise node could only repeat the capture's number, where eager shows the call's
// (graph/capture.cpp's on_value_read reads through the enclosing captures).
// The error lives in the raise node (graph::Node::payload), shared by the copies that
// passes and compiled modules make, and freed with the last graph holding it: a static
// list of them, as before, grew by one per capture, for good.
namespace {

void raise_kernel(const graph::Node& n, const TensorList&, TensorList& outs) {
  if (graph::QuietRaises::active()) {
    for (Tensor& t : outs) zero_(t);
    return;
  }
  if (!n.payload)
    throw Error("graph executor: a raise node (" + n.origin + ") without its error: one read back from IR text");
  LangError e = *std::static_pointer_cast<const LangError>(n.payload);
  if (e.trace.size() > 1) e.trace.resize(1);  // the capture's frames past the side's are not this call's
  throw e;
}

}  // namespace

bool side_taken(const Tensor& pred, bool then_side) {
  UnobservedScope quiet;
  return (pred.item() != 0.0) == then_side;
}

int keep_raised(ScriptMode& s, const LangError& e) {
  s.raised.push_back(e);
  return static_cast<int>(s.raised.size()) - 1;
}

const LangError& raised_error(const ScriptMode& s, int id) { return s.raised.at(static_cast<size_t>(id)); }

TensorList raise_node(ScriptMode& s, Capture& region, int id, const TensorList& like) {
  if (!graph::has_graph_op("raise")) graph::register_graph_op("raise", raise_kernel);
  TensorList outs;
  {
    UnobservedScope quiet;  // stand-ins for what the side never yields
    for (const Tensor& t : like) outs.push_back(zeros(t.sizes(), t.dtype(), t.device()));
  }
  const LangError& e = raised_error(s, id);
  graph::Node head = graph::Node::named("raise");
  head.payload = std::make_shared<const LangError>(e);
  region.add_region_node(std::move(head), {}, Attrs{}, {}, outs, e.located ? e.span.where() : std::string());
  return outs;
}

}  // namespace nabla::interp::script
