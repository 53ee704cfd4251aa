// The one list of the builtins' libraries (Lua's linit.c) and what reads it:
// install_builtins, and find_builtin_doc for :help. Each library is one table in one
// builtins_*.cpp file (Note [Builtin tables] in builtin_table.hpp); this file names
// no builtin itself.
#include "interp/builtins/builtins_internal.hpp"

namespace nabla::interp {

namespace {

// Every library, in the order they are installed. The ops of the op table are
// installed before all of them (install_builtins), so that a library may take an
// op's name: abs, max, min, sum and pow are Python's, and call the op for a tensor.
const BuiltinLibrary* const kBuiltinLibraries[] = {
    &kPythonLibrary, &kNumberLibrary, &kSystemLibrary, &kFactoryLibrary, &kAutogradLibrary, &kTestLibrary,
    &kCheckpointLibrary, &kOptimLibrary, &kMemoryLibrary, &kModelLibrary, &kProfileLibrary, &kGraphLibrary,
    &kMathLibrary, &kTimeLibrary, &kCudaLibrary, &kDistLibrary, &kDataLibrary, &kPlotLibrary, &kFuncLibrary,
    &kFuncModule, &kHelpLibrary, &kLogLibrary, &kDisplayLibrary, &kNnFunctionalLibrary, &kGeneratorLibrary,
    &kIterLibrary,
};

// A native module made from its library: the values first, then the functions.
std::shared_ptr<Module> make_library_module(const BuiltinLibrary& library) {
  auto m = std::make_shared<Module>();
  m->name = library.module;
  NamedValues values;
  if (library.add_values) library.add_values(values);
  for (auto& [name, value] : values) m->set(name, value);
  for (const BuiltinEntry& e : library.functions) m->set(e.name, make_native(e.name, e.function));
  return m;
}

// Global builtins go into ev.builtins; a module library becomes what `import` gives.
void install_library(Evaluator& ev, const BuiltinLibrary& library) {
  if (library.module) {
    ev.native_modules[library.module] = [&library](Evaluator&) { return make_library_module(library); };
    return;
  }
  NamedValues values;
  if (library.add_values) library.add_values(values);
  for (auto& [name, value] : values) ev.builtins.emplace_back(name, value);
  for (const BuiltinEntry& e : library.functions) install_function(ev, e.name, e.function);
}

BuiltinDoc doc_of(const std::string& name, const char* signature, const char* doc) { return {name, signature, doc}; }

// An op by name: the function that gives it Python's conventions, else its row.
std::optional<BuiltinDoc> op_builtin_doc(const std::string& name) {
  if (const BuiltinEntry* e = find_entry(op_conventions(), name))
    return BuiltinDoc{name, e->signature, convention_doc(*e)};
  if (const OpDef* row = find_op(name)) return BuiltinDoc{name, op_signature(*row), op_doc(*row)};
  return std::nullopt;
}

// A global builtin: the last library to install the name has the row that is bound;
// the ops were installed before every library.
std::optional<BuiltinDoc> global_doc(const std::string& name) {
  auto libraries = builtin_libraries();
  for (auto it = libraries.rbegin(); it != libraries.rend(); ++it) {
    if ((*it)->module) continue;
    if (const BuiltinEntry* e = find_entry((*it)->functions, name)) return doc_of(name, e->signature, e->doc);
  }
  return op_builtin_doc(name);
}

// "math.sqrt", "str.split", "tensor.sum", "model.parameters".
std::optional<BuiltinDoc> member_doc(const std::string& name, const std::string& owner, const std::string& member) {
  for (const BuiltinLibrary* library : builtin_libraries())
    if (library->module && owner == library->module)
      if (const BuiltinEntry* e = find_entry(library->functions, member)) return doc_of(name, e->signature, e->doc);
  const std::pair<const char*, Tag> receivers[] = {
      {"str", Tag::Str}, {"list", Tag::List}, {"tuple", Tag::Tuple}, {"dict", Tag::Dict}};
  for (auto [kind, tag] : receivers)
    if (owner == kind)
      if (const MethodEntry* m = find_entry(container_methods(tag), member)) return doc_of(name, m->signature, m->doc);
  if (owner == "model")
    if (const MethodEntry* m = find_entry(model_methods(), member)) return doc_of(name, m->signature, m->doc);
  if (owner == "figure")
    if (const BuiltinEntry* e = find_entry(figure_methods(), member)) return doc_of(name, e->signature, e->doc);
  if (owner != "tensor") return std::nullopt;
  if (const BuiltinEntry* e = find_entry(tensor_methods(), member)) return doc_of(name, e->signature, e->doc);
  return op_builtin_doc(member);  // every op is a method too
}

}  // namespace

std::span<const BuiltinLibrary* const> builtin_libraries() { return kBuiltinLibraries; }

// Adds (or replaces) the builtin `name`: the ops' functions and every library's rows.
void install_function(Evaluator& ev, const std::string& name, Fn fn) {
  for (auto& [n, v] : ev.builtins)
    if (n == name) {
      v = make_native(name, std::move(fn));
      return;
    }
  ev.builtins.emplace_back(name, make_native(name, std::move(fn)));
}

void install_builtins(Evaluator& ev) {
  install_op_builtins(ev);
  for (const BuiltinLibrary* library : builtin_libraries()) install_library(ev, *library);
}

std::optional<BuiltinDoc> find_builtin_doc(const std::string& name) {
  size_t dot = name.find('.');
  if (dot == std::string::npos) return global_doc(name);
  if (name.find('.', dot + 1) != std::string::npos) return std::nullopt;
  return member_doc(name, name.substr(0, dot), name.substr(dot + 1));
}

}  // namespace nabla::interp
