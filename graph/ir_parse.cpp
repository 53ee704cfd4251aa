// The parser of the IR text form (the printer is in ir.cpp; the grammar is the text
// that print_graph writes, see the comment at the top of ir.hpp). A hand-written
// recursive descent: one function per production, the production as its first
// comment. Errors are nabla::Error("line:col: expected X, got Y").
//
// Two liberties beyond what the printer writes, both for hand-written golden files:
// whole-line '#' comments are skipped, and a constant of a float or int dtype may be
// written with ints or numbers alike ("= 1" for an f32 constant, "= 3.0" for an i32
// one), as long as the value fits the dtype (Note [IR constants]).
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <limits>
#include <string_view>

#include "graph/control_flow.hpp"
#include "graph/ir.hpp"
#include "graph/ir_text.hpp"
#include "graph/memory_plan.hpp"

namespace nabla::graph {

namespace {

bool is_word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; }

// Value and graph names are freer than words ("fc1.weight", "layers[0].w"): anything
// up to a space or a character the grammar itself uses.
bool is_name_char(char c) {
  return !std::isspace(static_cast<unsigned char>(c)) &&
         std::string_view(",(){}:=%#<>").find(c) == std::string_view::npos;
}

// A place in the text, for error messages.
struct Mark {
  size_t pos = 0;
  int line = 1, col = 1;
};

// The characters of the text and the position in it. Token readers skip leading
// space (newlines and '#' comments included) but never trailing space, so that a
// node's origin comment can be told from a comment line after it.
class Reader {
 public:
  explicit Reader(const std::string& text) : text_(text) {}

  bool at_end() const { return at_.pos >= text_.size(); }
  char peek() const { return at_end() ? '\0' : text_[at_.pos]; }
  Mark mark() const { return at_; }
  void reset(const Mark& m) { at_ = m; }  // back to a mark (one token of lookahead)

  void advance() {
    if (text_[at_.pos++] == '\n') {
      ++at_.line;
      at_.col = 1;
    } else {
      ++at_.col;
    }
  }

  // Spaces, newlines and comments that run to the end of their line.
  void skip_space() {
    while (!at_end()) {
      if (peek() == '#') {
        while (!at_end() && peek() != '\n') advance();
      } else if (std::isspace(static_cast<unsigned char>(peek()))) {
        advance();
      } else {
        return;
      }
    }
  }
  // Spaces and tabs only: what may separate a node from its origin comment.
  void skip_blank() {
    while (peek() == ' ' || peek() == '\t') advance();
  }

  bool accept(char c) {
    skip_space();
    if (peek() != c) return false;
    advance();
    return true;
  }
  void expect(char c) {
    if (!accept(c)) fail(std::string("'") + c + "'");
  }

  // A run of characters for which `ok` holds (at least one), after leading space.
  template <class Pred>
  std::string run(Pred ok, const std::string& what) {
    skip_space();
    size_t start = at_.pos;
    while (!at_end() && ok(peek())) advance();
    if (at_.pos == start) fail(what);
    return text_.substr(start, at_.pos - start);
  }
  std::string word(const std::string& what) { return run(is_word_char, what); }
  std::string name(const std::string& what) { return run(is_name_char, what); }

  // A word if the next one is `w`, consumed; otherwise nothing is consumed.
  bool accept_word(const std::string& w) {
    skip_space();
    if (text_.compare(at_.pos, w.size(), w) != 0) return false;
    if (at_.pos + w.size() < text_.size() && is_word_char(text_[at_.pos + w.size()])) return false;
    for (size_t k = 0; k < w.size(); ++k) advance();
    return true;
  }
  void expect_word(const std::string& w) {
    if (!accept_word(w)) fail("'" + w + "'");
  }

