// Internal to the evaluator: Evaluator::Impl, the state of a running program (frames,
// module, call stack, resolution results) and the declarations the evaluator*.cpp
// files share. Included by evaluator*.cpp only; builtins and the REPL use
// evaluator.hpp. Members marked `inline` are defined in the one file that uses them
// (the hot ones in evaluator.cpp, next to eval); the small helpers defined in this
// class are shared by several files. Must not hold logic beyond those helpers.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "autograd/autocast_lists.hpp"
#include "interp/eval/evaluator.hpp"
#include "interp/models/field_assign.hpp"
#include "lang/stack_depth.hpp"
#include "tensor/origin.hpp"

namespace nabla::interp {

using namespace lang;

enum class Flow { Normal, Break, Continue, Return };

// A break or continue that reached a function or module boundary.
std::string stray_flow_message(Flow f);

// What an autocast(...) block asks for (evaluator_contexts.cpp): the region's dtype
// (none where enabled=false) and whose op lists it follows.
struct AutocastRegion {
  std::optional<DType> dtype;
  AutocastLists lists = AutocastLists::cuda;
};

struct CallRec {
  const SourceSpan* site;
  const std::string* name;
  // The origin of library ops run under this call when it is the innermost call made
  // from the user's code and no layer call is above it (its site's text), once asked.
  // See Note [User line] in evaluator_trace.cpp.
  OriginId library_origin = 0;
  // How many frames, from the bottom of the stack up to this one, reach the innermost
  // call made from the user's code (0: none), set by push_call: library_origin reads it
  // instead of walking the stack at every library expression.
  size_t user_frames = 0;
};

// A model's method running (forward, step, ...): the model, the index in the call
// stack of the method's frame, its module path from the outermost model method
// running ("fc1", "encoder.layers.0.attn", as named_modules names it; found when
// first asked) and the origin of the library ops under it. See Note [User line].
struct LayerCall {
  const InstanceObj* model;
  size_t depth;
  std::string path;
  bool path_known = false;
  OriginId origin = 0;  // "fc1 (train.dsl:12:9)", once asked
};

using BlockNames = std::unordered_map<std::string, int>;  // a scope's names and their slots

struct RCtx {
  RCtx* parent = nullptr;
  bool is_module = false;
  Module* module = nullptr;
  FnInfo* info = nullptr;
  std::vector<BlockNames> blocks;
  const ModelInfo* model = nullptr;  // methods and constructors: bare member names
  int loops = 0;  // loops around the statement being resolved, in this function or body
};

struct Evaluator::Impl {
  Evaluator& ev;
  explicit Impl(Evaluator& e) : ev(e) {}

  // Resolution results keyed by AST node address (programs are kept alive).
  std::unordered_map<const void*, Loc> locs;
  std::unordered_map<const FnDecl*, FnInfo> fn_infos;
  std::unordered_map<const ModelDecl*, ModelInfo> model_infos;
  std::unordered_map<const Block*, std::unique_ptr<Name>> break_flags;  // keyed by the loop's body
  std::unordered_map<const Block*, std::unique_ptr<Name>> result_vars;  // keyed by the function's body
  std::unordered_map<const Block*, std::unique_ptr<Name>> returned_flags;  // keyed by the function's body
  std::vector<std::shared_ptr<Program>> programs;
  // The names each test block declares (module slots of its scope and the scopes
  // inside it), so that expect_error's code sees the block's locals (test_block_locals).
  std::unordered_map<const TestStmt*, BlockNames> test_locals;
  BlockNames* recording_test_locals = nullptr;  // while a test block is resolved
  const TestStmt* running_test = nullptr;        // while run_test_block runs one
  // The local names in scope where a name the module had never seen was read (a
  // typo, or a global assigned later): the candidates of its did-you-mean.
  std::unordered_map<const Name*, std::vector<std::string>> scope_of_new_names;

