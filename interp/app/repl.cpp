#include "interp/app/repl.hpp"

#include <editline/readline.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>

#include "interp/builtins/help.hpp"
#include "lang/parser.hpp"
#include "tensor/memory_stats.hpp"

namespace nabla {

// ---- Ctrl-C ---------------------------------------------------------------------

namespace {

// The interpreter that a SIGINT interrupts (null at the prompt); Ctrl-Cs since it
// started; whether Ctrl-C was pressed at the prompt. Lock-free, so signal-safe.
std::atomic<Interpreter*> g_interrupt_target{nullptr};
std::atomic<int> g_interrupts{0};
std::atomic<int> g_sigints_received{0};  // every SIGINT of the process (Note [Interrupts])
volatile std::sig_atomic_t g_sigint_at_prompt = 0;

void on_sigint(int) {
  g_sigints_received.fetch_add(1);
  Interpreter* target = g_interrupt_target.load();
  if (!target) {
    g_sigint_at_prompt = 1;
    return;
  }
  target->interrupt();
  if (g_interrupts.fetch_add(1) + 1 >= 3) {
    const char msg[] = "\nnabla: interrupted three times, exiting\n";
    ssize_t ignored = write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)ignored;
    _exit(130);
  }
}

}  // namespace

void install_sigint_handler() {
  struct sigaction sa {};
  sa.sa_handler = on_sigint;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: a read at the prompt returns EINTR
  sigaction(SIGINT, &sa, nullptr);
}

int sigints_received() { return g_sigints_received.load(); }

InterruptScope::InterruptScope(Interpreter& interp) {
  g_interrupts = 0;
  g_interrupt_target = &interp;
}

InterruptScope::~InterruptScope() { g_interrupt_target = nullptr; }

// ---- completion -----------------------------------------------------------------

namespace {


// Under --sandbox (Note [REPL sandbox]) :load is refused like a builtin that reads
// files; the others run code through the sandboxed builtins or only print (:mem reads
// the allocators' figures, :passes and :ops static tables).
struct Command {
  const char* name;
  const char* usage;
  const char* help;
};
const Command kCommands[] = {
    {"help", ":help [name]",
     "this help, or what a name, keyword or command is: its signature, doc and example (nn.Linear, Tensor.sum)"},
    {"type", ":type expr", "the type of an expression's value"},
    {"time", ":time stmt", "run a statement and print how long it took"},
    {"prof", ":prof stmt", "run a statement under the profiler and print its ops (last_profile() has them all)"},
    {"vars", ":vars", "the variables defined in this session, with their values"},
    {"load", ":load file", "run a .dsl file in this session (its names stay defined)"},
    {"reset", ":reset", "forget every variable and import of this session (a fresh start; settings stay)"},
    {"graph", ":graph expr", "a graph module's IR and pass report; f(x, y) first compiles f on those inputs"},
    {"passes", ":passes", "every graph pass (what it does, what it needs) and the default pipeline"},
    {"cost", ":cost expr", "FLOPs, bytes, roofline bound and time of each node of a graph (as :graph compiles it)"},
    {"ops", ":ops", "every op of the table: devices, grad, fusable, grad of grad (as nabla --list-ops)"},
    {"mem", ":mem [device]",
     "a device's memory (cpu by default, or cuda[:N]): figures, largest live tensors and their lines"},
    {"set", ":set [setting]",
     "the settings; :set full_trace on shows errors and ops at the standard library's own lines, off at yours"},
    {"quit", ":quit", "leave the REPL (Ctrl-D too)"},
};

bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// A leading '_' marks a name private to its module: completion offers it only to a
// word that starts with '_'.
bool is_private_name(const std::string& name) { return !name.empty() && name[0] == '_'; }

std::vector<std::string> sorted_unique(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

}  // namespace

std::string member_target(const std::string& line, size_t dot) {
  size_t i = dot;
  int depth = 0;  // inside [...] while scanning backwards
  while (i > 0) {
    char c = line[i - 1];
    if (depth > 0) depth += c == ']' ? 1 : c == '[' ? -1 : 0;
    else if (c == ']') depth = 1;
    else if (!is_name_char(c) && c != '.') break;
    --i;
  }
  std::string expr = line.substr(i, dot - i);
  if (depth != 0 || expr.empty() || !(std::isalpha(static_cast<unsigned char>(expr[0])) || expr[0] == '_') ||
      expr.find('(') != std::string::npos)
    return "";
  return expr;
}

std::string call_target(const std::string& line, size_t start) {
  size_t i = std::min(start, line.size());
  while (i > 0 && line[i - 1] == ' ') --i;
  if (i == 0 || (line[i - 1] != '(' && line[i - 1] != ',')) return "";  // not where an argument starts
  int depth = 0;  // closed brackets passed while scanning back
  char quote = 0;
  for (; i > 0; --i) {
    char c = line[i - 1];
    if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == ')' || c == ']' || c == '}') {
      ++depth;
    } else if (c == '(' || c == '[' || c == '{') {
      if (depth == 0) return c == '(' ? member_target(line, i - 1) : "";
      --depth;
    }
  }
  return "";
}

