// Capture (docs/DESIGN.md seam 4): eager code runs under an OpObserver while a Capture
// records each op-table call as a node of a Graph. Tensors are matched to graph
// values by identity; a tensor that no recorded op made is a bound input or
// parameter, an alias of a known value (same storage and layout: detach, saved
// outputs), a tensor that existed before the capture (bound live as a "free"
// parameter), or else a constant captured by value. An in-place write into a parameter
// or buffer (BatchNorm's num_batches_tracked) is recorded as a "copy_" node, which
// the executor replays in order; one into a tensor the run made becomes an
// out-of-place value (Note [Functional writes]). Reading a traced tensor's values into
// the program (item(), printing, a branch) or writing into a caller's tensor in place
// cannot be replayed by a graph: those are collected as problems, each with its DSL
// line.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "autograd/trace.hpp"
#include "graph/ir.hpp"

namespace nabla::graph {

struct CaptureProblem {
  std::string what;    // "item() reads the value of %12 (made by matmul at m.dsl:3:9)"
  std::string origin;  // the DSL line where it happened, may be empty
};

class Capture : public OpObserver {
 public:
  explicit Capture(std::string graph_name);
  // The capture of a control-flow region inside `parent` (script mode lowering `if`,
  // `for`, `while`; graph/control_flow.hpp): a tensor the region reads that existed
  // before it started becomes a region input, and the parent's value of it an operand
  // of the node (captured()); tensors made in the region are its own.
  Capture(std::string graph_name, Capture* parent);
  ~Capture() override;
  Capture(const Capture&) = delete;
  Capture& operator=(const Capture&) = delete;

  // Graph inputs, bound before the run: values given at each call (input) or live
  // tensors of the model (param: parameters and buffers).
  int bind_input(const Tensor& t, const std::string& name);
  int bind_param(const Tensor& t, const std::string& name);

  // Installs this capture as the thread's observer until stop() (or destruction).
  void start();
  void stop();

  // The graph that returns `outputs` (made by recorded ops, inputs or constants).
  Graph finish(const TensorList& outputs);
  const std::vector<CaptureProblem>& problems() const { return problems_; }
  void add_problem(CaptureProblem p) { problems_.push_back(std::move(p)); }