  // Execution state.
  Frame* frame = nullptr;
  Module* module = nullptr;
  Value ret;
  std::vector<CallRec> stack;
  void push_call(const SourceSpan* site, const std::string* name);  // evaluator_trace.cpp
  const SourceSpan* call_site = nullptr;

  // ================================ resolver ================================
  RCtx* rc = nullptr;

  // evaluator_resolve.cpp: gives every Name its place (see evaluator.hpp).
  inline Loc declare(const std::string& name);
  inline Loc lookup(const std::string& name);
  inline void declare_pattern(const Pattern& p);
  inline void resolve_block(const Block& b, bool new_scope = true);
  inline FnInfo& resolve_fn(const FnDecl& d, const ModelInfo* model);
  inline void resolve_model(const ModelDecl& d);
  inline void resolve_stmt(const Stmt& s);
  inline void resolve_expr(const Expr& e);
  void resolve_chain(const Expr& top);
  void resolve_comprehension(const Comprehension& c);
  inline void resolve_other_operands(const Expr& link);
  inline void resolve_name(Name& n);
  inline void declare_break_flag(const Block& body);
  inline void declare_hidden(std::unordered_map<const Block*, std::unique_ptr<Name>>& vars, const Block& body,
                             const char* id);
  std::vector<std::string> names_in_scope() const;
  // child_scope: the program's own names go in a scope of their own, inside
  // `visible` when given (a test block's names; see test_locals).
  void resolve_program(const Program& p, Module* m, bool child_scope, const BlockNames* visible = nullptr);

  // ================================ locations ================================
  Frame* frame_at(int depth) {
    Frame* f = frame;
    while (depth-- > 0) f = f->parent.get();
    return f;
  }

  const Loc& loc_of(const void* node) {
    auto it = locs.find(node);
    if (it == locs.end()) fail("internal error: unresolved binding");
    return it->second;
  }

  void store(const Loc& l, Value v) {
    if (l.depth < 0) {
      module->slots[l.slot] = std::move(v);
      module->defined[l.slot] = 1;
    } else {
      frame_at(l.depth)->slots[l.slot] = std::move(v);
    }
  }

  // A name may be megabytes long: the message names its start. `n`, when known, adds
  // the locals in scope to the did-you-mean (suggestions.cpp).
  [[noreturn]] void undefined(const std::string& name, const Name* n = nullptr, const char* advice = "") {
    fail("undefined name '" + clip_for_message(name) + "'" + advice + undefined_name_hint(name, n));
  }
  std::string undefined_name_hint(const std::string& name, const Name* n);
  std::string module_defining(const std::string& name) const;  // Note [A name of a module not imported]

  inline Value self_field(Frame* f, const std::string& name);

  static Value bound(const Value& self, const std::string& name) {
    auto b = std::make_shared<BoundObj>();
    b->self = self;
    b->name = name;
    return Value::object(Tag::Bound, std::move(b));
  }

  inline const Value& read_name(const Name& n);
  Value tmp_;

  inline void assign_name(const Name& n, Value v);

  // ================================ models ================================
  static void set_field(InstanceObj& inst, const std::string& name, Value v, bool buffer) {
    FieldKind kind = buffer ? FieldKind::buffer
                     : v.tag == Tag::Instance ? FieldKind::submodule
                     : v.tag == Tag::Tensor && v.t.defined() && v.t.requires_grad() && v.t.is_leaf()
                         ? FieldKind::parameter
                         : FieldKind::attribute;
    if (buffer && v.tag != Tag::Tensor) fail("buffer '" + name + "' must be a tensor, got " + type_name(v));
    check_not_a_method(inst, name);
    if (Field* f = inst.find(name)) {
      if (!buffer) kind = checked_field_kind(inst, *f, v, kind);  // Note [Assigning to a registered field]
      if (f->kind == FieldKind::buffer && v.tag == Tag::Tensor) kind = FieldKind::buffer;
      f->value = std::move(v);
      f->kind = kind;
      return;
    }
    inst.fields.push_back({name, std::move(v), kind});
  }

