// The program generator (see program_gen.hpp). Each class builds its structure, then
// applies one to three operations from the list of what users do to such a value;
// any of them may fail cleanly, which ends the program with status 1.
#include "tests/fuzz/program_gen.hpp"

#include <algorithm>
#include <cmath>

namespace nabla::fuzz {

namespace {

std::string repeat(const std::string& s, size_t n) {
  std::string out;
  out.reserve(s.size() * n);
  for (size_t i = 0; i < n; ++i) out += s;
  return out;
}

std::string num(size_t n) { return std::to_string(n); }

// Appends 1 to 3 operations picked from `ops` (each a line of the program); one that
// drops the value (`x = none`) is the last, so the program ends freeing it.
void apply_some(Choices& c, const std::vector<std::string>& ops, std::string& program) {
  int count = 1 + static_cast<int>(c.below(3));
  for (int i = 0; i < count; ++i) {
    const std::string& op = c.pick(ops);
    program += op + "\n";
    if (op.ends_with("= none")) return;
  }
}

// ---- deep expressions: the nesting is in the text ---------------------------------

std::string deep_expression(Choices& c, size_t cap) {
  size_t n = c.size_up_to(cap);
  switch (c.below(12)) {
    case 0: return "print(" + repeat("-", n) + "1)\n";
    case 1: return "print(" + repeat("not ", n) + "true)\n";
    case 2: return "print(" + repeat(c.flag() ? "+" : "- ", n) + "2.5)\n";
    case 3: return "print(1" + repeat(c.pick<std::string>({" + 1", " - 1", " * 1", " and 1", " or 0"}), n) + ")\n";
    case 4: return "print(1" + repeat(" ** 1", n) + ")\n";  // right to left: a right-deep tree
    case 5: return "let f = " + repeat("fn(x) = ", n) + "x\nprint(type(f))\n";
    case 6: return "print(" + repeat("(", n) + "1" + repeat(")", n) + ")\n";
    case 7: return "print(len(" + repeat("[", n) + repeat("]", n) + "))\n";
    case 8: return "print(len(\"a\"" + repeat(".upper()", n) + "))\n";
    case 9: return "print(" + repeat("1 if false else ", n) + "0)\n";
    case 10: {
      // A deep expression in a function that also recurses: the stack holds both.
      size_t depth = c.size_up_to(1000);
      return "fn f(k) = 0 if k == 0 else f(k - 1) + " + repeat("(1 + ", n) + "0" + repeat(")", n) +
             "\nprint(f(" + num(depth) + "))\n";
    }
    default: return repeat("if true {\n", n) + "print(1)\n" + repeat("}\n", n);
  }
}

// ---- deep containers: the nesting is built at run time -----------------------------

const std::vector<std::string> kContainerOps = {
    "print(l)", "print(str(l))", "print(f\"{l}\")", "print(l == l2)", "print(l != l2)",
    "print(l < l2)", "print(len(sorted([l, l2])))", "print(l in [l2])", "print(len(deepcopy(l)))",
    "save({\"l\": l}, \"deep.safetensors\")", "print(tensor(l))", "l = none", "l2 = none",
    "print(len(l))", "print(max([l, l2]))", "let k = {l: 1}\nprint(len(k))",
};

std::string deep_container(Choices& c, size_t cap) {
  size_t n = c.size_up_to(cap);
  // Each level holds l once: a level that held it twice would make 2^n items to print
  // or compare, which Python cannot do either (values_print_exponential.dsl).
  std::string wrap = c.pick<std::string>({"[l]", "{\"k\": l}", "(l,)", "[1, l, {\"a\": (0,)}]", "{1: [l]}"});
  std::string leaf = c.pick<std::string>({"[]", "0", "{}", "()", "\"s\""});
  std::string program = "let l = " + leaf + "\nlet l2 = " + leaf + "\nfor i in range(" + num(n) +
                        ") {\n  l = " + wrap + "\n  l2 = " + wrap + "\n}\n";
  apply_some(c, kContainerOps, program);
  return program;
}

// ---- cycles ----------------------------------------------------------------------------

const std::vector<std::string> kCycleOps = {
    "print(a)", "print(str(a))", "print(f\"{a}!\")", "print(a == a)", "print(a == b)", "print(a < b)",
    "print(len(sorted([a, b])))", "print(a in [b])", "print(len(deepcopy(a)))",
    "save({\"a\": a}, \"cycle.safetensors\")", "print(tensor(a))", "print(max([a, b]))",
    "print(len(a))", "a = none", "print(repr(b))",
};

std::string cycle(Choices& c) {
  std::string program;
  switch (c.below(5)) {
    case 0: program = "let a = [1]\na.append(a)\nlet b = [1]\nb.append(b)\n"; break;
    case 1: program = "let a = {}\na[\"me\"] = a\nlet b = {}\nb[\"me\"] = b\n"; break;
    case 2: program = "let a = []\nlet b = [a]\na.append(b)\n"; break;
    case 3: program = "let a = {\"x\": []}\na[\"x\"].append(a)\nlet b = [a, (a,)]\n"; break;
    default: program = "let a = [[], {}]\na[0].append(a[1])\na[1][\"up\"] = a\nlet b = a[1]\n"; break;
  }
  apply_some(c, kCycleOps, program);
  return program;
}

// ---- self-referential modules ----------------------------------------------------------

const std::vector<std::string> kModuleOps = {
    "print(m)", "print(len(m.parameters()))", "print(len(m.named_parameters()))",
    "print(len(m.state_dict()))", "m.zero_grad()", "print(nn.count_parameters(m))", "m.train()",
    "m.eval()", "save(m, \"m.safetensors\")", "let g = compile(m, zeros([2, 4]))",
    "print(len(m.children()))", "print(len(deepcopy(m).parameters()))", "m.to(f64)",
    "print(m(ones([2, 4])).shape)", "m.load_state_dict(m.state_dict())", "m = none",
};

std::string self_module(Choices& c) {
  std::string program =
      "import nn\nmodel Box(d) {\n  lin = nn.Linear(d, d)\n  items = []\n  forward(x) = self.lin(x)\n}\n"
      "let m = Box(4)\n";
  switch (c.below(6)) {
    case 0: program += "m.me = m\n"; break;
    case 1: program += "setattr(m, \"me\", m)\n"; break;
    case 2: program += "let other = Box(4)\nm.other = other\nother.back = m\n"; break;
    case 3: program += "m.items.append(m)\n"; break;
    case 4: program += "m.twin = m.lin\nm.tied = m.lin.weight\n"; break;
    default: program += "let shared = nn.Linear(4, 4)\nm.seq = nn.Sequential([shared, shared])\n"; break;
  }
  apply_some(c, kModuleOps, program);
  return program;
}

// ---- deep autograd graphs --------------------------------------------------------------

const std::vector<std::string> kGraphOps = {
    "t.backward(retain_graph=true)", "t.backward(retain_graph=true)\nprint(w.grad.item())", "let g1 = grad(t, w, create_graph=true)\nprint(grad(g1, w)[0].item())",
    "detect_anomaly { t.backward(retain_graph=true) }", "w.register_hook(fn(g) = g * 1)\nt.backward(retain_graph=true)",
    "let h = t.register_hook(fn(g) = g)\nt.backward(retain_graph=true)\nt.backward()",
    "print(t.grad_fn)", "t = none", "profile { t.backward(retain_graph=true) }", "print(t.item())",
    "t.backward(gradient=ones([1], dtype=i64))",
};

std::string deep_graph(Choices& c, size_t cap) {
  size_t n = c.size_up_to(cap);
  std::string step = c.pick<std::string>({"t + w", "t * 1.0 + w", "t - w", "(t + w).view([1])", "t[0:1] + w",
                                          "tanh(t) + w"});
  std::string program = "let w = ones([1], requires_grad=true)\nlet t = w * 1\nfor i in range(" + num(n) +
                        ") { t = " + step + " }\n";
  apply_some(c, kGraphOps, program);
  return program;
}

// ---- int64 edges -----------------------------------------------------------------------

std::string int_edge(Choices& c) {
  const std::vector<std::string> values = {"(-9223372036854775807 - 1)", "9223372036854775807", "-1", "0", "1",
                                           "2", "-2", "4294967296", "63", "64"};
  const std::vector<std::string> ops = {"//", "%", "**", "*", "+", "-", "/"};
  std::string program;
  int count = 1 + static_cast<int>(c.below(4));
  for (int i = 0; i < count; ++i) {
    const std::string& a = c.pick(values);
    const std::string& b = c.pick(values);
    switch (c.below(5)) {
      case 0: program += "print(" + a + " " + c.pick(ops) + " " + b + ")\n"; break;
      case 1: program += "print(len(range(" + a + ", " + b + ")))\n"; break;
      case 2: program += "print(abs(" + a + "), -" + a + ")\n"; break;
      case 3:
        program += "print(tensor([" + a + "], dtype=i64) " + c.pick<std::string>({"/", "*", "+", "-"}) + " tensor([" +
                   b + "], dtype=i64))\n";
        break;
      default: program += "print(f\"{" + a + ":#x} {" + b + ":b}\")\n"; break;
    }
  }
  return program;
}

// ---- enormous counts -------------------------------------------------------------------

std::string huge_count(Choices& c) {
  const std::vector<std::string> counts = {"2**62", "2**40", "2000000000", "10**12", "-1", "2**31", "2e9"};
  const std::string& n = c.pick(counts);
  switch (c.below(9)) {
    case 0: return "print(len(\"ab\" * " + n + "))\n";
    case 1: return "print(len([1, 2] * " + n + "))\n";
    case 2: return "print(linspace(0, 1, " + n + ").shape)\n";
    case 3: return "print(zeros([" + n + ", " + n + "]).shape)\n";
    case 4: return "print(len(\",\".join([\"a\"] * " + n + ")))\n";
    case 5: return "print(cat([zeros([" + n + "]), zeros([" + n + "])]).shape)\n";
    case 6: return "print(arange(" + n + ").shape)\n";
    case 7: return "print(ones([1]).expand([" + n + "]).sum())\n";
    default: return "print(len(str(list(range(" + n + ")))))\n";
  }
}

// ---- the REPL through a pipe -----------------------------------------------------------

std::string repl_session(Choices& c, size_t cap, GeneratedProgram& out) {
  out.via_stdin = true;
  std::string program = "let kept = 41\n";
  int entries = 2 + static_cast<int>(c.below(4));
  for (int i = 0; i < entries; ++i) {
    switch (c.below(6)) {
      case 0: program += "let x = (\n"; break;  // an unfinished entry, then the next line
      case 1: program += "1 +\n"; break;
      case 2: program += ":load /etc/passwd\n"; break;
      case 3: program += deep_expression(c, cap); break;
      case 4: program += "undefined_name\n"; break;
      default: program += ":reset\nlet kept = 41\n"; break;
    }
  }
  return program + "print(kept + 1)\n";
}

}  // namespace

const char* class_name(ProgramClass c) {
  static const char* names[kProgramClassCount] = {"deep_expression", "deep_container", "cycle",     "self_module",
                                                  "deep_graph",      "int_edge",       "huge_count", "repl_session"};
  return names[static_cast<int>(c)];
}

uint32_t Choices::below(uint32_t n) {
  if (n <= 1) return 0;
  uint32_t v = next_byte();
  if (n > 256) v = (v << 8) | next_byte();
  return v % n;
}

size_t Choices::size_up_to(size_t cap) {
  // 1 + 2^(e/4) for e in [0, 4 log2(cap)], then a byte's worth of jitter.
  double top = std::max(1.0, 4.0 * std::log2(static_cast<double>(std::max<size_t>(cap, 2))));
  double e = static_cast<double>(below(static_cast<uint32_t>(top) + 1));
  size_t size = static_cast<size_t>(std::exp2(e / 4.0)) + below(8);
  return std::clamp<size_t>(size, 1, cap);
}

GeneratedProgram generate_program(const uint8_t* data, size_t size, size_t max_size) {
  Choices c(data, size);
  GeneratedProgram out;
  out.kind = static_cast<ProgramClass>(c.below(kProgramClassCount));
  switch (out.kind) {
    case ProgramClass::deep_expression: out.text = deep_expression(c, max_size); break;
    case ProgramClass::deep_container: out.text = deep_container(c, max_size); break;
    case ProgramClass::cycle: out.text = cycle(c); break;
    case ProgramClass::self_module: out.text = self_module(c); break;
    case ProgramClass::deep_graph: out.text = deep_graph(c, max_size); break;
    case ProgramClass::int_edge: out.text = int_edge(c); break;
    case ProgramClass::huge_count:
      out.text = huge_count(c);
      out.args = {"--max-memory", "512M"};
      break;
    case ProgramClass::repl_session:
      out.text = repl_session(c, std::min<size_t>(max_size, 10000), out);
      out.args = {"--sandbox"};
      break;
  }
  return out;
}

}  // namespace nabla::fuzz
