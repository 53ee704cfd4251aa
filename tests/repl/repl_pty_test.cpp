// Drives the real `nabla` binary through a pseudo-terminal (forkpty), as a person
// at a terminal would: multi-line input, tab completion, history kept across two
// sessions, Ctrl-C during `while true {}` and at the prompt, an error, Ctrl-D; the
// graph commands (:passes, :graph, :cost, :ops); out of memory, Ctrl-C in a long
// recursion and a huge echo; and once more with stdin a pipe (plain lines, no escape codes).
// Usage: repl_pty_test PATH/TO/nabla
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>

namespace {

using Clock = std::chrono::steady_clock;

// Terminal output without escape sequences, carriage returns and bells, so that
// tests can look for plain text.
std::string strip_escapes(const std::string& raw) {
  std::string out;
  for (size_t i = 0; i < raw.size(); ++i) {
    char c = raw[i];
    if (c == '\x1b' && i + 1 < raw.size() && raw[i + 1] == '[') {
      i += 2;
      while (i < raw.size() && !(raw[i] >= 0x40 && raw[i] <= 0x7e)) ++i;
    } else if (c == '\x1b') {
      ++i;
    } else if (c != '\r' && c != '\a') {
      out += c;
    }
  }
  return out;
}

class Session {
 public:
  Session(const std::string& nabla, const std::string& home) {
    winsize ws{};
    ws.ws_row = 40;
    ws.ws_col = 120;
    pid_ = forkpty(&fd_, nullptr, nullptr, &ws);
    if (pid_ < 0) throw std::runtime_error("forkpty failed");
    if (pid_ == 0) {
      setenv("TERM", "xterm", 1);
      setenv("HOME", home.c_str(), 1);
      setenv("NABLA_HISTORY", (home + "/history").c_str(), 1);
      execl(nabla.c_str(), nabla.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
  }

  ~Session() {
    if (pid_ > 0 && !exited_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    close(fd_);
  }

  // Types after a short pause, as a person would: keys typed ahead before the
  // prompt's line editor has the terminal are echoed (and ^D taken) by the kernel.
  void send(const std::string& keys) {
    usleep(50 * 1000);
    if (write(fd_, keys.data(), keys.size()) != static_cast<ssize_t>(keys.size()))
      throw std::runtime_error("write to the pty failed");
  }

  // Waits for `text` in the output after the last match; the next expect starts
  // after it.
  void expect(const std::string& text, double seconds = 20) {
    auto deadline = Clock::now() + std::chrono::milliseconds(static_cast<long>(seconds * 1000));
    for (;;) {
      std::string clean = strip_escapes(raw_);
      size_t at = clean.find(text, mark_);
      if (at != std::string::npos) {
        mark_ = at + text.size();
        return;
      }
      if (Clock::now() > deadline || !read_some(deadline))
        fail("did not see \"" + printable(text) + "\"");
    }
  }

  // Waits for the process to end and returns its exit status.
  int wait_exit(double seconds = 20) {
    auto deadline = Clock::now() + std::chrono::milliseconds(static_cast<long>(seconds * 1000));
    for (;;) {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        exited_ = true;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      }
      if (Clock::now() > deadline) fail("nabla did not exit");
      read_some(Clock::now() + std::chrono::milliseconds(50));
    }
  }

  [[noreturn]] void fail(const std::string& why) {
    throw std::runtime_error(why + "\n--- terminal so far ---\n" + strip_escapes(raw_) + "\n--- raw ---\n" +
                             printable(raw_));
  }

 private:
  static std::string printable(const std::string& s) {
    std::string out;
    for (unsigned char c : s) {
      if (c == '\n') out += "\\n\n";
      else if (c < 32 || c == 127) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\x%02x", c);
        out += buf;
      } else {
        out += static_cast<char>(c);
      }
    }
    return out;
  }

  // Reads what is there (waiting until the deadline at most); false at end of file.
  bool read_some(Clock::time_point deadline) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    pollfd p{fd_, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(std::max<long>(left, 0))) <= 0) return true;
    char buf[4096];
    ssize_t n = read(fd_, buf, sizeof buf);
    if (n <= 0) return false;
    raw_.append(buf, static_cast<size_t>(n));
    return true;
  }

