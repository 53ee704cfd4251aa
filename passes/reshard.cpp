// FSDP's schedule in a compiled training step: where the gathers go (the prefetch:
// Note [Gathers one unit early], below), and resharding after the forward (ZeRO-3): a
// dist_shard_gather marked reshard=true whose parameters the backward reads again is
// gathered a second time just before the backward's first read, so that the plan
// frees the forward's copy after the forward's last read instead of keeping every
// unit's whole parameters alive until the backward.
//
// Note [Gathering again for the backward]
// A training step's graph returns the loss first (compile(..., train=true)), and its
// forward is what the loss depends on: a node that the first output does not depend
// on belongs to the backward (a gradient, or an update such as BatchNorm's running
// statistics). The parameters of an FSDP unit reach its ops through views of the
// gathered vector (slice, reshape, sometimes a transpose), and the backward reads
// those views (a linear's input gradient reads the weight). For each gather marked
// reshard=true the pass collects the values made from its result by view nodes, and
// the reads of them by other nodes. When every backward read comes after every
// forward read, the gather and the views the backward reads are copied to just
// before the first backward read, and the backward reads the copies. The copy is a
// collective like the original, placed at the same point of the graph on every
// rank, so the ranks still make the same calls in the same order. Where a backward
// read comes before the last forward read (a recomputation inside the forward), the
// gather is kept as it is, and the note says so. sharding="grad_op" (ZeRO-2) marks
// its gathers reshard=false: they are kept from the forward to the backward.
#include <algorithm>
#include <map>
#include <set>

#include "graph/rewrite.hpp"
#include "passes/passes.hpp"

namespace nabla::graph {

namespace {

// Per node: whether the graph's first output depends on it (the forward of a step).
std::vector<bool> feeds_first_output(const Graph& g) {
  std::vector<int> maker(g.values.size(), -1);
  for (size_t i = 0; i < g.nodes.size(); ++i)
    for (int v : g.nodes[i].outputs) maker[static_cast<size_t>(v)] = static_cast<int>(i);
  std::vector<bool> feeds(g.nodes.size(), false);
  std::vector<int> todo = {g.outputs[0]};
  while (!todo.empty()) {
    int v = todo.back();
    todo.pop_back();
    int m = v < 0 ? -1 : maker[static_cast<size_t>(v)];
    if (m < 0 || feeds[static_cast<size_t>(m)]) continue;
    feeds[static_cast<size_t>(m)] = true;
    for (int in : g.nodes[static_cast<size_t>(m)].inputs) todo.push_back(in);
  }
  return feeds;
}

// One gather to copy: where the copy goes, the view nodes the backward needs, the
// nodes that read the copies.
struct Regather {
  size_t gather = 0;
  size_t before = 0;                  // the first backward read
  std::vector<size_t> views;          // view nodes (in order) whose results the backward reads, or their views
  std::set<size_t> readers;           // backward nodes that read the gathered value or its views
  std::set<int> values;               // the gathered value and its views
};

class Reshard {
 public:
  explicit Reshard(Graph& g, const PassContext& ctx) : g_(g), ctx_(ctx) {}

  PassResult run() {
    if (g_.outputs.empty()) return {};
    std::vector<bool> forward = feeds_first_output(g_);
    for (size_t i = 0; i < g_.nodes.size(); ++i) {
      const Node& n = g_.nodes[i];
      if (n.op != OpId::dist_shard_gather || !n.attrs.has("reshard") || !n.attrs.b("reshard")) continue;
      plan(i, forward);
    }
    if (regathers_.empty()) return std::move(r_);
    rebuild();
    return std::move(r_);
  }

