// Script mode's shared pieces (interp/eval/script/script_mode.hpp): the variables a block
// assigns, region captures, and the lowering of a two-way choice to a cond node.
// control_flow.cpp lowers if/while/for with them, exits.cpp break, continue and
// return.
// Internal to interp/eval/script/.
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "graph/capture.hpp"
#include "interp/eval/evaluator_impl.hpp"
#include "interp/eval/script/script_mode.hpp"
#include "interp/values/object_regions.hpp"

namespace nabla::interp::script {

using graph::Capture;
using Operands = std::vector<std::pair<int, Tensor>>;  // outer value id and tensor, per operand
using Vars = std::vector<const Name*>;
using Impl = Evaluator::Impl;
struct Field;  // field_writes.hpp
using Fields = std::vector<Field>;

// ---- variables ----------------------------------------------------------------------------

bool same_var(const Name& a, const Name& b);
void add_var(const Name& n, Vars& out);  // once
// The variables that the statements of `b` from `from` on assign (`x = ...`, `x += ...`,
// `a, b = ...`, in nested blocks too), each once, in order, and those holding a tensor
// that they write in place (Note [Variables written in place inside a lowered
// region]). A variable that a `let` or a `for` among those statements declares lives
// only inside them, and a `fn` body runs in another frame: neither counts.
void assigned_in(Impl& im, const Block& b, Vars& out, size_t from = 0);
bool assigned_by_name(const Block& b, const Name& v);  // `v = ...` (or `v += ...`) anywhere in b
bool declares(const Impl& im, const Block& b, const Name& v);  // a `let` or `for` in b (nested too) declares v
// What statement s writes in place (`out[i] = v`, `out[i] += v`: the target; `x.op_(..)`:
// the receiver), or null; and the expression under its index chains, views and
// in-place methods that return their receiver (out in out[:, i].T[j], self.buf in
// self.buf[t].mul_(2)).
const Expr* written_by(const Stmt& s);
const Expr& written_root(const Expr& e);
inline Loc loc(const Name& n) { return Loc{n.depth, n.slot}; }
std::vector<Value> load_all(Impl& im, const Vars& vars);
void store_all(Impl& im, const Vars& vars, const std::vector<Value>& values);
bool same_value(const Value& a, const Value& b);  // the same tensor, or equal plain values
std::string names_text(const Vars& vars);
bool traced(const Impl& im, const Value& v);  // a tensor the innermost capture has seen made
// An if or while condition's value, its numbers read from tensors kept as tensors (Note
// [Numbers read for a condition]).
Value condition_value(Impl& im, const Expr& cond);

// Note [Counters carried as tensors] (control_flow.cpp)
Tensor scalar_of(const Value& v, DType dtype);
DType natural_dtype(const Value& v);
Vars promote_counters(Impl& im, const Vars& vars);  // the names it changed
void numbers_as_tensors(Impl& im, const Vars& promoted);

// Tensor trees: a tensor, or tuples and lists of them (`return out, (h, c)`, a loop's
// `state = (h, c)`), which conds output and loops carry as their tensors in order.
bool tensor_leaves(const Value& v, TensorList& out);  // appends v's tensors; false if v is no tree
bool same_tree(const Value& a, const Value& b);       // nesting alike, leaves of one shape and dtype
Value rebuild(const Value& like, const TensorList& leaves, size_t& next);  // `next` walks `leaves`
std::string type_text(const Value& v);  // "(f32[2], [i64[]])"; a plain value's repr
Value zeros_of_tree(const Value& like);  // zeros of like's tensors' types, nested alike

// ---- regions ------------------------------------------------------------------------------

// One block run under a region capture, installed as the script's capture (and the
// thread's op observer) from start() until finish() or destruction.
class Region {
 public:
  Region(ScriptMode& script, const std::string& name);
  ~Region();
  Region(const Region&) = delete;
  Region& operator=(const Region&) = delete;

  Tensor bind(const Tensor& t, const std::string& name);  // a fresh copy of t as the next region input
  // Variables the region writes in place hold outers[k], bound as copies[k]: what each
  // holds in the region instead (copies[k], or a view of another one's copy), the
  // tensors on their memory read from the copies (Note [Aliases of a variable written
  // in place], graph/capture_writes.cpp).
  void alias(const TensorList& outers, TensorList& copies) { capture_.alias_storages(outers, copies); }
  void start();
  std::shared_ptr<graph::Graph> finish(const TensorList& outputs);
  Capture& capture() { return capture_; }