  pid_t pid_ = -1;
  int fd_ = -1;
  bool exited_ = false;
  std::string raw_;
  size_t mark_ = 0;
};

void step(const char* what) { std::printf("repl: %s\n", what), std::fflush(stdout); }

void first_session(const std::string& nabla, const std::string& home) {
  Session s(nabla, home);
  s.expect(">>> ");
  step("a variable");
  s.send("let a = 41\r");
  s.expect(">>> ");
  s.send("a\r");
  s.expect("\n41\n>>> ");

  step("a statement over two lines gets the continuation prompt");
  s.send("let b = [1,\r");
  s.expect("... ");
  s.send("2]\r");
  s.expect(">>> ");
  s.send("b\r");
  s.expect("\n[1, 2]\n>>> ");

  step("tab completes pri to print");
  s.send("pri\t");
  s.send("(a)\r");
  s.expect("\n41\n>>> ");

  step("Ctrl-C stops while true {} and keeps the variables");
  s.send("while true {}\r");
  usleep(300 * 1000);
  s.send("\x03");
  s.expect("interrupted");
  s.expect(">>> ");
  s.send("a\r");
  s.expect("\n41\n>>> ");

  step("an error keeps the state");
  s.send("undefined_zz\r");
  s.expect("undefined name 'undefined_zz'");
  s.expect(">>> ");
  s.send("a\r");
  s.expect("\n41\n>>> ");

  step("Ctrl-C at the prompt clears the line");
  s.send("garbage garbage");
  s.send("\x03");
  s.expect(">>> ");
  s.send("a\r");
  s.expect("\n41\n>>> ");

  step("Ctrl-D leaves with status 0");
  s.send("let last_one = 7\r");
  s.expect(">>> ");
  s.send("\x04");
  int status = s.wait_exit();
  if (status != 0) s.fail("exit status " + std::to_string(status));
}

void second_session(const std::string& nabla, const std::string& home) {
  Session s(nabla, home);
  s.expect(">>> ");
  step("a second session recalls the first one's last line (Ctrl-P)");
  s.send("\x10");
  s.expect("let last_one = 7");
  s.send("\r");
  s.expect(">>> ");
  s.send("last_one\r");
  s.expect("\n7\n>>> ");
  s.send(":quit\r");
  int status = s.wait_exit();
  if (status != 0) s.fail("exit status " + std::to_string(status));
}