std::vector<std::string> repl_completions(Interpreter& interp, const std::string& line, size_t start) {
  if (start > 0 && start <= line.size() && line[start - 1] == '.') {
    std::string target = member_target(line, start - 1);
    if (target.empty()) return {};
    InterruptScope scope(interp);
    return sorted_unique(interp.member_names(target));
  }
  std::vector<std::string> names;
  if (start == 1 && line[0] == ':') {
    for (const Command& c : kCommands) names.push_back(c.name);
    return names;
  }
  if (std::string callee = call_target(line, start); !callee.empty()) {
    InterruptScope scope(interp);
    for (const std::string& k : interp.keyword_names(callee)) names.push_back(k + "=");
  }
  for (std::string& n : interp.global_names())
    if (!(is_private_name(n) && (start >= line.size() || line[start] != '_'))) names.push_back(std::move(n));
  for (const char* k : interp::language_keywords()) names.push_back(k);
  return sorted_unique(std::move(names));
}

EntryStatus entry_status(const std::string& code) {
  auto file = std::make_shared<lang::SourceFile>(lang::SourceFile{"<repl>", code});
  lang::ParseResult parsed = lang::parse(file);
  if (parsed.incomplete) return EntryStatus::incomplete;
  return parsed.program ? EntryStatus::complete : EntryStatus::invalid;
}

// ---- reading lines --------------------------------------------------------------

namespace {

enum class Read { line, eof, interrupted };

// Plain lines from stdin (a pipe or a file): no prompts, no escape codes.
class PlainInput {
 public:
  Read read(std::string& line) {
    for (;;) {
      size_t nl = buffer_.find('\n');
      if (nl != std::string::npos || (at_eof_ && !buffer_.empty())) {
        line = buffer_.substr(0, nl);
        buffer_.erase(0, nl == std::string::npos ? nl : nl + 1);
        if (!line.empty() && line.back() == '\r') line.pop_back();
        // A UTF-8 byte order mark opening the input (`nabla < prog.dsl` of a file a
        // Windows editor saved) is not code, as a program file's is not
        // (read_program_file): it was "expected a statement" at 1:1.
        if (first_line_ && line.starts_with("\xEF\xBB\xBF")) line.erase(0, 3);
        first_line_ = false;
        return Read::line;
      }
      if (at_eof_) return Read::eof;
      char chunk[4096];
      ssize_t n = ::read(STDIN_FILENO, chunk, sizeof chunk);
      if (n > 0) buffer_.append(chunk, static_cast<size_t>(n));
      else if (n == 0 || errno != EINTR) at_eof_ = true;
      else if (g_sigint_at_prompt) return g_sigint_at_prompt = 0, Read::interrupted;
    }
  }