 private:
  void close();

  ScriptMode& script_;
  Capture& outer_;
  Capture capture_;
  std::optional<ObjectRegionScope> objects_;  // Note [Objects changed inside a lowered region]
  bool open_ = false;
};

// Note [Variables written in place inside a lowered region] (regions.cpp)
// Whether `region`, where variable `var` started as the region's copy `bound` of its
// tensor, wrote into that copy in place and left the variable holding it; an error
// when it wrote into it and then assigned the variable another value.
bool wrote_in_place(Impl& im, Region& region, const Name& var, const Tensor& bound, const std::string& statement);
// Whether some lowered statement writes variable n in place (assigned_in found it).
bool written_in_place(const Impl& im, const Name& n);
// After the node: `var` gets its tensor `before` back, with the node's result for it
// (what `var` holds now) copied in, as eager's writes went into it.
void write_back(Impl& im, const Name& var, const Value& before);

void add_operands(Operands& all, const Operands& more);
// Makes region r take the `bound` inputs it bound itself, then exactly `all`, in that
// order (Note [Control-flow regions]): an operand r does not read is an unused input.
void align_region(graph::Graph& r, size_t bound, const Operands& mine, const Operands& all);
// Adds the node to the enclosing capture and returns its results on real values.
TensorList add_node(const ScriptMode& script, graph::NodeKind kind, Attrs attrs,
                    std::vector<std::shared_ptr<graph::Graph>> regions, const Operands& operands,
                    const std::vector<TensorMeta>& metas, const std::string& origin);
std::vector<TensorMeta> metas_of(const TensorList& ts);
Tensor predicate(const Tensor& t);  // a tensor condition as the bool[] a cond or while_loop reads
const char* flow_word(Flow f);

// ---- a side that fails (Note [A failing side of a lowered if], raising.cpp) ------------------

// Whether the example's run takes the side of a choice on `pred` (then_side or else).
bool side_taken(const Tensor& pred, bool then_side);
// While alive, the region captured is the example's own only where it was and the side
// is taken (ScriptMode::live).
class LiveScope {
 public:
  LiveScope(ScriptMode& s, bool taken) : s_(s), was_(s.live) { s.live = s.live && taken; }
  ~LiveScope() { s_.live = was_; }
  LiveScope(const LiveScope&) = delete;
  LiveScope& operator=(const LiveScope&) = delete;

 private:
  ScriptMode& s_;
  bool was_;
};
// Whether a side that threw `e` becomes a raise node: the program's own error, in a side
// the example's run does not take.
inline bool raises_later(const ScriptMode& s, const LangError& e, bool taken) {
  return e.raised && !e.interrupted && !(s.live && taken);
}
int keep_raised(ScriptMode& s, const LangError& e);  // its id in s.raised, for raise_node
const LangError& raised_error(const ScriptMode& s, int id);
// In the open region `region`: a raise node throwing error `id` where it runs, its
// outputs (returned) zeros of the types of `like`.
TensorList raise_node(ScriptMode& s, Capture& region, int id, const TensorList& like);

// ---- a two-way choice ---------------------------------------------------------------------

// Lowers "if pred then then_side() else else_side()" to a cond node. `vars` are the
// variables either side may assign; each side runs once under a region on the real
// values, and the variables either side changed become the node's outputs (plain
// numbers as 0-dim tensors). A side must end normally (a break or continue it meets
// is settled by the side itself, see exits.cpp). `what` names the statement in
// errors ("an if on a tensor condition"). Returns the names of the outputs. The
// `fields` either side may write in place are outputs too, written after the node
// (Note [Fields written inside a lowered loop]); those the sides' calls write are
// added to them (Note [Tensors a lowered region's calls write]).
using Side = std::function<Flow()>;
Vars lower_choice(Impl& im, const Tensor& pred, const Vars& vars, const std::string& origin, const Side& then_side,
                  const Side& else_side, Fields* fields = nullptr);

// Note [A conditional expression on a tensor] (conditional.cpp): `a if pred else b` as a
// cond node whose outputs are the value.
Value lower_conditional(Impl& im, const Tensor& pred, const std::string& origin, const std::function<Value()>& then_value,
                        const std::function<Value()>& else_value);

}  // namespace nabla::interp::script