  // ================================ statements (evaluator.cpp) ================================
  Flow exec_block(const Block& b) {
    for (auto& s : b.stmts) {
      Flow f = exec(*s);
      if (f != Flow::Normal) return f;
    }
    return Flow::Normal;
  }

  // After each statement of a program's top level and of a test block: a Ctrl-C that
  // came during the statement's native work (a long matmul, a save, the program's last
  // statement) stops the run here, at that statement (Note [Interrupts] in
  // interp/interpreter.cpp). Loops and calls check on their own.
  void check_interrupt_after(const Stmt& s) {
    if (!ev.interrupt_flag.load(std::memory_order_relaxed)) return;
    try {
      ev.throw_interrupt();
    } catch (...) {
      rethrow_located(s.span);
    }
  }

  // evaluator_trace.cpp: where an error is shown, and the origin of library ops
  // (Note [User line]).
  void locate(LangError& e, const SourceSpan& span);
  void locate_at_import(LangError& e, const SourceSpan& import_site);
  std::vector<LayerCall> layer_calls;
  OriginId library_origin(const Expr& e);
  const std::string& layer_path(size_t k);
  std::string layer_label(size_t k);
  // Records a model method call on layer_calls for its lifetime.
  struct LayerScope {
    Impl& im;
    LayerScope(Impl& i, const InstanceObj& model) : im(i) { im.layer_calls.push_back({&model, im.stack.size()}); }
    ~LayerScope() { im.layer_calls.pop_back(); }
    LayerScope(const LayerScope&) = delete;
    LayerScope& operator=(const LayerScope&) = delete;
  };
  // The native stack is nearly full (deep recursion, or expressions nested deeply
  // inside it): fails with the recursion-limit message. See Note [Stack depth].
  [[noreturn]] void throw_stack_full();
  [[noreturn]] void rethrow_located(const SourceSpan& span);
  [[noreturn]] void reject_init_method(const FnDecl& m);  // evaluator_resolve.cpp

  Flow exec(const Stmt& s) {
    try {
      ev.count_step();
      if (stack_nearly_full()) [[unlikely]] throw_stack_full();
      return exec_inner(s);
    } catch (...) {
      rethrow_located(s.span);
    }
  }

  void bind_pattern(const Pattern& p, Value v);
  std::vector<Value> unpack(const Value& v, size_t n);  // evaluator_comprehensions.cpp
  inline void assign_target(const Expr& target, Value v);
  Flow exec_inner(const Stmt& s);

  Value last_value;

  inline bool cond_true(const Expr& e);
  bool value_true(const Value& v, const Expr& e);  // the truth of e's value v (errors located at e)
  // ev.truth(v) of the value of the expression at `span`, where a model's __len__ is
  // called from (Note [A model's __len__ and __iter__]).
  bool truth_at(const Value& v, const SourceSpan& span) {
    if (v.tag != Tag::Instance) return ev.truth(v);
    Evaluator::CallSiteScope site(ev, &span);
    return ev.truth(v);
  }
  inline void exec_aug(const AugAssignStmt& a);
  inline Flow exec_for(const ForStmt& f);
  Flow exec_for_value(const ForStmt& f, const Value& iterable);
  Flow exec_while_from(const WhileStmt& w, std::optional<bool> first);