  // A number as written: an optional sign, then digits, '.', exponents, inf or nan.
  std::string number_token() {
    skip_space();
    size_t start = at_.pos;
    if (peek() == '-' || peek() == '+') advance();
    while (!at_end()) {
      char c = peek();
      bool exponent_sign =
          (c == '-' || c == '+') && at_.pos > start && (text_[at_.pos - 1] == 'e' || text_[at_.pos - 1] == 'E');
      if (!is_word_char(c) && !exponent_sign) break;
      advance();
    }
    return text_.substr(start, at_.pos - start);
  }

  // The rest of the current line, verbatim.
  std::string rest_of_line() {
    size_t start = at_.pos;
    while (!at_end() && peek() != '\n') advance();
    return text_.substr(start, at_.pos - start);
  }

  // What the text holds at `m`, for "got ...".
  std::string got(const Mark& m) const {
    if (m.pos >= text_.size()) return "end of input";
    if (text_[m.pos] == '\n') return "end of line";
    size_t end = m.pos;
    while (end < text_.size() && is_word_char(text_[end])) ++end;
    if (end == m.pos) ++end;
    std::string quoted = "'";  // (appended, not "'" + substr: GCC 12 warns falsely on that)
    quoted.append(text_, m.pos, end - m.pos);
    return quoted + "'";
  }

  // "expected X, got Y" at the next token, or right here.
  [[noreturn]] void fail(const std::string& expected) {
    skip_space();
    fail_here(expected);
  }
  [[noreturn]] void fail_here(const std::string& expected) const {
    fail_at(at_, "expected " + expected + ", got " + got(at_));
  }
  [[noreturn]] void fail_at(const Mark& m, const std::string& message) const {
    throw Error(std::to_string(m.line) + ":" + std::to_string(m.col) + ": " + message);
  }

 private:
  const std::string& text_;
  Mark at_;
};

// One graph being read (the top level or a fused body): its values by their text
// names, and the number each op value's text gave it (-1 for named values).
struct Scope {
  Graph g;
  std::map<std::string, int> ids;  // "x", "fc1.weight", "7" -> provisional value id
  std::vector<int> wanted;         // per provisional value id
};

// "7" but not "07" (a name, so that two texts never claim one number) nor "x7".
bool is_value_number(const std::string& s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos && (s[0] != '0' || s.size() == 1);
}

// Gives op values the numbers their text shows (%7 becomes value 7) and named values
// the free numbers in definition order, so that print(parse(s)) == s even for a graph
// whose values were not numbered in definition order (a constant added after some
// nodes). A number nothing takes (a value no node defines, left by a pass that did
// not compact) becomes an unreferenced placeholder value.
void renumber(Scope& s) {
  Graph& g = s.g;
  s.wanted.resize(g.values.size(), -1);
  size_t count = g.values.size();
  for (int w : s.wanted) count = std::max(count, static_cast<size_t>(w + 1));
  std::vector<int> remap(s.wanted);
  std::vector<bool> taken(count, false);
  for (int w : s.wanted)
    if (w >= 0) taken[static_cast<size_t>(w)] = true;
  size_t free_slot = 0;
  for (int& id : remap) {
    if (id >= 0) continue;
    while (taken[free_slot]) ++free_slot;
    taken[free_slot] = true;
    id = static_cast<int>(free_slot);
  }
  std::vector<Value> values(count);
  for (size_t i = 0; i < count; ++i) values[i].id = static_cast<int>(i);  // placeholders
  for (size_t v = 0; v < remap.size(); ++v) {
    Value& moved = values[static_cast<size_t>(remap[v])] = g.values[v];
    moved.id = remap[v];
  }
  auto map_ids = [&](std::vector<int>& ids) {
    for (int& id : ids)
      if (id >= 0) id = remap[static_cast<size_t>(id)];
  };
  for (Node& n : g.nodes) {
    map_ids(n.inputs);
    map_ids(n.outputs);
  }
  map_ids(g.inputs);
  map_ids(g.outputs);
  g.values = std::move(values);
}

// A number token, read as an int64 when it has no point, exponent, inf or nan.
struct Number {
  std::string text;
  Mark at;
  bool is_int = false;
  int64_t i = 0;
  double d = 0;
};

class Parser {
 public:
  Parser(const std::string& text, const std::map<std::string, Tensor>& pool) : in_(text), pool_(pool) {}