// :passes, :graph and :cost: a call compiles and optimizes, a graph module shows its
// own passes, errors keep the session; Tab completes the command names; :ops; :prof.
void graph_session(const std::string& nabla, const std::string& home) {
  Session s(nabla, home);
  s.expect(">>> ");
  s.send("import nn\r");
  s.expect(">>> ");
  s.send("let m = nn.Sequential([nn.Linear(4, 3), nn.ReLU()])\r");
  s.expect(">>> ");
  s.send("let x = randn([2, 4])\r");
  s.expect(">>> ");

  step(":passes lists the passes and the default pipeline");
  s.send(":passes\r");
  s.expect("\ncse ");
  s.expect("default pipeline: unroll,fold,simplify,cse,licm,dce");
  s.expect(">>> ");

  step(":graph f(x) compiles on x, runs the default passes, prints the IR");
  s.send(":gra\t m(x)\r");
  s.expect("graph module 'Sequential' (inference): 2 nodes captured, ");
  s.expect("\ndce ");
  s.expect("graph Sequential(%0.weight: param f32[3, 4], %0.bias: param f32[3], %x: f32[2, 4]) {");
  s.expect("\n  return %");
  s.expect(">>> ");

  step(":graph gm shows a graph module as it is");
  s.send("let gm = compile(m, x)\r");
  s.expect(">>> ");
  s.send(":graph gm\r");
  s.expect("no passes run (gm.optimize() runs the default pipeline)");
  s.expect(">>> ");
  s.send("gm.optimize('cse')\r");
  s.expect("\ncse ");  // the report echoes as its lines, not as a quoted str with \n in it
  s.expect(">>> ");
  s.send(":graph gm\r");
  s.expect("after passes\ncse ");
  s.expect(">>> ");

  step(":graph errors keep the state");
  s.send(":graph nope(x)\r");
  s.expect("<repl:");
  s.expect("error: undefined name 'nope'");
  s.expect(">>> ");
  s.send(":graph m\r");
  s.expect("error: graph: 'm' needs example inputs");
  s.expect(">>> ");
  s.send(":graph\r");
  s.expect("error: usage: :graph expr");
  s.expect(">>> ");

  step(":cost f(x) compiles as :graph does and prints each node's FLOPs, bytes and bound");
  s.send(":cost m(x)\r");
  s.expect("graph module 'Sequential' (inference): 2 nodes captured, 1 after passes");
  s.expect("FLOP/B");
  s.expect("linear_relu*");
  s.expect("\ntotal ");
  s.expect("* fused: ");
  s.expect("roofline on cpu (measured in ");
  s.expect(">>> ");
  s.send(":cost gm\r");
  s.expect("\n%");
  s.expect(" relu ");
  s.expect("ridge point");
  s.expect(">>> ");
  s.send(":cost\r");
  s.expect("error: usage: :cost expr");
  s.expect(">>> ");

  step(":ops lists the op table as nabla --list-ops does, with what the passes can fuse");
  s.send(":ops\r");
  s.expect("grad  fusable");
  s.expect("\nrelu ");
  s.expect("elementwise,epilogue ");
  s.expect("\nlinear ");
  s.expect("epilogue base ");
  s.expect(">>> ");
  s.send(":help cost\r");
  s.expect(":cost expr  FLOPs, bytes");
  s.expect(">>> ");
  s.send(":help print\r");  // a builtin: its signature and doc, from its table's row
  s.expect("print(*values, sep=\" \", end=\"\\n\", flush=false)");
  s.expect("  Writes the values");
  s.expect(">>> ");
  s.send("x.shape\r");
  s.expect("\n(2, 4)\n>>> ");

  step(":prof runs a statement under the profiler and prints its ops");
  s.send(":prof m(x).sum().backward()\r");
  s.expect("\nop ");
  s.expect("\nlinear ");
  s.expect("\ntotal ");
  s.expect(">>> ");
  s.send("len(last_profile().events()) > 5\r");
  s.expect("\ntrue\n>>> ");
  s.send(":prof\r");
  s.expect("error: usage: :prof stmt");
  s.expect(">>> ");
  s.send(":quit\r");
  int status = s.wait_exit();
  if (status != 0) s.fail("exit status " + std::to_string(status));
}

// Resource limits (issue 10): an allocation larger than memory and a long recursion
// stopped by Ctrl-C are errors that keep the session's state; a huge tensor echoes
// summarized.
void limits_session(const std::string& nabla, const std::string& home) {
  Session s(nabla, home);
  s.expect(">>> ");
  s.send("let kept = 41\r");
  s.expect(">>> ");

  step("an allocation larger than memory is an error naming the bytes and what is available");
  s.send("let x = zeros([1000000, 1000000])\r");
  s.expect("error: out of memory: tried to allocate 3.64 TiB (4000000000000 bytes) on the CPU for "
           "'zeros([1000000, 1000000])' (");
  s.expect(" available of ");
  s.expect(">>> ");
  s.send("kept\r");
  s.expect("\n41\n>>> ");

  step("Ctrl-C stops a long recursion and keeps the variables");
  s.send("fn fib(n) = n if n < 2 else fib(n - 1) + fib(n - 2)\r");
  s.expect(">>> ");
  s.send("fib(40)\r");
  usleep(300 * 1000);
  s.send("\x03");
  s.expect("error: interrupted");
  s.expect("in fib()");
  s.expect(">>> ");
  s.send("kept\r");
  s.expect("\n41\n>>> ");

  step("a huge tensor echoes summarized");
  s.send("arange(10000000)\r");
  s.expect("\ntensor([      0,       1,       2,  ..., 9999997, 9999998, 9999999])\n>>> ");
  s.send(":quit\r");
  int status = s.wait_exit();
  if (status != 0) s.fail("exit status " + std::to_string(status));
}

