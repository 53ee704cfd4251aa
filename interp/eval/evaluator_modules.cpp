// Programs and modules: the Evaluator's entry points (run_program, eval_source,
// run_test_block), new modules with the builtins, `import` (native modules, the
// embedded stdlib, stdlib/*.dsl on disk, files by path) and the stdlib source
// registry. Executing statements is evaluator.cpp's; this file only sets up frames
// and modules around it.
#include "interp/eval/evaluator.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>

#include "interp/eval/evaluator_impl.hpp"
#include "interp/app/program_file.hpp"
#include "lang/did_you_mean.hpp"
#include "lang/parser.hpp"
#include "tensor/cpu/blas.hpp"

namespace nabla::interp {

// ---- stdlib sources -----------------------------------------------------------------

namespace {
std::mutex& stdlib_mutex() {
  static std::mutex m;
  return m;
}
std::unordered_map<std::string, std::string>& stdlib_sources() {
  static std::unordered_map<std::string, std::string> m;
  return m;
}
}  // namespace

void register_stdlib_source(const std::string& name, const std::string& source) {
  std::lock_guard<std::mutex> lock(stdlib_mutex());
  stdlib_sources()[name] = source;
}
// Registered sources first (tests, embedders), then the stdlib built into the binary.
const std::string* find_stdlib_source(const std::string& name) {
  std::lock_guard<std::mutex> lock(stdlib_mutex());
  auto it = stdlib_sources().find(name);
  if (it != stdlib_sources().end()) return &it->second;
  for (const auto& [module, text] : embedded_stdlib())
    if (module == name) return &text;
  return nullptr;
}

// ---- imports ------------------------------------------------------------------------------

std::string Evaluator::Impl::import_alias(const ImportStmt& i) {
  if (!i.alias.empty()) return i.alias;
  if (!i.is_path) {
    auto dot = i.module.rfind('.');
    return dot == std::string::npos ? i.module : i.module.substr(dot + 1);
  }
  std::string stem = i.module;
  auto slash = stem.find_last_of("/\\");
  if (slash != std::string::npos) stem = stem.substr(slash + 1);
  auto dot = stem.rfind('.');
  if (dot != std::string::npos) stem = stem.substr(0, dot);
  return stem;
}

namespace {

// The import cache's key of a file: its canonical path.
std::string file_import_key(const std::string& path) {
  std::error_code ec;
  std::filesystem::path canonical = std::filesystem::weakly_canonical(path, ec);
  return "file:" + (ec ? path : canonical.string());
}

}  // namespace

// Note [Import cycles]
// A module is cached when its top level has run, so an import of a module whose own
// imports are still running (a.dsl imports b.dsl imports a.dsl, or a file importing
// itself) would start it again, endlessly: each level held its file open until the
// descriptors ran out. Python would hand out the partly run module instead, whose
// missing names fail later and far from the cause; here the import in progress is
// found on `importing` and the cycle is an error at the import that closes it, naming
// the chain: "circular import: a.dsl -> b.dsl -> a.dsl". A file is known by its
// canonical path (one file reached as "a.dsl" and "./x/../a.dsl" is one module). The
// script being run counts as in progress too (run_program), so a script that imports
// itself, directly or not, fails at once instead of running twice.
std::shared_ptr<Module> Evaluator::Impl::import_once(const std::string& key, const std::string& shown,
                                                     const std::function<std::shared_ptr<Module>()>& load) {
  auto cached = ev.import_cache.find(key);
  if (cached != ev.import_cache.end()) return cached->second;
  for (size_t k = 0; k < importing.size(); ++k) {
    if (importing[k].first != key) continue;
    std::string chain;
    for (size_t j = k; j < importing.size(); ++j) chain += importing[j].second + " -> ";
    fail("circular import: " + chain + shown + " (" + shown + " is still running its imports)");
  }
  importing.emplace_back(key, shown);
  struct Pop {
    std::vector<std::pair<std::string, std::string>>& stack;
    ~Pop() { stack.pop_back(); }
  } pop{importing};
  auto m = load();
  ev.import_cache[key] = m;
  return m;
}

std::shared_ptr<Module> Evaluator::Impl::do_import(const ImportStmt& i) {
  if (!i.is_path) {
    auto cached = ev.import_cache.find(i.module);
    if (cached != ev.import_cache.end()) return cached->second;
    auto nm = ev.native_modules.find(i.module);
    if (nm != ev.native_modules.end()) {
      auto m = nm->second(ev);
      ev.import_cache[i.module] = m;
      return m;
    }
    return import_once(i.module, i.module, [&] { return import_stdlib(i.module); });
  }
  ev.check_sandbox(("import \"" + i.module + "\"").c_str());
  std::string base = module->path;
  std::string dir;
  auto slash = base.find_last_of('/');
  if (slash != std::string::npos) dir = base.substr(0, slash + 1);
  std::string path = std::filesystem::path(!i.module.empty() && i.module[0] == '/' ? i.module : dir + i.module)
                         .lexically_normal()
                         .string();
  return import_once(file_import_key(path), path, [&] {
    std::string text;
    if (std::string problem = read_program_file(path, &text); !problem.empty())
      fail("cannot import '" + i.module + "': " + problem);
    return load_module(import_alias(i), path, text, false);
  });
}

std::shared_ptr<Module> Evaluator::find_module(const std::string& name) {
  if (!import_cache.count(name) && !native_modules.count(name) && !find_stdlib_source(name)) return nullptr;
  ImportStmt i;
  i.module = name;
  i.alias = name;
  return impl->do_import(i);
}

// A standard-library module: the embedded source (or one registered by a test), else
// stdlib/<name>.dsl on disk ($NABLA_STDLIB, then next to the source tree).
std::shared_ptr<Module> Evaluator::Impl::import_stdlib(const std::string& name) {
  if (name == "nn") cpu::start_gemm_warm_up();  // Note [Warming up sgemm's kernels]
  if (const std::string* src = find_stdlib_source(name))
    return load_module(name, kStdlibPrefix + name + ".dsl", *src, true);
  ev.check_sandbox(("import " + name).c_str());  // not embedded: it would read the disk
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("NABLA_STDLIB")) dirs.push_back(env);
#ifdef NABLA_STDLIB_DIR
  dirs.push_back(NABLA_STDLIB_DIR);
#endif
  dirs.push_back("stdlib");
  for (auto& d : dirs) {
    std::string path = d + "/" + name + ".dsl", text;
    if (program_file_problem(path).empty() && read_program_file(path, &text).empty())
      return load_module(name, path, text, true);
  }
  // torch.utils' halves live in two places here (new-user round 6: `import utils` found 'time')
  if (name == "utils")
    fail("no module named 'utils' (torch.utils.data is 'import data': data.DataLoader, data.random_split; "
         "torch.utils.checkpoint is nn.checkpoint after 'import nn')");
  fail("no module named '" + name + "'" + did_you_mean(name, module_names(), Closeness::loose));
}