 private:
  std::string buffer_;
  bool at_eof_ = false;
  bool first_line_ = true;
};

// libedit's readline: line editing, history kept in a file, tab completion.
Interpreter* g_completion_interp = nullptr;
std::vector<std::string> g_matches;
size_t g_next_match = 0;

char* next_match(const char* text, int state) {
  if (state == 0) g_next_match = 0;
  size_t n = std::strlen(text);
  while (g_next_match < g_matches.size()) {
    const std::string& m = g_matches[g_next_match++];
    if (m.compare(0, n, text) == 0) return strdup(m.c_str());
  }
  return nullptr;
}

char** complete(const char* text, int start, int) {
  std::string line(rl_line_buffer ? rl_line_buffer : "");
  if (line.rfind(":load ", 0) == 0) {
    // libedit completes file names, which lists folders: not in sandbox mode.
    rl_attempted_completion_over = g_completion_interp->limits().sandbox ? 1 : 0;
    return nullptr;
  }
  rl_attempted_completion_over = 1;
  g_matches = repl_completions(*g_completion_interp, line, static_cast<size_t>(start));
  return rl_completion_matches(text, next_match);
}

// The history file, or "" for none.
//
// Note [REPL sandbox]
// `nabla --sandbox` promises that the program cannot reach files, sockets or the
// environment beyond what Evaluator::check_sandbox lets through, and in the REPL the
// program is what is typed (or piped) at it. So the REPL's own ways outside go
// through the same check: :load (Interpreter::sandbox_refusal, before the file is
// opened, so not even its first line shows in an error), file-name completion after
// :load, and the history file, which is neither read nor written (nor are HOME and
// NABLA_HISTORY read); history then lives in memory for the session.
//
// libedit reads and rewrites the history file in place: a FIFO or a device there
// would block the REPL (or be written into), so only a regular file, or a free name,
// is used (Note [Save targets] in tensor/atomic_file.hpp).
std::string history_path(bool sandbox) {
  if (sandbox) return "";
  std::string path;
  if (const char* p = std::getenv("NABLA_HISTORY"); p && *p) path = p;
  else if (const char* home = std::getenv("HOME"); home && *home) path = std::string(home) + "/.nabla_history";
  struct stat st;
  if (!path.empty() && ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) return "";
  return path;
}

// libedit's own read retries once after EINTR, so a Ctrl-C at the prompt could be
// swallowed; this reader polls and gives up (as end of input) once it is pressed.
int read_key_or_interrupt(FILE* in) {
  for (;;) {
    if (g_sigint_at_prompt) return -1;
    pollfd p{fileno(in), POLLIN, 0};
    int ready = poll(&p, 1, 100);
    if (ready < 0 && errno != EINTR) return -1;
    if (ready <= 0) continue;
    unsigned char c;
    ssize_t n = ::read(p.fd, &c, 1);
    if (n == 1) return c;
    if (n == 0 || errno != EINTR) return -1;
  }
}

class EditInput {
 public:
  explicit EditInput(Interpreter& interp) : history_(history_path(interp.limits().sandbox)) {
    rl_getc_function = read_key_or_interrupt;  // before anything initialises libedit
    g_completion_interp = &interp;
    rl_readline_name = "nabla";
    rl_outstream = isatty(STDOUT_FILENO) ? stdout : stderr;
    static char breaks[] = " \t\n\"'`@$><=;|&{}()[],+-*/%^!~:.";
    rl_basic_word_break_characters = breaks;
    rl_completer_word_break_characters = breaks;
    rl_attempted_completion_function = complete;
    rl_completion_append_character = '\0';
    using_history();
    stifle_history(1000);
    if (!history_.empty()) read_history(history_.c_str());
  }

  // A Ctrl-C since the last statement ended counts for this prompt.
  Read read(const char* prompt, std::string& line) {
    char* s = g_sigint_at_prompt ? nullptr : readline(prompt);
    if (g_sigint_at_prompt) {
      g_sigint_at_prompt = 0;
      std::free(s);
      return Read::interrupted;
    }
    if (!s) return Read::eof;
    line = s;
    std::free(s);
    return Read::line;
  }