  // interp/eval/script/control_flow.cpp: compile(..., mode="script") (ev.script set)
  // lowers an `if`/`elif` or `while` on a traced tensor to cond / while_loop and a
  // `for` over a range or a tensor to scan; everything else runs (and is traced) as
  // usual. script_step runs one step of a loop that was not lowered.
  Flow script_if(const IfStmt& i, size_t from);
  Value script_conditional(const Conditional& c);  // `a if cond else b`
  Flow script_while(const WhileStmt& w);
  std::optional<Flow> script_for(const ForStmt& f, const Value& iterable);
  std::optional<Flow> script_for_once(const ForStmt& f, const Value& iterable);  // one try at lowering it
  Flow script_step(const Block& body);
  Flow script_body(const Block& body);  // a function's body
  // The hidden variables of script mode, from the resolver (interp/eval/script/exits.cpp):
  // the flag of a loop whose body may break (Note [Break and continue on a tensor
  // condition]) and the result of a function that returns from inside an if (Note
  // [Returns on a tensor condition]); null when there is none.
  const Name* break_flag(const Block& body) const { return hidden_var(break_flags, body); }
  const Name* result_var(const Block& body) const { return hidden_var(result_vars, body); }
  // A function that returns from inside a loop: whether it has (Note [Returns inside a lowered loop]).
  const Name* returned_flag(const Block& body) const { return hidden_var(returned_flags, body); }
  static const Name* hidden_var(const std::unordered_map<const Block*, std::unique_ptr<Name>>& vars, const Block& body) {
    auto it = vars.find(&body);
    return it == vars.end() ? nullptr : it->second.get();
  }
  Value load(const Loc& l) { return l.depth < 0 ? module->slots[l.slot] : frame_at(l.depth)->slots[l.slot]; }

  // Calls `body(item)` on each item of an iterable, in order, until it returns false:
  // what `for` loops and comprehensions iterate. A range is not made into a list; a
  // list that grows while iterating is seen growing (Python's semantics).
  template <class Body>
  void each_item(const Value& iterable, Body&& body) {
    if (iterable.tag == Tag::Range) {
      auto r = *iterable.as<RangeObj>();
      int64_t n = r.size();
      for (int64_t k = 0; k < n; ++k)
        if (!body(Value::integer(r.at(k)))) return;
      return;
    }
    if (iterable.tag == Tag::List) {
      auto keep = iterable.o;
      auto* list = iterable.as<ListObj>();
      for (size_t k = 0; k < list->items.size(); ++k)
        if (!body(list->items[k])) return;
      return;
    }
    for (auto& v : ev.iterate(iterable))
      if (!body(std::move(v))) return;
  }
  Flow exec_context(const ContextStmt& c);  // evaluator_contexts.cpp
  AutocastRegion autocast_region(const ContextStmt& c);
  Flow exec_autocast(const ContextStmt& c);
  Flow exec_profiled(const ContextStmt& c);
  Flow exec_no_sync(const ContextStmt& c);

  // ================================ modules (evaluator_modules.cpp) ================================
  std::shared_ptr<Module> module_ptr() {
    return module->shared_from_this();
  }

  static std::string import_alias(const ImportStmt& i);
  std::shared_ptr<Module> do_import(const ImportStmt& i);
  // Imports still running their top level, outermost first: (cache key, name shown).
  // See Note [Import cycles] in evaluator_modules.cpp.
  std::vector<std::pair<std::string, std::string>> importing;
  std::shared_ptr<Module> import_once(const std::string& key, const std::string& shown,
                                      const std::function<std::shared_ptr<Module>()>& load);
  std::shared_ptr<Module> import_stdlib(const std::string& name);
  // The modules `import NAME` finds without a path: the standard library's and the
  // native ones (suggestions.cpp).
  std::vector<std::string> module_names() const;
  // library: the standard library's (SourceFile::library).
  inline std::shared_ptr<Module> load_module(const std::string& name, const std::string& path, const std::string& text,
                                             bool library);

  // ================================ functions (evaluator_calls.cpp) ================================
  Value make_function(const std::shared_ptr<FnDecl>& decl, const std::string& name);

  struct FrameGuard {
    Impl& im;
    Frame* f;
    Module* m;
    size_t depth;
    FrameGuard(Impl& i) : im(i), f(i.frame), m(i.module), depth(i.stack.size()) {}
    ~FrameGuard() {
      im.frame = f;
      im.module = m;
      im.stack.resize(depth);
    }
  };