  // text := graph [plan] <end of input>
  Graph parse() {
    Graph g = graph();
    if (in_.accept_word("plan")) plan(g);
    in_.skip_space();
    if (!in_.at_end()) in_.fail("end of input");
    return g;
  }

 private:
  // graph := 'graph' name signature '{' node* 'return' [ref (',' ref)*] '}'
  Graph graph() {
    in_.expect_word("graph");
    Scope s;
    s.g.name = in_.name("a graph name");
    signature(s);
    in_.expect('{');
    nodes_until(s, "return");
    in_.expect('}');
    renumber(s);
    return std::move(s.g);
  }

  // bodies := ('{' body)*   (a fused node's one "body"; a control-flow node's regions,
  // labelled as region_labels says, in that order)
  std::vector<std::shared_ptr<Graph>> bodies(const Node& head) {
    static const std::vector<std::string> fused_body = {"body"};
    const std::vector<std::string>& labels = is_control_flow(head) ? region_labels(head.kind) : fused_body;
    std::vector<std::shared_ptr<Graph>> out;
    for (in_.skip_blank(); out.size() < labels.size() && in_.peek() == '{'; in_.skip_blank()) {
      in_.advance();
      out.push_back(body(labels[out.size()]));
    }
    return out;
  }

  // body := label signature node* 'yield' [ref (',' ref)*] '}'   (after the '{')
  std::shared_ptr<Graph> body(const std::string& label) {
    in_.expect_word(label);
    Scope s;
    signature(s);
    nodes_until(s, "yield");
    in_.expect('}');
    renumber(s);
    return std::make_shared<Graph>(std::move(s.g));
  }

  // node* end [ref (',' ref)*]   (end is 'return' or 'yield'; its refs on its line)
  void nodes_until(Scope& s, const std::string& end) {
    while (!in_.accept_word(end)) {
      in_.skip_space();
      if (in_.peek() != '%' && !is_word_char(in_.peek())) in_.fail("a node or '" + end + "'");
      node(s);
    }
    in_.skip_blank();
    if (in_.peek() != '%') return;
    do s.g.outputs.push_back(use(s));
    while (in_.accept(','));
  }

  // signature := '(' [parameter (',' parameter)*] ')'
  void signature(Scope& s) {
    in_.expect('(');
    if (in_.accept(')')) return;
    do parameter(s);
    while (in_.accept(','));
    in_.expect(')');
  }

  // parameter := ref ':' ['param' | 'const'] ['wrapped'] type ['=' constant]   ('=' iff const)
  void parameter(Scope& s) {
    Mark at = ref_mark();
    std::string name = in_.name("a value name");
    in_.expect(':');
    ValueKind kind = in_.accept_word("param")   ? ValueKind::param
                     : in_.accept_word("const") ? ValueKind::constant
                                                : ValueKind::input;
    bool wrapped = in_.accept_word("wrapped");
    TensorMeta meta = type();
    if (wrapped && !meta.sizes.empty()) in_.fail_at(at, "a wrapped number has no dims, got " + meta_str(meta));
    if (kind == ValueKind::constant) {
      in_.expect('=');
      Tensor value = constant(name, meta);
      value.impl()->wrapped_number = wrapped;
      s.g.constants[name] = value;
    }
    int id = s.g.add_input(name, kind, meta);
    s.g.value(id).wrapped = wrapped;
    define(s, name, id, at, /*numbered=*/false);
  }

