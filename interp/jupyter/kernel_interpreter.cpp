#include "interp/jupyter/kernel_interpreter.hpp"

#include <unistd.h>

#include "interp/app/repl.hpp"
#include "interp/jupyter/display.hpp"
#include "xeus/xhelper.hpp"

namespace nabla::jupyter {

namespace {

bool is_utf8_continuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// Jupyter counts cursor positions in Unicode code points, strings are UTF-8 bytes.
size_t byte_offset(const std::string& s, int code_points) {
  size_t i = 0;
  for (int n = 0; i < s.size() && n < code_points; ++n) {
    ++i;  // the code point's first byte, then its continuation bytes
    while (i < s.size() && is_utf8_continuation(s[i])) ++i;
  }
  return i;
}

int code_points(const std::string& s, size_t bytes) {
  int n = 0;
  for (size_t i = 0; i < bytes && i < s.size(); ++i) n += !is_utf8_continuation(s[i]);
  return n;
}

bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The cursor's word: [start, end) around byte `cursor`.
std::pair<size_t, size_t> word_at(const std::string& code, size_t cursor) {
  size_t start = cursor, end = cursor;
  while (start > 0 && is_name_char(code[start - 1])) --start;
  while (end < code.size() && is_name_char(code[end])) ++end;
  return {start, end};
}

// What Shift-Tab asks about: the dotted name at the cursor ("nn.Linear", "x.sum"),
// else the callee of the call whose arguments the cursor is in ("conv2d(x, |").
std::string name_at(const std::string& code, size_t cursor) {
  auto [start, end] = word_at(code, cursor);
  while (start > 1 && code[start - 1] == '.' && is_name_char(code[start - 2])) start = word_at(code, start - 1).first;
  if (start < end) return code.substr(start, end - start);
  return call_target(code.substr(0, cursor), cursor);
}

// Four spaces per bracket or block left open: where the next line of the cell starts.
std::string indent_hint(const std::string& code) {
  int depth = 0;
  char quote = 0;
  for (char c : code) {
    if (quote)
      quote = c == quote ? 0 : quote;
    else if (c == '"' || c == '\'')
      quote = c;
    else if (c == '(' || c == '[' || c == '{')
      ++depth;
    else if ((c == ')' || c == ']' || c == '}') && depth > 0)
      --depth;
  }
  return std::string(4 * static_cast<size_t>(depth), ' ');
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    lines.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return lines;
}

}  // namespace

void KernelInterpreter::configure_impl() {
  interp_.set_output([this](const std::string& s) { publish_text("stdout", s); });
  interp_.set_warning_output([this](const std::string& s) { publish_text("stderr", s); });
  interp_.set_display([this](const DisplayData& d) { publish_display(d); });
}

void KernelInterpreter::publish_text(const char* stream, const std::string& text) {
  std::lock_guard<std::mutex> lock(publish_mutex_);
  if (!silent_ && !text.empty()) publish_stream(stream, text);
}

void KernelInterpreter::publish_display(const DisplayData& d) {
  std::lock_guard<std::mutex> lock(publish_mutex_);
  if (silent_) return;
  nl::json transient = nl::json::object();
  if (!d.display_id.empty()) transient["display_id"] = d.display_id;
  if (d.update)
    update_display_data(mime_json(d.data), nl::json::object(), transient);
  else
    display_data(mime_json(d.data), nl::json::object(), transient);
}

// The positioned message as the traceback, one line per entry; its first line as
// the value; the kind ("syntax error", "error", "interrupted") as the name.
nl::json KernelInterpreter::error_reply(const EvalError& error, bool silent) {
  std::string ename = error.interrupted                       ? "interrupted"
                      : error.kind == EvalError::Kind::syntax ? "syntax error"
                                                              : "error";
  std::vector<std::string> traceback = lines_of(error.message);
  std::string evalue = traceback.empty() ? ename : traceback.front();
  if (!silent) publish_execution_error(ename, evalue, traceback);
  // Not xeus::create_error_reply: xeus 2.4 defines it with ename and evalue swapped
  // against its own declaration.
  return {{"status", "error"}, {"ename", ename}, {"evalue", evalue}, {"traceback", traceback}};
}

nl::json KernelInterpreter::execute_request_impl(int execution_count, const std::string& code, bool silent,
                                                 bool /*store_history*/, nl::json /*user_expressions*/,
                                                 bool /*allow_stdin*/) {
  silent_ = silent;
  history_.set_current_line(execution_count);
  EvalResult r;
  {
    // Native code's own writes (a library's warning on stderr) become streams too.
    FdCapture out(STDOUT_FILENO, [this](const std::string& s) { publish_text("stdout", s); });
    FdCapture err(STDERR_FILENO, [this](const std::string& s) { publish_text("stderr", s); });
    InterruptScope scope(interp_);
    r = interp_.eval(code, "<cell:" + std::to_string(execution_count) + ">");
  }
  silent_ = false;
  if (!r.ok) return error_reply(*r.error, silent);
  if (!silent && !r.echo.empty()) {
    MimeBundle result = r.images;
    result["text/plain"] = r.echo;
    publish_execution_result(execution_count, mime_json(result), nl::json::object());
  }
  return xeus::create_successful_reply();
}

nl::json KernelInterpreter::complete_request_impl(const std::string& code, int cursor_pos) {
  size_t cursor = byte_offset(code, cursor_pos < 0 ? static_cast<int>(code.size()) : cursor_pos);
  auto [start, end] = word_at(code, cursor);
  std::string before = code.substr(0, cursor), typed = code.substr(start, cursor - start);
  nl::json matches = nl::json::array();
  for (const std::string& m : repl_completions(interp_, before, start))
    if (m.compare(0, typed.size(), typed) == 0) matches.push_back(m);
  return xeus::create_complete_reply(matches, code_points(code, start), code_points(code, end));
}

nl::json KernelInterpreter::inspect_request_impl(const std::string& code, int cursor_pos, int /*detail_level*/) {
  std::string name = name_at(code, byte_offset(code, cursor_pos < 0 ? static_cast<int>(code.size()) : cursor_pos));
  if (name.empty()) return xeus::create_inspect_reply(false);
  HelpResult h;
  {
    InterruptScope scope(interp_);
    h = interp_.help(name);
  }
  if (!h.ok) return xeus::create_inspect_reply(false);
  return xeus::create_inspect_reply(true, nl::json{{"text/plain", h.text}});
}

nl::json KernelInterpreter::is_complete_request_impl(const std::string& code) {
  switch (entry_status(code)) {
    case EntryStatus::incomplete:
      return xeus::create_is_complete_reply("incomplete", indent_hint(code));
    case EntryStatus::invalid:
      return xeus::create_is_complete_reply("invalid");
    case EntryStatus::complete:
      break;
  }
  return xeus::create_is_complete_reply("complete");
}

nl::json KernelInterpreter::kernel_info_request_impl() {
  nl::json reply = xeus::create_info_reply("5.3", "nabla", NABLA_VERSION, "nabla", NABLA_VERSION, "text/x-nabla",
                                           ".dsl", "", "", "", std::string("nabla ") + NABLA_VERSION);
  reply["language_info"]["name"] = "nabla";
  return reply;
}

// xeus sends the reply and stops the server; the process then exits with status 0,
// and a client that asked for a restart starts a new one (a fresh session).
void KernelInterpreter::shutdown_request_impl() {}

}  // namespace nabla::jupyter