  // Puts back the call site and the builtins' current span when a function returns:
  // a builtin that calls back into the language (compile's capture, a graph step's
  // optimizer) and then calls again, or fails, names its own call, not the last call
  // made inside the function before (which left the user's line out of the trace).
  struct SiteGuard {
    Impl& im;
    const SourceSpan* site;
    const SourceSpan* span;
    explicit SiteGuard(Impl& i) : im(i), site(i.call_site), span(i.ev.current_span) {}
    ~SiteGuard() {
      im.call_site = site;
      im.ev.current_span = span;
    }
  };

  void bind_args(const std::string& fname, const std::vector<Param>& params, const std::vector<Value>* defaults,
                 CallArgs& args, Frame& fr, size_t skip);
  Value invoke(const FnDecl& d, const FnInfo& info, const std::shared_ptr<Frame>& env, Module* mod,
               const std::vector<Value>* defaults, const Value& self, CallArgs& args, const std::string& name,
               size_t skip = 0, std::vector<Value>* prefix = nullptr);
  inline Value call_func(const FuncObj& f, CallArgs& args);

  // ================================ models (evaluator_models.cpp) ================================
  Value instantiate(const std::shared_ptr<ModelClassObj>& cls, CallArgs& args);
  Value call_model_method(const Value& self, const std::string& name, CallArgs& args);

  std::unordered_set<std::string> interned;
  const std::string& intern(const std::string& s) { return *interned.insert(s).first; }

  Value call_instance(const Value& self, CallArgs& args);  // forward, then the module hooks
  void run_forward_pre_hooks(const Value& self, CallArgs& args);

  // ================================ custom functions (evaluator_calls.cpp) ================================
  Value apply_custom(const std::shared_ptr<ModelClassObj>& cls, CallArgs& args);
  Value call_custom_method(const ModelClassObj& cls, const std::string& name, CallArgs& args);

  // ================================ expressions (evaluator.cpp) ================================
  inline void set_origin(const Expr& e);
  inline void enter_call(const Call& c);
  inline std::vector<Value> eval_index_items(const Index& ix);
  // evaluator_comprehensions.cpp, Note [Container subscripts without a vector].
  std::optional<Value> index_container_fast(const Index& ix, const Value& obj);
  inline Value binary_values(const Binary& b, const Value& l, const Value& r);
  static inline bool scalar_binary_fast(BinaryOp op, const Value& l, const Value& r, Value* out);
  inline bool leaf_value(const Expr& e, Value* out);
  Value eval(const Expr& e);
  inline CallArgs eval_args(const Call& c);
  void splat_into(const Arg& arg, std::vector<Value>& pos);
  inline Value eval_inner(const Expr& e);
  // A chain link (lang::first_operand) given the value of its first operand: the
  // same work eval does for it after evaluating that operand. Always inlined: they
  // are eval_inner's hot cases (measured: a call costs 60 instructions more when
  // eval_call is not inlined).
  [[gnu::always_inline]] inline Value eval_attribute(const Attribute& a, const Value& obj);
  Value get_attr_at(const Value& obj, const Attribute& a);  // obj: a model instance
  [[gnu::always_inline]] inline Value eval_index(const Index& ix, const Value& obj);
  [[gnu::always_inline]] inline Value eval_call(const Call& c, const Value& first);
  [[gnu::always_inline]] inline Value eval_unary(const Unary& u, const Value& v);
  bool traced_condition(const Value& v) const;  // Note [and, or and not on a traced condition]
  [[gnu::always_inline]] inline Value eval_logical(const Logical& l, Value lhs);
  Value eval_link(const Expr& link, Value first);
  // A long chain (Note [Deep expressions]) with a loop.
  Value eval_chain(const Expr& e);
  // evaluator_comprehensions.cpp: [x for x in xs if c] and {k: v for ...}.
  Value eval_comprehension(const Comprehension& c);
  void run_clauses(const Comprehension& c, size_t k, const std::function<void()>& emit);
  const Expr* current_call = nullptr;

  static inline void check_key(const Value& k);
  void unpack_into(DictObj& out, const Value& mapping);  // {**mapping} in a dict display
};

}  // namespace nabla::interp