// :help on dotted names before and after an import, keyword completion after '('.
void help_session(const std::string& nabla, const std::string& home) {
  Session s(nabla, home);
  s.expect(">>> ");
  step(":help nn before import nn: its names and how to import it");
  s.send(":help nn\r");
  s.expect("module nn (not imported in this session: `import nn` to use it)");
  s.expect("  Linear");
  s.expect(">>> ");
  step(":help on dotted names: a layer, an optimizer's method, a tensor method");
  s.send(":help nn.Linear\r");
  s.expect("nn.Linear(in_features, out_features, bias=true, device=none, dtype=none)");
  s.expect("  Example: nn.Linear(");
  s.expect(">>> ");
  s.send(":help optim.Adam.step\r");
  s.expect("optim.Adam.step()");
  s.expect(">>> ");
  s.send(":help Tensor.sum\r");
  s.expect("Tensor.sum(input, dims=[], keepdim=false, dtype=none)");
  s.expect(">>> ");
  step(":help of an unknown attribute is an error, and the session goes on");
  s.send(":help nn.Zzzzzz\r");
  s.expect("module 'nn' has no attribute 'Zzzzzz'");
  s.expect(">>> ");
  step("tab after 'name(' completes a keyword argument");
  s.send("import nn\r");
  s.expect(">>> ");
  s.send("let l = nn.Linear(2, 3, bia\t");  // completes to bias=
  s.send("false)\r");
  s.expect(">>> ");
  s.send("l\r");
  s.expect("Linear(in_features=2, out_features=3, bias=false)");
  s.expect(">>> ");
  s.send("mean(ones([2, 2]), dims=[0], keep\t");  // completes to keepdim=
  s.send("true)\r");
  s.expect("tensor([[1., 1.]])");
  s.expect(">>> ");
  s.send(":quit\r");
  int status = s.wait_exit();
  if (status != 0) s.fail("exit status " + std::to_string(status));
}

// stdin a pipe: no prompts, no escape codes, statements still span lines.
void piped_session(const std::string& nabla) {
  step("stdin a pipe: plain lines, no escape codes");
  std::string cmd = "printf 'let b = [1,\\n2]\\nb\\n' | " + nabla + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) throw std::runtime_error("popen failed");
  std::string out;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  int status = pclose(p);
  if (out != "[1, 2]\n" || status != 0)
    throw std::runtime_error("piped REPL printed \"" + out + "\", status " + std::to_string(status));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: repl_pty_test PATH/TO/nabla\n");
    return 2;
  }
  std::string nabla = std::filesystem::absolute(argv[1]).string();
  char tmpl[] = "/tmp/nabla-repl-XXXXXX";
  if (!mkdtemp(tmpl)) return std::perror("mkdtemp"), 1;
  std::string home = tmpl;
  int rc = 0;
  try {
    first_session(nabla, home);
    second_session(nabla, home);
    graph_session(nabla, home);
    limits_session(nabla, home);
    help_session(nabla, home);
    piped_session(nabla);
    std::printf("repl: all steps passed\n");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "repl: FAILED: %s\n", e.what());
    rc = 1;
  }
  std::filesystem::remove_all(home);
  return rc;
}