  // Script mode's way in (interp/ lowers control flow with these).
  // The graph value of t, bound as any tensor the recorded ops read would be.
  int value_id(const Tensor& t) { return value_of(t); }
  // Whether t's value varies between calls (made by a recorded op, an input or a
  // parameter): a branch on it must be lowered, not read.
  bool traced(const Tensor& t) const;
  // Whether t's values are the same at every call (made from constants by ops that
  // draw nothing), so that reading them on the host bakes in nothing that varies.
  bool fixed_values(const Tensor& t) const;
  // A region capture's inputs taken from the parent, after its bound inputs: the
  // parent's value id and tensor of each, in signature order.
  const std::vector<std::pair<int, Tensor>>& captured() const { return captured_; }
  // Whether the run wrote into t's storage in place (Note [Functional writes]).
  bool written_in_place(const Tensor& t) const {
    auto w = written_.find(t.storage().get());
    return w != written_.end() && w->second.version > 0;
  }
  // A region capture's copies[k] (a bound input) stands for outers[k], the tensor of a
  // variable the region writes in place: the other tensors on its memory read inside the
  // region are read from the copy, and a variable whose memory another one's copy
  // already stands for gets a view of that copy instead (copies[k] is replaced). Note
  // [Aliases of a variable written in place], graph/capture_writes.cpp. alias_read:
  // whether such a read of the memory `copy` stands for happened.
  void alias_storages(const TensorList& outers, TensorList& copies);
  // `gathered` holds what eager's view of `of` would (x[i] with a 0-dim tensor i, taken
  // by ops so that it replays for any i): a write into it, or a read of it after `of` is
  // written, would differ from eager's view, so each is a problem (Note [A view taken
  // with a tensor index], graph/capture_writes.cpp). `view`: what the program holds (the
  // gathered tensor or a view of it); a write that covers all of it is a write into `of`
  // at the same positions, which `write_through(value)` makes by ops.
  void dynamic_view(const Tensor& gathered, const Tensor& of, const Tensor& view = Tensor(),
                    std::function<void(const Tensor&)> write_through = {});
  bool alias_read(const Tensor& copy) const;
  // Whether stop - start is the same at every call: each is the same value plus or
  // minus numbers fixed in the graph (t and t + 3, i - 1 and i + w with w a number).
  // Note [A window a graph replays], interp/values/indexing.cpp.
  bool fixed_distance(const Tensor& start, const Tensor& stop);
  // finish() for a region capture: the region's graph; its problems become the
  // parent's, and a tensor made inside it that the parent later reads is a problem
  // (it escaped the region other than as one of its outputs).
  std::shared_ptr<Graph> finish_region(const TensorList& outputs);
  // Note [Tensors a lowered region's calls write] (graph/capture_writes.cpp): the
  // tensors made before a region capture that its run wrote in place other than
  // through what the region carries (BatchNorm's running statistics, written inside
  // the layer the body calls), each all of its memory; each is a problem when the
  // region finishes unless adopted (the region is lowered again, carrying it).
  struct OuterWrite {
    Tensor tensor;
    CaptureProblem problem;  // what wrote it, and where
  };
  const std::vector<OuterWrite>& outer_writes() const { return outer_writes_; }
  void adopt_outer_write(const Tensor& t);
  // The outermost capture's name for t if it is a parameter or buffer there
  // ("bn.running_mean", "free2"), or "".
  std::string name_of(const Tensor& t) const;
  // Records a node with regions (cond, while_loop, scan) whose results are `outputs`.
  int add_region_node(Node head, std::vector<int> inputs, Attrs attrs, std::vector<std::shared_ptr<Graph>> regions,
                      const TensorList& outputs, const std::string& origin);
  // Tensors that no op made, that existed before start() and were not bound: bound as
  // params named "free<k>" (weights and buffers a function closes over). Their live
  // tensors, in order.
  const TensorList& free_params() const { return free_params_; }
  // Note [Flags a compiled function sets] (capture.cpp): the requires_grad flags the
  // run set, outside any lowered region, on tensors made before it, in order.
  struct FlagChange {
    Tensor tensor;
    bool requires_grad = false;
  };
  const std::vector<FlagChange>& flag_changes() const { return flag_changes_; }

  void on_op(const OpDef& def, const TensorList& inputs, const Attrs& attrs, const TensorList& outputs) override;
  void on_value_read(const Tensor& t, const std::string& what) override;
  void on_inplace(const Tensor& dst, const Tensor& src, const std::string& what) override;
  void on_untraced_effect(const std::string& what) override;
  void on_flag_change(const Tensor& t, const std::string& what) override;
  void before_write(const Tensor& t) override;

 private:
  int value_of(const Tensor& t);
  int known(const Tensor& t) const;  // -1 when t is neither recorded nor an alias
  int remember(const Tensor& t, int id);
  // Note [No-grad blocks inside a lowered region]: node's outputs taken through detach.
  void stop_gradients(const TensorList& outputs, int node);
  int capture_from_parent(const Tensor& t);
  void finish_graph(const TensorList& outputs);  // finish() but for verifying
  std::string describe(int id) const;
  bool fixed(int id) const;
  int offset_base(int id) const;  // id less the fixed numbers added to or taken from it
  void keep_before_write(const Tensor& t);
  void restore_writes();
  // Note [Functional writes] (graph/capture_writes.cpp): in-place writes into tensors
  // the capture's run made become out-of-place values; every tensor on the written
  // storage is read anew from its base.
  struct Written {
    Tensor base;           // the whole, contiguous tensor that owns the storage
    uint64_t version = 0;  // functional writes into it so far
  };
  bool current(const Tensor& t) const;   // t's id is not from before a later write
  int known_or_base(const Tensor& t) const;  // known(t), or its written storage's base
  Tensor base_of(const Tensor& dst) const;   // the whole tensor on dst's storage, if mapped
  bool functional_base(const Tensor& base) const;
  Tensor value_after_write(const Tensor& dst, const Tensor& src, const Tensor& base);
  void write_functionally(const Tensor& dst, const Tensor& src, const Tensor& base);
  void write_into_param(const Tensor& dst, const Tensor& src, const Tensor& base, int param);  // Note [A write into part of a parameter]
  int regenerate(const Tensor& t);
  void rebind_written(const Tensor& base, int id);  // base's storage now holds value id
  std::vector<OuterWrite> outer_writes_;  // Note [Tensors a lowered region's calls write]
  std::vector<std::pair<Tensor, Tensor>> outer_before_;  // (tensor, its contents before the region wrote it)
  const Capture& root() const { return parent_ ? parent_->root() : *this; }
  bool adoptable(const Tensor& t) const;
  void keep_outer_before(const Tensor& t);
  void note_outer_write(const Tensor& t, const std::string& what);
  void restore_outer_writes();
  std::vector<size_t> region_written_inputs(const OpDef& def, const TensorList& inputs, const Attrs& attrs) const;
  int fresh_written_input(const Tensor& t, const std::string& what);  // -1 (and a problem) for a part of the memory
  std::string refusal(const Tensor& dst, const Tensor& base, const std::string& what) const;