  // type := dtype '[' [int (',' int)*] ']'
  TensorMeta type() {
    TensorMeta m;
    in_.skip_space();
    Mark at = in_.mark();
    std::string name = in_.word("a dtype");
    if (!dtype_from_name(name, &m.dtype))
      in_.fail_at(at, "expected a dtype (f32, f64, f16, bf16, i64, i32, i16, i8, u8, bool), got '" + name + "'");
    in_.expect('[');
    if (in_.accept(']')) return m;
    int64_t numel = 1;
    do {
      Number n = number("a size");
      if (!n.is_int || n.i < 0) in_.fail_at(n.at, "expected a size (an int >= 0), got '" + n.text + "'");
      if (n.i > 0 && numel > std::numeric_limits<int64_t>::max() / n.i)
        in_.fail_at(n.at, "the sizes multiply past the largest int: no tensor has that many elements");
      numel *= n.i;
      m.sizes.push_back(n.i);
    } while (in_.accept(','));
    in_.expect(']');
    return m;
  }

  // constant := '<pool>' | scalar | '[' [scalar (',' scalar)*] ']'
  // (a scalar for a 0-dim type, a flat row-major list otherwise)
  Tensor constant(const std::string& name, const TensorMeta& meta) {
    if (in_.accept('<')) return pooled(name, meta);
    in_.skip_space();
    Mark at = in_.mark();
    std::string what = "for %" + name + ": " + meta_str(meta);
    std::vector<ConstantElement> xs;
    if (!in_.accept('[')) {
      if (!meta.sizes.empty()) in_.fail("a list of " + std::to_string(shape_numel(meta.sizes)) + " values " + what);
      xs.push_back(scalar(meta.dtype));
      return constant_tensor(xs, meta);
    }
    if (meta.sizes.empty()) in_.fail_at(at, "expected one value " + what + ", got a list");
    int64_t numel = shape_numel(meta.sizes);
    if (!in_.accept(']')) {
      do {
        if (static_cast<int64_t>(xs.size()) == numel)  // stop before a hostile list grows without bound
          in_.fail_at(at, "expected " + std::to_string(numel) + " values " + what + ", got more");
        xs.push_back(scalar(meta.dtype));
      } while (in_.accept(','));
      in_.expect(']');
    }
    if (static_cast<int64_t>(xs.size()) != numel)
      in_.fail_at(at, "expected " + std::to_string(numel) + " values " + what + ", got " + std::to_string(xs.size()));
    return constant_tensor(xs, meta);
  }

  // '<' 'pool' '>': the constant's tensor is pool[name] (after the '<').
  Tensor pooled(const std::string& name, const TensorMeta& meta) {
    in_.skip_space();
    Mark at = in_.mark();
    in_.expect_word("pool");
    in_.expect('>');
    auto it = pool_.find(name);
    if (it == pool_.end())
      in_.fail_at(at, "constant %" + name + " is <pool>, but the pool has no tensor named '" + name + "'");
    TensorMeta have{it->second.sizes(), it->second.dtype()};
    if (have.dtype != meta.dtype || have.sizes != meta.sizes)
      in_.fail_at(at,
                  "constant %" + name + " is typed " + meta_str(meta) + ", but the pool's tensor is " + meta_str(have));
    return it->second;
  }

  // scalar := number | 'true' | 'false'   (true/false for bool constants, only they)
  // The value must fit the dtype (Note [IR constants] in ir_text.hpp).
  ConstantElement scalar(DType dtype) {
    ConstantElement e;
    if (dtype == DType::b8) {
      if (in_.accept_word("true")) e.i = 1;
      else if (!in_.accept_word("false")) in_.fail("true or false");
      return e;
    }
    Number n = number("a number");
    std::string why = n.is_int ? constant_from_int(dtype, n.i, n.text, &e) : constant_from_double(dtype, n.d, n.text, &e);
    if (!why.empty()) in_.fail_at(n.at, why);
    return e;
  }