std::shared_ptr<Module> Evaluator::Impl::load_module(const std::string& name, const std::string& path,
                                                    const std::string& text, bool library) {
  // A builtin may import on its first call (torch.erfinv imports special): the module's
  // top level must not leave its last call site as the builtin's, or the callback and
  // its errors are placed at a line of the module instead of the user's call.
  SiteGuard keep_call_site(*this);
  auto file = std::make_shared<SourceFile>();
  file->name = path;
  file->text = text;
  file->library = library;
  auto parsed = parse(file);
  if (!parsed.program) fail("in module '" + name + "':\n" + parsed.error.value_or("syntax error"));
  auto m = ev.new_module(name, path);
  std::shared_ptr<Program> prog(std::move(parsed.program));
  bool dummy = false;
  ev.run_program(prog, m, false, &dummy);
  return m;
}

// ---- Evaluator ----------------------------------------------------------------------

Evaluator::Evaluator() : impl(std::make_unique<Impl>(*this)) {
  CycleRegistry::Scope objects(&cycles);
  // Line-buffered even into a pipe or a file, so a training log shows each epoch's
  // line as it happens.
  output = [](const std::string& s) {
    std::fwrite(s.data(), 1, s.size(), stdout);
    if (s.find('\n') != std::string::npos) std::fflush(stdout);
  };
  warning_output = [](const std::string& s) {
    std::fflush(stdout);  // after what was printed before it
    std::fwrite(s.data(), 1, s.size(), stderr);
  };
  install_builtins(*this);
  main_module = new_module("__main__", "");
}
// Drops the roots, then empties what they held, which frees the cycles among them:
// a module and its functions, closures and their frames, a tensor in a global whose
// autograd node holds a custom function's class (Note [Reference cycles] in cycles.hpp).
Evaluator::~Evaluator() {
  cpu::finish_gemm_warm_up();  // Note [Warming up sgemm's kernels]
  CycleRegistry::Scope objects(&cycles);
  main_module.reset();
  import_cache.clear();
  builtins.clear();
  last_profile.reset();
  impl.reset();
  cycles.release_all();
}

