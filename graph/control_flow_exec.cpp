// Running cond, while_loop and scan (See Note [Control-flow regions] in
// graph/control_flow.hpp): each region runs with run_graph, so a scan over n steps
// holds one body's buffers at a time, not n. A region the plan pass planned runs in
// its arena, and a loop keeps that arena and the step's returned buffers from one
// iteration to the next (KeptBuffers): the body's intermediates take the same memory
// at every step. The rows a scan reads and writes are views, never copies of the xs. The
// predicate is read on the host (a device sync on CUDA): per-iteration CUDA graphs
// and conditional nodes are not used yet.
#include "graph/control_flow.hpp"
#include "graph/executor.hpp"
#include "tensor/cpu/copy.hpp"

namespace nabla::graph {

namespace {

// Note [Loop polls] in graph/executor.hpp.
thread_local LoopPoll t_poll = nullptr;
thread_local void* t_poll_context = nullptr;

bool predicate(const Tensor& t) { return t.item() != 0.0; }

TensorList slice(const TensorList& xs, size_t from, size_t count) {
  return TensorList(xs.begin() + static_cast<long>(from), xs.begin() + static_cast<long>(from + count));
}

TensorList concat(TensorList a, const TensorList& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

void copy_all(TensorList& to, size_t at, const TensorList& from) {
  for (size_t k = 0; k < from.size(); ++k) copy_into(to[at + k], from[k]);
}

void run_cond(const Node& n, const TensorList& ins, TensorList& outs) {
  const Graph& region = *n.regions[predicate(ins[0]) ? 0 : 1];
  copy_all(outs, 0, run_graph(region, slice(ins, 1, ins.size() - 1)));
}

// Row `step` of each stacked carry, the outputs from `at` on (stack_carries, trips).
void stack_carries(TensorList& outs, size_t at, const TensorList& carry, int64_t step) {
  for (size_t j = 0; j < carry.size(); ++j) copy_into(row_view(outs[at + j], step), carry[j]);
}

[[noreturn]] void wrong_trips(const Node& n, int64_t trips, const std::string& ran) {
  throw Error("while_loop" + (n.origin.empty() ? std::string() : " at " + n.origin) + ": the loop " + ran +
              ", but its gradient was recorded over " + std::to_string(trips) +
              " (a while loop on a tensor is differentiated over the trip count it had when the graph was captured): "
              "compile the step again for these inputs, or write the loop as a for over range(n)");
}

// Runs a while_loop's iterations, calling each(carried, k) before iteration k;
// returns the final carried values and (in *count) the trip count.
template <class Each>
TensorList iterate_while(const Node& n, const TensorList& ins, int64_t* count, Each&& each) {
  ControlLayout l = control_layout(n);
  TensorList carried = slice(ins, 0, l.carried), invariants = slice(ins, l.carried, l.invariants);
  KeptBuffers cond_kept, body_kept;
  for (*count = 0; predicate(run_graph(*n.regions[0], concat(carried, invariants), &cond_kept)[0]); ++*count) {
    poll_loop_iteration();
    each(carried, *count);
    carried = run_graph(*n.regions[1], concat(carried, invariants), &body_kept);
  }
  return carried;
}

void run_while(const Node& n, const TensorList& ins, TensorList& outs) {
  ControlLayout l = control_layout(n);
  int64_t trips = l.stacks_carries ? n.attrs.i("trips") : -1, count = 0;
  TensorList carried = iterate_while(n, ins, &count, [&](const TensorList& carry, int64_t k) {
    if (trips < 0) return;
    if (k == trips) wrong_trips(n, trips, "runs more than " + std::to_string(trips) + " iterations");
    stack_carries(outs, l.carried, carry, k);
  });
  if (trips >= 0 && count != trips) wrong_trips(n, trips, "ran " + std::to_string(count) + " iterations");
  copy_all(outs, 0, carried);
}

void run_scan(const Node& n, const TensorList& ins, TensorList& outs) {
  ControlLayout l = control_layout(n);
  TensorList carry = slice(ins, 0, l.carried), xs = slice(ins, l.carried, l.scanned);
  TensorList invariants = slice(ins, l.carried + l.scanned, l.invariants);
  KeptBuffers kept;
  for (int64_t i = 0; i < l.length; ++i) {
    poll_loop_iteration();
    int64_t step = l.reverse ? l.length - 1 - i : i;
    TensorList rows;
    for (const Tensor& x : xs) rows.push_back(row_view(x, step));
    if (l.stacks_carries) stack_carries(outs, outs.size() - l.carried, carry, step);
    TensorList results = run_graph(*n.regions[0], concat(concat(carry, rows), invariants), &kept);
    carry = slice(results, 0, l.carried);
    for (size_t j = l.carried; j < results.size(); ++j) copy_into(row_view(outs[j], step), results[j]);
  }
  copy_all(outs, 0, carry);
}

}  // namespace

LoopPollScope::LoopPollScope(LoopPoll poll, void* context) : saved_poll_(t_poll), saved_context_(t_poll_context) {
  t_poll = poll;
  t_poll_context = context;
}

LoopPollScope::~LoopPollScope() {
  t_poll = saved_poll_;
  t_poll_context = saved_context_;
}

void poll_loop_iteration() {
  if (t_poll) t_poll(t_poll_context);
}

Tensor row_view(const Tensor& t, int64_t k) {
  Shape sizes(t.sizes().begin() + 1, t.sizes().end());
  Shape strides(t.strides().begin() + 1, t.strides().end());
  return make_view(t, sizes, strides, t.offset() + k * t.strides()[0]);
}

int64_t while_trips(const Node& n, const TensorList& ins) {
  int64_t count = 0;
  iterate_while(n, ins, &count, [](const TensorList&, int64_t) {});
  return count;
}

void run_control_flow(const Node& n, const TensorList& ins, TensorList& outs) {
  switch (n.kind) {
    case NodeKind::cond: return run_cond(n, ins, outs);
    case NodeKind::while_loop: return run_while(n, ins, outs);
    case NodeKind::scan: return run_scan(n, ins, outs);
    default: throw Error("graph executor: " + n.name() + " is not a control-flow op");
  }
}

}  // namespace nabla::graph