  // number := ['-'|'+'] digits ['.' digits] [('e'|'E') ['-'|'+'] digits] | ['-'] ('inf' | 'nan')
  Number number(const std::string& what) {
    Number n;
    in_.skip_space();
    n.at = in_.mark();
    n.text = in_.number_token();
    const std::string& t = n.text;
    if (t.empty() || t == "-" || t == "+") in_.fail_at(n.at, "expected " + what + ", got " + in_.got(n.at));
    if (t.find_first_of(".eEin") == std::string::npos) {
      const char* first = t.data() + (t[0] == '+' ? 1 : 0);
      auto [end, ec] = std::from_chars(first, t.data() + t.size(), n.i);
      n.is_int = ec == std::errc() && end == t.data() + t.size();
      if (n.is_int) return n;
      if (ec == std::errc::result_out_of_range)
        in_.fail_at(n.at, "expected " + what + ", got '" + t + "', which is out of the range of an int (i64)");
    } else {
      char* end = nullptr;
      n.d = std::strtod(t.c_str(), &end);
      if (end == t.c_str() + t.size()) return n;
    }
    in_.fail_at(n.at, "expected " + what + ", got '" + t + "'");
  }

  // node := [ref (',' ref)* '='] op arguments ['{' attributes] [':' type (',' type)*]
  //         bodies [origin]
  // (':' and the types exactly when there are outputs: a node without outputs, such
  // as copy_, is a statement "copy_(%p, %5)")
  void node(Scope& s) {
    std::vector<std::pair<std::string, Mark>> outs;
    in_.skip_space();
    int line = in_.mark().line;
    if (in_.peek() == '%') {
      do {
        Mark at = ref_mark();
        outs.emplace_back(in_.name("a value name"), at);
      } while (in_.accept(','));
      in_.expect('=');
    }
    Node head = Node::named(in_.word("an op name"));  // names map to ids here, once
    std::vector<int> args = arguments(s);
    Attrs attrs;
    in_.skip_blank();  // not past the line's end: a statement's origin may follow
    if (in_.peek() == '{' && !looking_at_body() && in_.accept('{')) attrs = attributes();
    std::vector<TensorMeta> metas = output_types(outs.size());
    std::vector<std::shared_ptr<Graph>> regions = bodies(head);
    std::string from = origin();
    bool control = is_control_flow(head);
    int index = s.g.add_node(std::move(head), std::move(args), std::move(attrs), metas, std::move(from));
    Node& n = s.g.nodes[static_cast<size_t>(index)];
    if (control) n.regions = std::move(regions);
    else if (!regions.empty()) n.body = std::move(regions[0]);
    n.text_line = line;
    for (size_t k = 0; k < outs.size(); ++k) define(s, outs[k].first, n.outputs[k], outs[k].second, true);
  }

  // Whether a '{' that follows opens a body or region ("{ body(", "{ then(") rather
  // than attributes ("{dim=1}").
  bool looking_at_body() {
    Mark start = in_.mark();
    bool body = false;
    if (in_.accept('{')) {
      in_.skip_space();
      if (std::isalpha(static_cast<unsigned char>(in_.peek()))) {
        in_.word("a label");
        body = in_.accept('(');
      }
    }
    in_.reset(start);
    return body;
  }

  // ':' type (',' type)*, one type per output, on the node's line; nothing for none.
  std::vector<TensorMeta> output_types(size_t count) {
    std::vector<TensorMeta> metas;
    if (count > 0) in_.expect(':');
    for (size_t k = 0; k < count; ++k) {
      in_.skip_blank();  // a missing type is missed at the end of the node's line
      if (k && in_.peek() != ',')
        in_.fail_here("', ' and the type of output " + std::to_string(k + 1) + " (of " + std::to_string(count) + ")");
      if (k) in_.advance();
      metas.push_back(type());
    }
    return metas;
  }

  // origin := '#' ' ' text to the end of the line, on the node's own line (the DSL
  // line that made the node).
  std::string origin() {
    in_.skip_blank();
    if (in_.peek() != '#') return "";
    in_.advance();
    if (in_.peek() == ' ') in_.advance();
    std::string text = in_.rest_of_line();
    if (!text.empty() && text.back() == '\r') text.pop_back();  // a file with CRLF line ends
    return text;
  }