std::shared_ptr<Module> Evaluator::new_module(const std::string& name, const std::string& path) {
  auto m = std::make_shared<Module>();
  m->name = name;
  m->path = path;
  for (auto& [n, v] : builtins) m->set(n, v);
  return m;
}

// The old main module and the imported modules become garbage; the caller frees
// their cycles (Interpreter::Impl::run collects after every job). The parsed programs
// stay with the evaluator (impl->programs): a function object that outlives the
// session, say in an autograd node not yet freed, still finds its resolution.
void Evaluator::reset_session() {
  const Value* old_args = main_module->get("args");
  Value kept_args = old_args ? *old_args : Value();
  main_module = new_module("__main__", "");
  if (old_args) main_module->set("args", kept_args);
  import_cache.clear();
  last_profile.reset();
  tests = TestState();
  current_file.clear();
}

Value Evaluator::run_program(const std::shared_ptr<Program>& prog, const std::shared_ptr<Module>& module,
                             bool want_echo, bool* has_echo) {
  impl->programs.push_back(prog);
  impl->resolve_program(*prog, module.get(), false);
  Impl::FrameGuard g(*impl);
  impl->frame = nullptr;
  impl->module = module.get();
  // The script itself, while it runs, is an import in progress (Note [Import cycles]).
  bool script = module == main_module && !module->path.empty() && prog->file && prog->file->name == module->path;
  if (script) impl->importing.emplace_back(file_import_key(module->path), module->path);
  struct Pop {
    std::vector<std::pair<std::string, std::string>>* stack;
    ~Pop() {
      if (stack) stack->pop_back();
    }
  } pop{script ? &impl->importing : nullptr};
  return run_statements(*prog, want_echo, has_echo);
}

Value Evaluator::run_statements(const Program& prog, bool want_value, bool* has_value) {
  *has_value = false;
  Value last;
  for (auto& s : prog.stmts) {
    Flow f = impl->exec(*s);
    impl->check_interrupt_after(*s);
    if (f != Flow::Normal) {
      LangError e(f == Flow::Return ? "'return' outside a function" : stray_flow_message(f));
      impl->locate(e, s->span);
      throw e;
    }
    // Only a top-level expression statement gives the value (the REPL echoes it):
    // last_value is also set by expression statements that ran inside the calls of
    // this one (`let m = nn.Linear(4, 3)` runs the constructor's), and an expression
    // statement sets it last, after everything it called.
    if (want_value) {
      *has_value = s->kind == StmtKind::Expr;
      if (*has_value) last = std::move(impl->last_value);
    }
    impl->last_value = Value();
  }
  return last;
}

std::shared_ptr<Module> Evaluator::current_module() {
  return impl->module ? impl->module->shared_from_this() : main_module;
}

void Evaluator::run_test_block(const lang::TestStmt& test, const std::shared_ptr<Module>& module) {
  Impl::FrameGuard g(*impl);
  impl->frame = nullptr;
  impl->module = module.get();
  const lang::TestStmt* saved_test = impl->running_test;
  impl->running_test = &test;
  struct Restore {
    Impl& impl;
    const lang::TestStmt* test;
    ~Restore() { impl.running_test = test; }
  } restore{*impl, saved_test};
  const lang::Block& body = test.body;
  Flow f = Flow::Normal;
  for (size_t k = 0; k < body.stmts.size() && f == Flow::Normal; ++k) {  // exec_block, checking interrupts
    f = impl->exec(*body.stmts[k]);
    impl->check_interrupt_after(*body.stmts[k]);
  }
  if (f != Flow::Normal && f != Flow::Return) fail(stray_flow_message(f));
}

Value Evaluator::eval_source(const std::string& source, const std::string& name, const std::shared_ptr<Module>& module,
                             bool want_value) {
  auto file = std::make_shared<SourceFile>();
  file->name = name;
  file->text = source;
  auto parsed = parse(file);
  if (!parsed.program) fail(parsed.error.value_or("syntax error"));
  std::shared_ptr<Program> prog(std::move(parsed.program));
  impl->programs.push_back(prog);
  // At a test block's own level (not in a function it calls), the code sees the block's locals.
  const BlockNames* visible = nullptr;
  if (impl->running_test && !impl->frame && impl->module == module.get()) visible = &impl->test_locals[impl->running_test];
  impl->resolve_program(*prog, module.get(), true, visible);
  Impl::FrameGuard g(*impl);
  impl->frame = nullptr;
  impl->module = module.get();
  bool has_value = false;
  Value last = run_statements(*prog, want_value, &has_value);
  return has_value ? last : Value();
}

}  // namespace nabla::interp