 private:
  void plan(size_t gather, const std::vector<bool>& forward) {
    Regather rg;
    rg.gather = gather;
    rg.values.insert(g_.nodes[gather].outputs[0]);
    std::vector<size_t> views;
    int64_t last_forward = -1;
    for (size_t j = gather + 1; j < g_.nodes.size(); ++j) {
      const Node& n = g_.nodes[j];
      bool reads = std::any_of(n.inputs.begin(), n.inputs.end(), [&](int v) { return rg.values.count(v) > 0; });
      if (!reads) continue;
      if (is_view_node(n) && n.inputs[0] >= 0 && rg.values.count(n.inputs[0])) {
        views.push_back(j);
        rg.values.insert(n.outputs.begin(), n.outputs.end());
        continue;
      }
      if (forward[j]) last_forward = static_cast<int64_t>(j);
      else rg.readers.insert(j);
    }
    std::string what = describe_node(g_, g_.nodes[gather]);
    if (rg.readers.empty()) return note(what + ": kept; the backward does not read it");
    rg.before = *rg.readers.begin();
    if (static_cast<int64_t>(rg.before) < last_forward)
      return note(what + ": kept; the backward reads it at " + describe_node(g_, g_.nodes[rg.before]) +
                  ", before the forward's last read at " + describe_node(g_, g_.nodes[static_cast<size_t>(last_forward)]));
    rg.views = needed_views(views, rg);
    note(what + ": gathered again before the backward's first read (" + describe_node(g_, g_.nodes[rg.before]) +
         "); the forward's copy is freed after its last read");
    regathers_.push_back(std::move(rg));
  }

  // The view nodes whose results the backward's readers read, and the views those
  // are made from (walking back from the readers' inputs).
  std::vector<size_t> needed_views(const std::vector<size_t>& views, const Regather& rg) const {
    std::map<int, size_t> made_by;
    for (size_t j : views)
      for (int v : g_.nodes[j].outputs) made_by[v] = j;
    std::set<size_t> needed;
    std::vector<int> todo;
    for (size_t j : rg.readers)
      for (int v : g_.nodes[j].inputs)
        if (made_by.count(v)) todo.push_back(v);
    while (!todo.empty()) {
      auto it = made_by.find(todo.back());
      todo.pop_back();
      if (it == made_by.end() || !needed.insert(it->second).second) continue;
      todo.push_back(g_.nodes[it->second].inputs[0]);
    }
    return {needed.begin(), needed.end()};
  }

  // The nodes again in order, each gather's copy and its views before its first
  // backward read, and the readers reading the copies.
  void rebuild() {
    std::vector<Node> before = std::move(g_.nodes);
    g_.nodes.clear();
    std::map<int, int> copied;  // original value -> its copy, for the readers
    for (size_t i = 0; i < before.size(); ++i) {
      for (const Regather& rg : regathers_)
        if (rg.before == i) copy_gather(before, rg, copied);
      Node n = before[i];  // a copy: a later gather's copy reads its original
      for (int& v : n.inputs) {
        auto it = copied.find(v);
        if (v >= 0 && it != copied.end() && reads_copy(i)) v = it->second;
      }
      g_.nodes.push_back(std::move(n));
    }
    g_.compact(std::vector<bool>(g_.nodes.size(), false));  // renumbers the values' defining nodes
    r_.changes += static_cast<int>(regathers_.size());
  }

  bool reads_copy(size_t node) const {
    return std::any_of(regathers_.begin(), regathers_.end(), [&](const Regather& rg) { return rg.readers.count(node) > 0; });
  }

  void copy_gather(const std::vector<Node>& nodes, const Regather& rg, std::map<int, int>& copied) {
    std::map<int, int> local;
    auto add_copy = [&](const Node& n, Attrs attrs) {
      std::vector<int> ins;
      for (int v : n.inputs) ins.push_back(local.count(v) ? local[v] : v);
      std::vector<TensorMeta> metas;
      for (int v : n.outputs) metas.push_back(g_.value(v).meta);
      int k = g_.add_node(n.operation(), ins, std::move(attrs), metas, n.origin);
      for (size_t j = 0; j < n.outputs.size(); ++j) local[n.outputs[j]] = g_.nodes[static_cast<size_t>(k)].outputs[j];
    };
    Attrs once = nodes[rg.gather].attrs;
    once.set("reshard", false);  // the copy stays where it is (and the pass stays idempotent)
    add_copy(nodes[rg.gather], once);
    for (size_t j : rg.views) add_copy(nodes[j], nodes[j].attrs);
    for (auto& [from, to] : local) copied[from] = to;
  }

  void note(const std::string& s) {
    if (ctx_.explain) r_.notes.push_back(s);
  }