  Graph graph_;
  std::unordered_map<const TensorImpl*, int> ids_;
  TensorList alive_;  // every mapped tensor, so no address is reused during the capture
  // For each storage, the mapped tensors on it (indices into alive_): aliases are
  // found among these, not by a scan of every tensor.
  std::unordered_map<const Storage*, std::vector<size_t>> on_storage_;
  TensorList free_params_;
  std::vector<FlagChange> flag_changes_;
  std::vector<CaptureProblem> problems_;
  Capture* parent_ = nullptr;                       // region captures only
  // A region traced with gradients on, and whether the ops recorded now are a write's
  // own (Note [No-grad blocks inside a lowered region]).
  bool differentiated_ = false, writing_ = false;
  // Marks the ops of a write made as values (value_after_write, regenerate): they run
  // without gradients, eager's autograd recording the write itself, but carry them.
  class WritingScope {
   public:
    explicit WritingScope(Capture& c) : c_(c), was_(c.writing_) { c.writing_ = true; }
    ~WritingScope() { c_.writing_ = was_; }
    WritingScope(const WritingScope&) = delete;
    WritingScope& operator=(const WritingScope&) = delete;

   private:
    Capture& c_;
    bool was_;
  };
  std::vector<std::pair<int, Tensor>> captured_;    // region captures only, see captured()
  std::vector<std::pair<uint64_t, uint64_t>> region_serials_;  // tensor serials of finished regions
  // Note [Capturing writes]: what the capture's own run overwrote in tensors that
  // existed before it, (tensor, its earlier contents), put back when it ends.
  std::vector<std::pair<Tensor, Tensor>> overwritten_;
  std::unordered_map<const Storage*, Written> written_;
  std::unordered_map<const TensorImpl*, uint64_t> bound_at_;  // the write count its id was taken at
  // Note [Aliases of a variable written in place]: outer memory -> the storage of the
  // copy that stands for it, and whether the region read it; memory only part of which
  // a copy stands for (a view written in place), whose other readers are refused.
  struct Alias {
    Tensor copy;
    Tensor outer;   // a tensor that is all of the memory
    Tensor before;  // its contents before the region, put back when it ends
    bool read = false;
  };
  std::unordered_map<const Storage*, Alias> aliased_;
  std::unordered_map<const Storage*, TensorList> shadowed_;  // the views written, per memory
  TensorList alias_outers_;  // keeps the keys' storages alive
  Tensor alias_storage(const Tensor& outer, const Tensor& copy);
  struct DynamicView {
    Tensor of;
    uint64_t version = 0;  // of's functional writes when it was taken
    bool reported = false;
    Tensor view;
    std::function<void(const Tensor&)> write_through;
  };
  bool wrote_through(DynamicView& d, const Tensor& dst, const Tensor& src, const std::string& what);
  std::unordered_map<const Storage*, DynamicView> dynamic_;
  uint64_t writes_into(const Tensor& t) const;
  void check_dynamic_read(const Tensor& t);
  void restore_aliased();
  OpObserver* previous_ = nullptr;
  uint64_t start_serial_ = 0;  // tensors with a smaller serial existed before start()
  bool active_ = false;
};

}  // namespace nabla::graph