  // Each line goes to the history file at once, so a crash loses nothing.
  void remember(const std::string& line) {
    if (line.find_first_not_of(" \t") == std::string::npos) return;
    add_history(line.c_str());
    if (!history_.empty()) write_history(history_.c_str());
  }

 private:
  std::string history_;
};

// ---- the loop -------------------------------------------------------------------

std::string trim(const std::string& s) {
  size_t a = s.find_first_not_of(" \t\r\n"), b = s.find_last_not_of(" \t\r\n");
  return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

bool parses_incomplete(const std::string& code) { return entry_status(code) == EntryStatus::incomplete; }

// Splits ":cmd rest" into its name and argument.
std::pair<std::string, std::string> split_command(const std::string& entry) {
  std::string body = trim(entry).substr(1);
  size_t sp = body.find_first_of(" \t\n");
  if (sp == std::string::npos) return {body, ""};
  return {body.substr(0, sp), trim(body.substr(sp))};
}

std::string first_line(const std::string& s, size_t max_width) {
  std::string l = s.substr(0, s.find('\n'));
  if (l.size() > max_width || l.size() < s.size()) l = l.substr(0, std::min(l.size(), max_width - 3)) + "...";
  return l;
}

std::string format_duration(double seconds) {
  char buf[64];
  if (seconds < 1e-3) std::snprintf(buf, sizeof buf, "%.1f us", seconds * 1e6);
  else if (seconds < 1) std::snprintf(buf, sizeof buf, "%.3f ms", seconds * 1e3);
  else std::snprintf(buf, sizeof buf, "%.3f s", seconds);
  return buf;
}

class Repl {
 public:
  Repl(Interpreter& interp, bool tty) : interp_(interp), tty_(tty) {
    for (auto& n : interp.global_names()) initial_names_.insert(n);
    if (tty) edit_.emplace(interp);
  }

  int run() {
    if (tty_) std::printf("nabla %s: :help for help, Ctrl-D to leave\n", NABLA_VERSION);
    std::string entry;
    while (read_entry(entry)) {
      if (trim(entry).empty()) continue;
      if (!run_entry(entry)) break;
    }
    if (tty_ && at_eof_) std::putchar('\n');
    std::fflush(stdout);
    return tty_ ? 0 : worst_;
  }

 private:
  Read read_line(const char* prompt, std::string& line) {
    std::fflush(stdout);
    if (edit_) return edit_->read(prompt, line);
    return plain_.read(line);
  }

  // A whole entry: lines until it parses as complete. False at the end of input.
  bool read_entry(std::string& entry) {
    entry.clear();
    for (;;) {
      std::string line;
      Read r = read_line(entry.empty() ? ">>> " : "... ", line);
      if (r == Read::interrupted) {
        if (tty_) std::putchar('\n');
        entry.clear();
        continue;
      }
      if (r == Read::eof) {
        at_eof_ = true;
        if (entry.empty()) return false;
        if (!tty_) return true;  // run it: the syntax error says what is missing
        std::putchar('\n');      // Ctrl-D on a continuation line drops the entry
        entry.clear();
        at_eof_ = false;
        continue;
      }
      if (edit_) edit_->remember(line);
      entry += line + "\n";
      if (!needs_more(entry)) return true;
    }
  }

  static bool needs_more(const std::string& entry) {
    std::string t = trim(entry);
    if (t.empty()) return false;
    if (t[0] != ':') return parses_incomplete(entry);
    auto [name, arg] = split_command(entry);
    return (name == "time" || name == "prof" || name == "type" || name == "graph" || name == "cost") &&
           !arg.empty() &&
           parses_incomplete(arg);
  }

  bool run_entry(const std::string& entry) {
    if (trim(entry)[0] == ':') return run_command(entry);
    eval(entry, true);
    return true;
  }

  // Each entry is its own source, "<repl:N>", in errors.
  EvalResult run_code(const std::string& code) {
    InterruptScope scope(interp_);
    return interp_.eval(code, "<repl:" + std::to_string(++entries_) + ">");
  }

  void eval(const std::string& code, bool echo) { report(run_code(code), echo); }

  void report(const EvalResult& r, bool echo) {
    std::fflush(stdout);
    if (!r.ok && r.error) {
      std::fprintf(stderr, "%s\n", r.error->message.c_str());
      worst_ = std::max(worst_, r.error->interrupted ? 130 : r.error->kind == EvalError::Kind::syntax ? 2 : 1);
    } else if (echo && !r.echo.empty()) {
      std::printf("%s\n", r.echo.c_str());
    }
  }

  bool run_command(const std::string& entry) {
    auto [name, arg] = split_command(entry);
    // A command that takes nothing refuses extra words, as :reset does: `:quit now` left
    // the REPL, dropping the entries piped after it, and `:vars x` ignored the x.
    const bool quit = name == "quit" || name == "q" || name == "exit";
    if (quit && arg.empty()) return false;
    if (quit) usage_error("usage: :" + name + " (it takes nothing, got '" + arg + "')");
    else if (name == "help") help(arg);
    else if (name == "type" && !arg.empty()) type(arg);
    else if (name == "time" && !arg.empty()) time(arg);
    else if (name == "prof" && !arg.empty()) profile(arg);
    else if (name == "vars" && arg.empty()) vars();
    else if (name == "reset" && arg.empty()) interp_.reset();
    else if (name == "load" && !arg.empty()) load(arg);
    else if (name == "graph" && !arg.empty()) graph(arg, false);
    else if (name == "cost" && !arg.empty()) graph(arg, true);
    else if (name == "passes" && arg.empty()) std::printf("%s", describe_passes().c_str());
    else if (name == "ops" && arg.empty()) std::printf("%s", describe_ops().c_str());
    else if (name == "mem") memory(arg.empty() ? "cpu" : arg);
    else if (name == "set") set(arg);
    else if (name == "type" || name == "time" || name == "prof" || name == "load" || name == "graph" ||
             name == "passes" || name == "cost" || name == "ops" || name == "reset" || name == "vars")
      usage_error("usage: " + usage_of(name));
    else usage_error("unknown command ':" + name + "' (:help lists them)");
    return true;
  }

  void usage_error(const std::string& message) {
    std::fflush(stdout);
    std::fprintf(stderr, "error: %s\n", message.c_str());
    worst_ = std::max(worst_, 2);
  }

  static std::string usage_of(const std::string& name) {
    for (const Command& c : kCommands)
      if (name == c.name) return c.usage;
    return "";
  }

  void help(const std::string& topic) {
    if (topic.empty()) {
      std::printf("Type a statement or an expression; an open bracket or block continues on the next line.\n");
      std::printf("Tab completes names, and members after '.'. Ctrl-C stops a running statement; Ctrl-D leaves.\n");
      for (const Command& c : kCommands) std::printf("  %-14s %s\n", c.usage, c.help);
      return;
    }
    std::string t = topic[0] == ':' ? topic.substr(1) : topic;
    if (topic[0] == ':' && (t == "q" || t == "exit")) t = "quit";  // run_command's other spellings
    for (const Command& c : kCommands)
      if (t == c.name) return (void)std::printf("%s  %s\n", c.usage, c.help);
    // `:help :nosuch` asks about a command: "undefined name 'nosuch'" named a variable.
    if (topic[0] == ':') return usage_error("unknown command '" + topic + "' (:help lists them)");
    HelpResult h;
    {
      InterruptScope scope(interp_);
      h = interp_.help(t);
    }
    if (h.ok) return (void)std::printf("%s", h.text.c_str());
    usage_error(h.error);
  }

  // :type expr: the type of its value, as type(expr) names it.
  void type(const std::string& code) {
    InterruptScope scope(interp_);
    report(interp_.eval_type(code, "<repl:" + std::to_string(++entries_) + ">"), true);
  }

  void time(const std::string& code) {
    auto t0 = std::chrono::steady_clock::now();
    EvalResult r = run_code(code);
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    report(r, true);
    std::printf("time: %s\n", format_duration(s).c_str());
  }

  // :prof stmt: the statement under the profiler, which prints its table.
  void profile(const std::string& code) {
    InterruptScope scope(interp_);
    report(interp_.eval_profiled(code, "<repl:" + std::to_string(++entries_) + ">"), true);
  }

  void vars() {
    for (const auto& n : sorted_unique(interp_.global_names()))
      if (!initial_names_.count(n))
        std::printf("%s = %s\n", n.c_str(), first_line(interp_.str(n).value_or("?"), 72).c_str());
  }

  // :graph expr: a graph module as it is; a call f(x, y) compiled with its arguments
  // and optimized with the default pipeline (Interpreter::graph says which is which).
  // :cost expr: the same graph, its cost table (gm.cost()) instead of its IR.
  void graph(const std::string& expr, bool cost) {
    GraphRequest request;
    request.entry = expr;
    request.passes = "default";
    request.reoptimize = false;
    request.cost = cost;
    request.source_name = "<repl:" + std::to_string(++entries_) + ">";
    GraphResult g;
    {
      InterruptScope scope(interp_);
      g = interp_.graph(request);
    }
    std::fflush(stdout);
    if (!g.ok) {
      std::fprintf(stderr, "%s\n", g.error->message.c_str());
      worst_ = std::max(worst_, 1);
      return;
    }
    if (cost) return (void)std::printf("%s", g.cost.c_str());  // headed by g.heading already
    std::printf("%s\n", g.heading.c_str());
    if (g.report.empty()) std::printf("no passes run (gm.optimize() runs the default pipeline)\n");
    std::printf("%s%s", g.report.c_str(), g.ir.c_str());
  }

  // :mem [device]: memory_summary(device) of the language, printed.
  void memory(const std::string& device) {
    Device d;
    if (!parse_device(device, &d)) return usage_error("unknown device '" + device + "' (expected cpu, cuda or cuda:N)");
    try {
      std::printf("%s", memory_summary(d).c_str());
    } catch (const std::exception& e) {  // a GPU that is not there
      std::fflush(stdout);
      std::fprintf(stderr, "error: %s\n", e.what());
      worst_ = std::max(worst_, 1);
    }
  }

  // :set prints the settings; :set NAME VALUE changes one. The only one is
  // full_trace (`nabla --full-trace`): errors raised inside the standard library at
  // its own lines rather than the user's.
  void set(const std::string& arg) {
    if (arg.empty()) return (void)std::printf("full_trace %s\n", interp_.full_trace() ? "on" : "off");
    auto [setting, value] = split_command(":" + arg);
    if (setting != "full_trace") return usage_error("unknown setting '" + setting + "' (settings: full_trace)");
    if (value != "on" && value != "off") return usage_error("usage: :set full_trace on|off, got '" + value + "'");
    interp_.set_full_trace(value == "on");
  }

  void load(const std::string& arg) {
    // `:load "net.dsl"`, quoted as a string would be: the quotes are not the file's.
    bool quoted = arg.size() >= 2 && (arg[0] == '"' || arg[0] == '\'') && arg.back() == arg[0];
    std::string path = quoted ? arg.substr(1, arg.size() - 2) : arg;
    EvalResult r;
    if (auto refusal = interp_.sandbox_refusal(":load")) {
      r.ok = false;
      r.error = refusal;
      return report(r, false);
    }
    {
      InterruptScope scope(interp_);
      r = interp_.eval_file(path);
    }
    report(r, false);
  }

  Interpreter& interp_;
  bool tty_;
  std::optional<EditInput> edit_;
  PlainInput plain_;
  std::set<std::string> initial_names_;  // builtins: :vars leaves them out
  int entries_ = 0;
  int worst_ = 0;
  bool at_eof_ = false;
};

}  // namespace

int run_repl(Interpreter& interp) {
  install_sigint_handler();
  return Repl(interp, isatty(STDIN_FILENO)).run();
}

}  // namespace nabla