  Graph& g_;
  const PassContext& ctx_;
  PassResult r_;
  std::vector<Regather> regathers_;
};

// Note [Gathers one unit early]
// A gather of the graph's inputs runs on the collective queue's thread, and the run
// waits for it only where its result is first read (Note [Collectives in a graph
// run] in graph/collective_runs.hpp). So each gather is issued where the unit before
// it (the gather before it in the same phase: forward, or the backward's gathers
// again) starts, just before that gather's first reader: it then runs while that
// unit computes, as eager FSDP's prefetch. The first gather of each phase stays. A
// gather already before that point stays (so the pass is idempotent), and so does one
// that would pass a write into its input.
class IssueEarly {
 public:
  IssueEarly(Graph& g, PassResult& r, const PassContext& ctx) : g_(g), r_(r), ctx_(ctx) {}

  void run() {
    std::vector<bool> forward = feeds_first_output(g_);
    roots_ = storage_roots(g_);
    std::map<size_t, std::vector<size_t>> before_node;  // target -> gathers issued just before it
    std::set<size_t> moved;
    int64_t previous[2] = {-1, -1};  // the last gather of the backward, of the forward
    for (size_t i = 0; i < g_.nodes.size(); ++i) {
      const Node& n = g_.nodes[i];
      if (n.op != OpId::dist_shard_gather || !reads_only_inputs(n)) continue;
      int64_t& prev = previous[forward[i] ? 1 : 0];
      if (prev >= 0) {
        size_t target = first_reader(static_cast<size_t>(prev));
        if (target < i && !written_between(n, target, i)) {
          before_node[target].push_back(i);
          moved.insert(i);
          if (ctx_.explain)
            r_.notes.push_back(describe_node(g_, n) + ": issued at " + describe_node(g_, g_.nodes[target]) +
                               ", where the unit before it starts, so that it runs while that unit computes");
        }
      }
      prev = static_cast<int64_t>(i);
    }
    if (moved.empty()) return;
    std::vector<Node> nodes = std::move(g_.nodes);
    g_.nodes.clear();
    for (size_t i = 0; i < nodes.size(); ++i) {
      auto it = before_node.find(i);
      if (it != before_node.end())
        for (size_t k : it->second) g_.nodes.push_back(nodes[k]);
      if (!moved.count(i)) g_.nodes.push_back(nodes[i]);
    }
    g_.compact(std::vector<bool>(g_.nodes.size(), false));
    r_.changes += static_cast<int>(moved.size());
  }

 private:
  bool reads_only_inputs(const Node& n) const {
    return std::all_of(n.inputs.begin(), n.inputs.end(),
                       [&](int v) { return v < 0 || g_.value(v).kind != ValueKind::op; });
  }

  // The first node after node p that reads p's result.
  size_t first_reader(size_t p) const {
    int out = g_.nodes[p].outputs[0];
    for (size_t j = p + 1; j < g_.nodes.size(); ++j)
      for (int v : g_.nodes[j].inputs)
        if (v == out) return j;
    return g_.nodes.size();
  }

  // Whether a node in [from, to) writes into what gather n reads.
  bool written_between(const Node& n, size_t from, size_t to) const {
    for (size_t j = from; j < to; ++j)
      for (size_t k : written_inputs(g_.nodes[j]))
        for (int v : n.inputs)
          if (v >= 0 && roots_[static_cast<size_t>(g_.nodes[j].inputs[k])] == roots_[static_cast<size_t>(v)])
            return true;
    return false;
  }

  Graph& g_;
  PassResult& r_;
  const PassContext& ctx_;
  std::vector<int> roots_;  // storage_roots of the graph before the moves
};

PassResult run_reshard(Graph& g, const PassContext& ctx) {
  PassResult r = Reshard(g, ctx).run();
  IssueEarly(g, r, ctx).run();
  return r;
}

}  // namespace

PassInfo reshard_pass() {
  return {"reshard",
          "gather again for the backward (FSDP's sharding=\"full\" in a compiled step) each dist_shard_gather marked "
          "reshard=true, so its forward copy is freed after the forward; issue each gather where the unit before it "
          "starts, so that it runs while that unit computes",
          {}, run_reshard, /*retypes=*/false, /*top_level_only=*/true};
}

}  // namespace nabla::graph
