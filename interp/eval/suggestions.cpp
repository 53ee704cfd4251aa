// The interpreter's did-you-mean messages: which names are candidates when a lookup
// fails (keywords of a call, names in scope). The ranking and phrasing are
// lang/did_you_mean.hpp's, shared by every message.
#include <algorithm>

#include "interp/eval/evaluator_impl.hpp"
#include "lang/did_you_mean.hpp"

namespace nabla::interp {

// A method's receiver (`self`, bound by position) is left out of the list: it is
// never what a caller means to name.
void fail_unexpected_keyword(const std::string& fname, const std::string& key,
                             const std::vector<std::string>& valid) {
  std::vector<std::string> named;
  for (const std::string& v : valid)
    if (v != "self") named.push_back(v);
  fail(fname + "() got an unexpected keyword argument '" + clip_for_message(key) + "'" + keyword_suggestion(key, named));
}

std::vector<std::string> Evaluator::Impl::module_names() const {
  std::vector<std::string> out;
  for (const auto& [name, text] : embedded_stdlib()) out.push_back(name);
  for (const auto& [name, load] : ev.native_modules) out.push_back(name);
  std::sort(out.begin(), out.end());
  return out;
}

// A constructor argument is a local of the constructor, not a field (`model
// Chomp(n) { forward(x) = x[..., :-self.n] }`): methods read it by its bare name, and
// PyTorch users keep it with `self.n = n`, which here is a member `n = n`; say so
// rather than guess a name.
static bool is_constructor_argument(const Value& obj, const std::string& name) {
  if (obj.tag != Tag::Instance) return false;
  const auto& params = obj.as<InstanceObj>()->cls->decl->params;
  return std::any_of(params.begin(), params.end(), [&](const Param& p) { return p.name == name; });
}

std::string Evaluator::attribute_hint(const Value& obj, const std::string& name) {
  if (quiet_lookups_ > 0) return "";  // Note [Lookups that expect to miss]
  if (is_constructor_argument(obj, name))
    return " ('" + name + "' is an argument of the constructor, not a field: methods read it as '" + name +
           "', or add the member '" + name + " = " + name + "' to make it one, as PyTorch's self." + name + " = " +
           name + ")";
  return did_you_mean(name, member_names(obj));
}

// Note [A name of a module not imported]
// PyTorch has many functions at the top (torch.slogdet, torch.special's erfcx through
// torch.special) that nabla keeps in a stdlib module (linalg.slogdet). A name that is
// undefined here but is a public top-level definition (fn, model or let at the start of
// a line) of a public stdlib module this file did not import is named with that module:
// "did you mean linalg.slogdet? (write 'import linalg' first)". It is worded as a
// guess, since a misspelled local can share a module function's name (random.sample).
// The embedded sources are only scanned as text: nothing is loaded or run to word it.
static bool defines_at_top(const std::string& text, const std::string& name) {
  for (const char* kind : {"fn ", "model ", "let "}) {
    const std::string head = std::string(kind) + name;
    for (size_t at = text.find(head); at != std::string::npos; at = text.find(head, at + 1)) {
      const bool line_start = at == 0 || text[at - 1] == '\n';
      const char next = at + head.size() < text.size() ? text[at + head.size()] : '\0';
      if (line_start && (next == '(' || next == ' ' || next == '{')) return true;
    }
  }
  return false;
}

std::string Evaluator::Impl::module_defining(const std::string& name) const {
  if (name.empty() || name[0] == '_') return "";
  for (const auto& [module_name, text] : embedded_stdlib()) {
    if (module_name.empty() || module_name[0] == '_' || module->names.count(module_name)) continue;
    if (defines_at_top(text, name)) return module_name;
  }
  return "";
}

// The candidates for a name read before anything defined it: the locals in scope
// where it was read, the module's names (builtins included), and the members of the
// modules it imported, qualified ("nn.Linear" for `Lienar`).
std::string Evaluator::Impl::undefined_name_hint(const std::string& name, const Name* n) {
  if (find_stdlib_source(name) || ev.native_modules.count(name))
    return " (it is a module: write 'import " + name + "' first)";
  if (name == "self") return " (self exists inside a model's methods; a static method has none)";
  // PyTorch's module prefixes, the first thing a PyTorch user types: its functions are
  // nabla's builtins under the same names.
  if (name == "torch")
    return " (nabla has no torch module: PyTorch's tensor functions are builtins of the same name, "
           "'full(...)' for 'torch.full(...)'; torch.nn is 'import nn', torch.optim 'import optim')";
  if (name == "utils")  // torch.utils.checkpoint.checkpoint(...), torch.utils.data.DataLoader(...)
    return " (torch.utils.checkpoint is nn.checkpoint after 'import nn'; torch.utils.data is 'import data': "
           "data.DataLoader, data.random_split)";
  if (name == "stft" || name == "istft")
    return " (torch.stft's spectrum is complex, and nabla has no complex tensors; the windows exist: "
           "hann_window, hamming_window, blackman_window, bartlett_window, kaiser_window)";
  // torch.Tensor(2, 3) and its typed kin, still in older model code (Set Transformer's seeds)
  static const std::pair<const char*, const char*> legacy_constructors[] = {
      {"Tensor", "f32"}, {"FloatTensor", "f32"}, {"DoubleTensor", "f64"}, {"LongTensor", "i64"},
      {"IntTensor", "i32"}, {"BoolTensor", "bool"}};
  for (const auto& [legacy, dtype] : legacy_constructors)
    if (name == legacy)
      return " (PyTorch's legacy constructor: torch." + name + "(2, 3) is empty(2, 3, dtype=" + dtype + ") here, torch." +
             name + "([1, 2]) is tensor([1, 2], dtype=" + dtype + "), and isinstance(x, torch.Tensor) is is_tensor(x))";
  if (name == "polar" || name == "view_as_complex" || name == "view_as_real" || name == "complex")
    return " (nabla has no complex tensors: write a rotation with real cos and sin tables, as rotary embeddings' "
           "x * cos + rotate_half(x) * sin form does)";
  if (name == "F")
    return " (torch.nn.functional's functions are builtins of the same name: 'relu(x)', "
           "'cross_entropy(logits, y)'; also nn.relu after 'import nn')";
  if (std::string home = module_defining(name); !home.empty())
    return "; did you mean " + home + "." + name + "? (write 'import " + home + "' first)";
  std::vector<std::string> candidates;
  if (auto it = n ? scope_of_new_names.find(n) : scope_of_new_names.end(); it != scope_of_new_names.end())
    candidates = it->second;
  for (size_t k = 0; k < module->slot_names.size(); ++k) {
    const std::string& slot_name = module->slot_names[k];
    if (!module->defined[k] || !module->names.count(slot_name)) continue;
    candidates.push_back(slot_name);
    if (module->slots[k].tag != Tag::Module) continue;
    for (const std::string& member : ev.member_names(module->slots[k])) candidates.push_back(slot_name + "." + member);
  }
  return did_you_mean(name, candidates);
}

}  // namespace nabla::interp