  // arguments := '(' [(ref | 'none') (',' (ref | 'none'))*] ')'
  std::vector<int> arguments(Scope& s) {
    std::vector<int> ids;
    in_.expect('(');
    if (in_.accept(')')) return ids;
    do ids.push_back(in_.accept_word("none") ? -1 : use(s));
    while (in_.accept(','));
    in_.expect(')');
    return ids;
  }

  // attributes := [name '=' attr_value (',' name '=' attr_value)*] '}'   (after the '{')
  Attrs attributes() {
    Attrs attrs;
    if (in_.accept('}')) return attrs;
    do {
      in_.skip_space();
      Mark at = in_.mark();
      std::string name = in_.word("an attribute name");
      if (attrs.has(name)) in_.fail_at(at, "attribute '" + name + "' is given twice");
      in_.expect('=');
      attrs.set(name, attr_value());
    } while (in_.accept(','));
    in_.expect('}');
    return attrs;
  }

  // attr_value := int | number | 'true' | 'false' | dtype | 'none' | '[' [int (',' int)*] ']'
  AttrValue attr_value() {
    if (in_.accept('[')) return int_list();
    in_.skip_space();
    if (!std::isalpha(static_cast<unsigned char>(in_.peek()))) {
      Number n = number("an attribute value");
      return n.is_int ? AttrValue(n.i) : AttrValue(n.d);
    }
    Mark at = in_.mark();
    std::string w = in_.word("an attribute value");
    DType dt;
    if (w == "none") return NoneAttr{};
    if (w == "true" || w == "false") return w == "true";
    if (w == "inf" || w == "nan") return std::strtod(w.c_str(), nullptr);
    if (dtype_from_name(w, &dt)) return dt;
    in_.fail_at(
        at, "expected an attribute value (an int, a number, true, false, [ints], a dtype or none), got '" + w + "'");
  }

  // int_list := [int (',' int)*] ']'   (after the '[')
  std::vector<int64_t> int_list() {
    std::vector<int64_t> xs;
    if (in_.accept(']')) return xs;
    do {
      Number n = number("an int");
      if (!n.is_int) in_.fail_at(n.at, "expected an int, got '" + n.text + "'");
      xs.push_back(n.i);
    } while (in_.accept(','));
    in_.expect(']');
    return xs;
  }

  // plan := 'plan' '(' name '=' int (',' name '=' int)* ')' '{' slot_line* buffer_line* '}'
  // (after 'plan'; the grammar of the lines is in graph/memory_plan.hpp). Whether
  // the plan fits the graph and its figures add up is the verifier's question.
  void plan(Graph& g) {
    std::map<std::string, int64_t> header = plan_header();
    MemoryPlan p;
    in_.expect('{');
    while (in_.accept_word("slot")) p.slots.push_back(plan_slot(p.slots.size()));
    std::map<std::string, int> ids;
    for (const Value& v : g.values) ids[v.name.empty() ? std::to_string(v.id) : v.name] = v.id;
    while (!in_.accept('}')) p.buffers.push_back(plan_buffer(ids));
    finish_plan(p, g.values.size());
    p.arena_bytes = header["arena"];
    p.naive_bytes = header["naive"];
    p.last_use_peak_bytes = header["last_use_peak"];
    p.in_place = static_cast<int>(header["in_place"]);
    g.plan = std::make_shared<const MemoryPlan>(std::move(p));
  }

  // '(' name '=' int (',' name '=' int)* ')': arena, naive, last_use_peak, in_place
  std::map<std::string, int64_t> plan_header() {
    std::map<std::string, int64_t> header;
    in_.expect('(');
    do {
      in_.skip_space();
      Mark at = in_.mark();
      std::string key = in_.word("a plan figure");
      if (key != "arena" && key != "naive" && key != "last_use_peak" && key != "in_place")
        in_.fail_at(at, "expected a plan figure (arena, naive, last_use_peak, in_place), got '" + key + "'");
      in_.expect('=');
      header[key] = plan_int("an int");
    } while (in_.accept(','));
    in_.expect(')');
    if (header.size() != 4) in_.fail("arena, naive, last_use_peak and in_place, each once");
    return header;
  }

