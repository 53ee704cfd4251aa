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
  if (name == "Generator")
    return " (nabla has one random generator, no torch.Generator objects: manual_seed(n) seeds it, "
           "get_rng_state() and set_rng_state(state) save and restore it, so a stream of its own is a "
           "state set around its draws)";
  if (name == "stft" || name == "istft")
    return " (torch.stft's spectrum is complex, and nabla has no complex tensors; the windows exist: "
           "hann_window, hamming_window, blackman_window, bartlett_window, kaiser_window)";
  if (name == "F")
    return " (torch.nn.functional's functions are builtins of the same name: 'relu(x)', "
           "'cross_entropy(logits, y)'; also nn.relu after 'import nn')";
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
