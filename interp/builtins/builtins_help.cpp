// help(x) and what the REPL's :help and keyword completion read (help.hpp): a name
// resolved to a builtin row, a DSL function, model, method or module, and described
// with its signature and doc. The table at the end is this family's (Note [Builtin
// tables]).
#include <algorithm>
#include <cctype>

#include "interp/builtins/builtins_internal.hpp"
#include "interp/builtins/help.hpp"

namespace nabla::interp {

namespace {

// The receivers whose methods are rows: `str.split`, `Tensor.sum`, `model.parameters`.
const std::pair<const char*, Tag> kContainerKinds[] = {
    {"str", Tag::Str}, {"list", Tag::List}, {"tuple", Tag::Tuple}, {"dict", Tag::Dict}};
bool is_tensor_kind(const std::string& s) { return s == "Tensor" || s == "tensor"; }

bool is_identifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

std::vector<std::string> split_dotted(const std::string& name) {
  std::vector<std::string> parts;
  for (size_t start = 0;;) {
    size_t dot = name.find('.', start);
    parts.push_back(name.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  for (const std::string& p : parts)
    if (!is_identifier(p)) fail("help: expected a name or a dotted name (nn.Linear), got '" + name + "'");
  return parts;
}

// ---- formatting ---------------------------------------------------------------------------

// A value's printed form, its first line, cut to a line's width.
std::string first_line_of(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  return line.size() > 100 ? line.substr(0, 97) + "..." : line;
}

// A doc indented under its signature, its "Example: ..." on a line of its own.
std::string indented_doc(const std::string& doc) {
  if (doc.empty()) return "  (no docstring)\n";
  std::string text = doc;
  size_t example = text.find(" Example: ");
  if (example != std::string::npos) text.replace(example, 1, "\n");
  std::string out;
  for (size_t start = 0; start <= text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    out += (line.empty() ? "" : "  " + line) + "\n";
    start = end + 1;
  }
  return out;
}

// The first sentence of a doc (a listing's one line).
std::string first_sentence(const std::string& doc) {
  std::string line = doc.substr(0, doc.find('\n'));
  size_t example = line.find("Example:");
  if (example != std::string::npos) line = line.substr(0, example);
  size_t stop = line.find(". ");
  if (stop != std::string::npos) line = line.substr(0, stop + 1);
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return line;
}

// "(x, y=2, *rest)": a DSL declaration's parameters, defaults as written.
std::string params_text(const std::vector<lang::Param>& params) {
  std::string out;
  for (const lang::Param& p : params) {
    if (!out.empty()) out += ", ";
    if (p.variadic) out += '*';
    out += p.name;
    if (p.default_value) {
      out += '=';
      out += p.default_value->span.text(40);
    }
  }
  return "(" + out + ")";
}

// A row's signature under the name it was asked by: "math.sqrt(x)", "Tensor.sum(...)".
std::string qualified_signature(const std::string& shown, const std::string& signature) {
  size_t dot = shown.rfind('.');
  return dot == std::string::npos ? signature : shown.substr(0, dot + 1) + signature;
}

std::string row_help(const std::string& shown, const BuiltinDoc& doc) {
  return qualified_signature(shown, doc.signature) + "\n" + indented_doc(doc.doc);
}

// ---- what a name names --------------------------------------------------------------------

// A resolved name: a value, or a method of a model class (which is no value).
struct Target {
  Value value;
  std::string shown;                          // the name as asked ("nn.Linear")
  std::shared_ptr<lang::FnDecl> method;       // a DSL method of `value` (a model class)
  const MethodEntry* model_method = nullptr;  // a builtin method of every model
  std::string module_owner;                   // the native module a native function came from
  bool not_imported = false;                  // a module found without an import
};

// The module that holds native `v` under `name`, among those loaded ("math" for sqrt).
std::string native_module_of(Evaluator& ev, const Value& v) {
  for (auto& [name, module] : ev.import_cache)
    for (size_t k = 0; k < module->slots.size(); ++k)
      if (module->defined[k] && module->slots[k].tag == Tag::Native && module->slots[k].o == v.o &&
          ev.native_modules.count(name))
        return name;
  return "";
}

// The row of a native function: of the module that holds it, else the global one.
std::optional<BuiltinDoc> native_doc(Evaluator& ev, const Value& v, const std::string& module_owner) {
  const std::string& name = v.as<NativeObj>()->name;
  std::string owner = module_owner.empty() ? native_module_of(ev, v) : module_owner;
  if (!owner.empty())
    if (auto doc = find_builtin_doc(owner + "." + name)) return doc;
  return find_builtin_doc(name);
}

// The help of a type's method row: "str.split", "Tensor.sum", "model.parameters".
std::optional<std::string> type_member_help(const std::string& shown, const std::string& kind,
                                            const std::string& member) {
  std::string owner = is_tensor_kind(kind) ? "tensor" : kind;
  auto doc = find_builtin_doc(owner + "." + member);
  if (!doc) return std::nullopt;
  return row_help(shown, *doc);
}

// Names wrapped into lines of at most 80 columns, indented by two.
std::string wrapped_names(const std::vector<std::string>& names) {
  std::string out, line = " ";
  for (const std::string& n : names) {
    if (is_private_name(n)) continue;
    if (line.size() + n.size() > 78) {
      out += line;
      out += '\n';
      line = " ";
    }
    line += ' ';
    line += n;
  }
  out += line;
  out += '\n';
  return out;
}

// "Tensor": the methods a tensor has.
std::string tensor_type_help() {
  std::string out =
      "Tensor: an n-dimensional array with autograd; every op is also a method (x.sum() is sum(x)).\n"
      "methods (help(\"Tensor.NAME\") for one):\n";
  out += wrapped_names(tensor_member_names());
  return out;
}

// "model": the builtin methods of every model, one line each.
std::string model_type_help() {
  std::string out = "model: every model (a `model` declaration's instances) has these methods:\n";
  for (const MethodEntry& m : model_methods())
    out += "  " + std::string(m.signature) + "  " + first_sentence(m.doc) + "\n";
  return out;
}

Value global_value(Evaluator& ev, const std::string& name) {
  if (const Value* v = ev.main_module->get(name)) return *v;
  for (auto& [n, v] : ev.builtins)
    if (n == name) return v;
  return Value();
}

// The first part of a dotted name: a session name, a builtin, or a module not imported.
// A builtin that a module shares its name with (the op log, the module log) is the
// builtin alone, and the module when members follow ("log.SummaryWriter").
Target resolve_head(Evaluator& ev, const std::string& head, bool has_members) {
  Target t;
  t.shown = head;
  const Value* session = ev.main_module->get(head);
  bool builtin = (session && session->tag == Tag::Native) ||
                 std::any_of(ev.builtins.begin(), ev.builtins.end(), [&](const auto& b) { return b.first == head; });
  if ((session && !builtin) || (builtin && !(has_members && ev.find_module(head)))) {
    t.value = global_value(ev, head);
    return t;
  }
  if (auto m = ev.find_module(head)) {
    t.value = Value::object(Tag::Module, m);
    t.not_imported = true;
    return t;
  }
  // The evaluator's own message for an undefined name (with whatever it suggests), at
  // the help() call: raised as it was, it pointed into a source of its own, "<help>:1:1".
  try {
    ev.eval_source(head, "<help>", ev.main_module, true);
  } catch (LangError& e) {
    if (e.interrupted) throw;
    fail(e.message);
  }
  fail("help: no name '" + head + "'");
}

// One more part of a dotted name, looked up in what the name so far names.
Target resolve_member(Evaluator& ev, Target t, const std::string& member) {
  std::string shown = t.shown + "." + member;
  if (t.method || t.model_method) fail("help: a method has no members ('" + shown + "')");
  if (t.value.tag == Tag::ModelClass || t.value.tag == Tag::FnClass) {
    auto* cls = t.value.as<ModelClassObj>();
    for (const auto& m : cls->decl->methods)
      if (m->name == member) t.method = m;
    if (!t.method) t.model_method = find_entry(model_methods(), member);
    if (!t.method && !t.model_method) fail("model " + cls->decl->name + " has no method '" + member + "'");
    t.shown = shown;
    return t;
  }
  if (t.value.tag == Tag::Module && ev.native_modules.count(t.value.as<Module>()->name))
    t.module_owner = t.value.as<Module>()->name;
  else
    t.module_owner.clear();
  t.value = ev.get_attr(t.value, member);
  t.shown = shown;
  t.not_imported = false;
  return t;
}

// ---- describing what was found ------------------------------------------------------------

std::string function_help(const std::string& shown, const FuncObj& f) {
  return (shown.empty() ? "<lambda>" : shown) + params_text(f.decl->params) + "\n" + indented_doc(f.decl->doc);
}

std::string method_line(const lang::FnDecl& m) {
  std::string line = "  " + m.name + params_text(m.params);
  std::string doc = first_sentence(m.doc);
  return line + (doc.empty() ? "" : "  " + doc) + "\n";
}

std::string model_class_help(const std::string& shown, const ModelClassObj& cls) {
  const lang::ModelDecl& d = *cls.decl;
  std::string out = shown + (d.is_function ? "" : params_text(d.params)) + "\n" + indented_doc(d.doc);
  std::string methods;
  for (const auto& m : d.methods)
    if (!is_private_name(m->name)) methods += method_line(*m);
  if (!methods.empty()) out += "methods:\n" + methods;
  if (!d.is_function) out += "(and the methods every model has: help(\"model\"))\n";
  return out;
}

// What a module holds that is public, in the order it was defined, without the
// builtins every module sees and the modules it imported.
std::vector<std::pair<std::string, Value>> public_members(Evaluator& ev, const Module& m) {
  std::vector<std::pair<std::string, Value>> out;
  for (size_t k = 0; k < m.slot_names.size(); ++k) {
    const std::string& name = m.slot_names[k];
    if (!m.defined[k] || !m.names.count(name) || is_private_name(name) || m.slots[k].tag == Tag::Module) continue;
    bool builtin = std::any_of(ev.builtins.begin(), ev.builtins.end(),
                               [&](const auto& b) { return b.first == name && values_equal(b.second, m.slots[k]); });
    if (!builtin) out.emplace_back(name, m.slots[k]);
  }
  return out;
}

// The one-line doc of a module's member in a listing.
std::string summary_of(Evaluator& ev, const Value& v, const std::string& module_owner) {
  switch (v.tag) {
    case Tag::Func:
      return first_sentence(v.as<FuncObj>()->decl->doc);
    case Tag::ModelClass:
    case Tag::FnClass:
      return first_sentence(v.as<ModelClassObj>()->decl->doc);
    case Tag::Native: {
      auto doc = native_doc(ev, v, module_owner);
      return doc ? first_sentence(doc->doc) : "";
    }
    default:
      return std::string("a ") + type_name(v);
  }
}

std::string module_help(Evaluator& ev, const Target& t) {
  auto* m = t.value.as<Module>();
  std::string owner = ev.native_modules.count(m->name) ? m->name : "";
  std::string out = "module " + t.shown;
  if (t.not_imported) out += " (not imported in this session: `import " + t.shown + "` to use it)";
  out += "\n";
  auto members = public_members(ev, *m);
  size_t width = 0;
  for (auto& [name, v] : members) width = std::max(width, std::min<size_t>(name.size(), 24));
  for (auto& [name, v] : members) {
    std::string summary = summary_of(ev, v, owner);
    out += "  " + name + std::string(width + 2 - std::min(width, name.size()), ' ') + summary + "\n";
  }
  return out;
}

// The row of a builtin method bound to its receiver (x.sum, s.split, m.parameters),
// named as its type's: "Tensor.sum".
std::optional<BuiltinDoc> builtin_method_doc(const BoundObj& b) {
  if (b.self.tag == Tag::Instance) {
    const MethodEntry* m = find_entry(model_methods(), b.name);
    if (!m || b.self.as<InstanceObj>()->cls->info->methods.count(b.name)) return std::nullopt;
    return BuiltinDoc{"model." + b.name, m->signature, m->doc};
  }
  bool tensor = b.self.tag == Tag::Tensor;
  auto doc = find_builtin_doc((tensor ? std::string("tensor") : type_name(b.self)) + "." + b.name);
  if (doc) doc->name = (tensor ? std::string("Tensor") : type_name(b.self)) + "." + b.name;
  return doc;
}

std::string describe(Evaluator& ev, const Target& t);

std::string value_help(Evaluator& ev, const Target& t) {
  const Value& v = t.value;
  switch (v.tag) {
    case Tag::Native: {
      auto doc = native_doc(ev, v, t.module_owner);
      if (!doc) return t.shown + ": a builtin function (no row documents it)\n";
      bool renamed = t.shown.substr(t.shown.rfind('.') + 1) != v.as<NativeObj>()->name;
      return renamed ? row_help(v.as<NativeObj>()->name, *doc) : row_help(t.shown, *doc);
    }
    case Tag::Func:
      return function_help(t.shown, *v.as<FuncObj>());
    case Tag::ModelClass:
    case Tag::FnClass:
      return model_class_help(t.shown, *v.as<ModelClassObj>());
    case Tag::Instance: {
      auto cls = v.as<InstanceObj>()->cls;
      return "an instance of model " + cls->decl->name + ": " + first_line_of(repr(v)) + "\n" +
             model_class_help(cls->decl->name, *cls);
    }
    case Tag::Bound: {
      auto* b = v.as<BoundObj>();
      if (b->func.tag == Tag::Func) return function_help(b->func.as<FuncObj>()->qualname, *b->func.as<FuncObj>());
      if (auto doc = builtin_method_doc(*b)) return row_help(doc->name, *doc);
      if (b->self.tag == Tag::ModelClass) {  // optim.SGD.step: the class's own method
        const auto& methods = b->self.as<ModelClassObj>()->info->methods;
        if (auto it = methods.find(b->name); it != methods.end())
          return describe(ev, Target{v, b->self.as<ModelClassObj>()->decl->name + "." + b->name, it->second});
      }
      break;
    }
    case Tag::Module:
      return module_help(ev, t);
    default:
      break;
  }
  return t.shown + " = " + first_line_of(repr(v)) + " (" + type_name(v) + ")\n";
}

std::string describe(Evaluator& ev, const Target& t) {
  if (t.method) return t.shown + params_text(t.method->params) + "\n" + indented_doc(t.method->doc);
  if (t.model_method)
    return row_help("model." + std::string(t.model_method->name),
                    {t.shown, t.model_method->signature, t.model_method->doc});
  return value_help(ev, t);
}

// ---- keyword names ------------------------------------------------------------------------

// The parameter names in a row's signature: "split(sep=none)" gives sep;
// "range(stop) or range(start, stop, step=1)" gives stop, start, step.
std::vector<std::string> signature_names(const std::string& signature) {
  std::vector<std::string> out;
  size_t open = signature.find('(');
  while (open != std::string::npos) {
    size_t close = signature.find(')', open);
    if (close == std::string::npos) break;
    std::string inside = signature.substr(open + 1, close - open - 1);
    int depth = 0;
    std::string token;
    auto take = [&] {
      std::string name = token.substr(0, token.find('='));
      name.erase(0, name.find_first_not_of(" *"));
      name.erase(name.find_last_not_of(' ') + 1);
      if (is_identifier(name) && std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
      token.clear();
    };
    for (char c : inside) {
      depth += (c == '[' || c == '(' || c == '{') - (c == ']' || c == ')' || c == '}');
      if (c == ',' && depth == 0)
        take();
      else
        token += c;
    }
    take();
    open = signature.find('(', close);
  }
  return out;
}

std::vector<std::string> param_names(const std::vector<lang::Param>& params) {
  std::vector<std::string> out;
  for (const lang::Param& p : params)
    if (!p.variadic) out.push_back(p.name);
  return out;
}

// A keyword that no builtin or session name shares (no_grad and profile are also
// builtins, model has its own help): parsed as code, help("fn") failed with a parse
// error of its own source.
bool is_bare_keyword(Evaluator& ev, const std::string& name) {
  const auto& k = language_keywords();
  if (std::none_of(k.begin(), k.end(), [&](const char* w) { return name == w; })) return false;
  return !ev.main_module->get(name) &&
         std::none_of(ev.builtins.begin(), ev.builtins.end(), [&](const auto& b) { return b.first == name; });
}

}  // namespace

const std::vector<const char*>& language_keywords() {
  static const std::vector<const char*> words = {
      "let",    "fn",    "model", "function", "buffer", "static",  "if",          "elif",           "else",
      "while",  "for",   "in",    "break",    "continue", "return", "import",     "as",             "true",
      "false",  "none",  "and",   "or",       "not",    "is",      "test",        "no_grad",        "enable_grad",
      "detect_anomaly", "profile", "no_sync", "autocast"};
  return words;
}

std::string help_for_name(Evaluator& ev, const std::string& name) {
  std::vector<std::string> parts = split_dotted(name);
  const std::string& head = parts[0];
  bool shadowed = ev.main_module->get(head) && ev.main_module->get(head)->tag != Tag::Native;
  if (!shadowed && parts.size() == 2) {
    bool type_kind = is_tensor_kind(head) || head == "model" ||
                     std::any_of(std::begin(kContainerKinds), std::end(kContainerKinds),
                                 [&](const auto& k) { return head == k.first; });
    if (type_kind) {
      if (auto text = type_member_help(name, head, parts[1])) return *text;
      fail("help: " + head + " has no method '" + parts[1] + "'");
    }
  }
  if (!shadowed && parts.size() == 1 && is_tensor_kind(head)) return tensor_type_help();
  if (!shadowed && parts.size() == 1 && head == "model") return model_type_help();
  if (parts.size() == 1 && is_bare_keyword(ev, head))
    return "'" + head + "' is a keyword of the language (see docs/LANGUAGE.md)\n";
  Target t = resolve_head(ev, head, parts.size() > 1);
  for (size_t k = 1; k < parts.size(); ++k) t = resolve_member(ev, std::move(t), parts[k]);
  return describe(ev, t);
}

std::string help_for_value(Evaluator& ev, const Value& v) {
  Target t;
  t.value = v;
  switch (v.tag) {
    case Tag::Native:
      t.shown = v.as<NativeObj>()->name;
      break;
    case Tag::Func:
      t.shown = v.as<FuncObj>()->qualname;
      break;
    case Tag::ModelClass:
    case Tag::FnClass:
      t.shown = v.as<ModelClassObj>()->decl->name;
      break;
    case Tag::Module:
      t.shown = v.as<Module>()->shown_name();
      break;
    default:
      t.shown = type_name(v);
      break;
  }
  return describe(ev, t);
}

std::vector<std::string> keyword_names(Evaluator& ev, const Value& callee) {
  switch (callee.tag) {
    case Tag::Native: {
      auto doc = native_doc(ev, callee, "");
      return doc ? signature_names(doc->signature) : std::vector<std::string>{};
    }
    case Tag::Func:
      return param_names(callee.as<FuncObj>()->decl->params);
    case Tag::ModelClass:
      return param_names(callee.as<ModelClassObj>()->decl->params);
    case Tag::Bound: {
      auto* b = callee.as<BoundObj>();
      if (b->func.tag == Tag::Func) return param_names(b->func.as<FuncObj>()->decl->params);
      if (b->self.tag == Tag::Instance) {
        auto& methods = b->self.as<InstanceObj>()->cls->info->methods;
        if (auto it = methods.find(b->name); it != methods.end()) return param_names(it->second->params);
      }
      auto doc = builtin_method_doc(*b);
      return doc ? signature_names(doc->signature) : std::vector<std::string>{};
    }
    default:
      return {};
  }
}

namespace {

// help(x): x a value, or a name as a string ("nn.Linear"); prints, returns none.
Value help_builtin(Evaluator& ev, CallArgs& a) {
  Bound b = bind("help", a, {"obj"}, 1);
  std::string text = b[0].tag == Tag::Str ? help_for_name(ev, b[0].as<StrObj>()->s) : help_for_value(ev, b[0]);
  ev.output(text);
  return Value();
}

// dir(obj): the public names of obj's attributes and methods, sorted, as Python's;
// without obj, the names the current module has defined.
Value dir_builtin(Evaluator& ev, CallArgs& a) {
  Bound b = bind("dir", a, {"obj"}, 0);
  Value of = b.given[0] ? b[0] : Value::object(Tag::Module, ev.current_module());
  std::vector<Value> names;
  for (const std::string& n : ev.member_names(of)) names.push_back(make_str(n));
  return make_list(std::move(names));
}

const BuiltinEntry kHelpFunctions[] = {
    {"help", help_builtin, "help(obj)",
     "Prints the signature and doc of a function, model, method, module or value; obj may be a dotted name as a "
     "string, also of a module not imported yet. Example: help(\"nn.Linear\")"},
    {"dir", dir_builtin, "dir(obj=none)",
     "The public names of obj's attributes and methods (a module's, a model's, a tensor's, ...) as a sorted list, "
     "as Python's dir; without obj, the names this module has defined. Example: dir(nn.Linear(2, 3))"},
};

}  // namespace

const BuiltinLibrary kHelpLibrary = {"help", nullptr, kHelpFunctions, nullptr};

}  // namespace nabla::interp