  // slot_line := 'slot' int ':' 'offset' int ',' int 'bytes'   (after 'slot')
  PlanSlot plan_slot(size_t index) {
    Number n = number("a slot number");
    if (!n.is_int || n.i != static_cast<int64_t>(index))
      in_.fail_at(n.at, "expected slot " + std::to_string(index) + ", got '" + n.text + "'");
    in_.expect(':');
    in_.expect_word("offset");
    PlanSlot slot;
    slot.offset = plan_int("an offset");
    in_.expect(',');
    slot.bytes = plan_int("a size in bytes");
    in_.expect_word("bytes");
    return slot;
  }

  // buffer_line := ref ':' 'slot' int ',' int 'bytes' ',' 'steps' '[' int ',' int ']'
  //                [',' 'in' 'place' 'of' ref]
  PlannedBuffer plan_buffer(const std::map<std::string, int>& ids) {
    PlannedBuffer b;
    b.value = plan_ref(ids);
    in_.expect(':');
    in_.expect_word("slot");
    b.slot = static_cast<int>(plan_int("a slot number"));
    in_.expect(',');
    b.bytes = plan_int("a size in bytes");
    in_.expect_word("bytes");
    in_.expect(',');
    in_.expect_word("steps");
    in_.expect('[');
    b.first_step = static_cast<int>(plan_int("a step"));
    in_.expect(',');
    b.last_step = static_cast<int>(plan_int("a step"));
    in_.expect(']');
    if (!in_.accept(',')) return b;
    for (const char* w : {"in", "place", "of"}) in_.expect_word(w);
    b.in_place_of = plan_ref(ids);
    return b;
  }

  int64_t plan_int(const std::string& what) {
    Number n = number(what);
    if (!n.is_int || n.i < 0 || n.i > (int64_t{1} << 50)) in_.fail_at(n.at, "expected " + what + ", got '" + n.text + "'");
    return n.i;
  }

  // A value of the graph the plan follows.
  int plan_ref(const std::map<std::string, int>& ids) {
    Mark at = ref_mark();
    std::string name = in_.name("a value name");
    auto it = ids.find(name);
    if (it == ids.end()) in_.fail_at(at, "the plan names %" + name + ", which the graph does not have");
    return it->second;
  }

  // ref := '%' name: expects the '%' and gives the position of the name.
  Mark ref_mark() {
    in_.expect('%');
    return in_.mark();
  }

  // A reference to a value defined before it.
  int use(Scope& s) {
    Mark at = ref_mark();
    std::string name = in_.name("a value name");
    auto it = s.ids.find(name);
    if (it == s.ids.end()) in_.fail_at(at, "unknown value %" + name + " (not defined before this use)");
    return it->second;
  }

  // Names value `id`; a numbered op value ("%7") wants to be value 7.
  void define(Scope& s, const std::string& name, int id, const Mark& at, bool numbered) {
    if (!s.ids.emplace(name, id).second) in_.fail_at(at, "%" + name + " is defined twice");
    bool number = numbered && is_value_number(name);
    // (a bound, because a gap in the numbers becomes placeholder values)
    if (number && name.size() > 7) in_.fail_at(at, "value number %" + name + " is too large (at most 9999999)");
    s.wanted.resize(s.g.values.size(), -1);
    s.wanted[static_cast<size_t>(id)] = number ? std::stoi(name) : -1;
    s.g.value(id).name = number ? "" : name;
  }

  Reader in_;
  const std::map<std::string, Tensor>& pool_;
};

}  // namespace

Graph parse_graph(const std::string& text, const std::map<std::string, Tensor>& pool) {
  return Parser(text, pool).parse();
}

}  // namespace nabla::graph
