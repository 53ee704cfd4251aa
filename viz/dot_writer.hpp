// Internal to viz/: builds DOT text (quoting, attribute lists, nested clusters) so
// that the drawing code says what to draw, not how DOT spells it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace nabla::viz::detail {

// One attribute. An HTML-like label (`label=<...>`) is written without quotes, so
// it must say so: guessing from a leading '<' would misread plain text like "<pool>".
struct DotAttr {
  std::string name;
  std::string value;
  bool html = false;
};
using DotAttrs = std::vector<DotAttr>;

// A DOT double-quoted string. Backslashes are doubled so user text (DSL paths, op
// names) never reads as a DOT escape such as \N; '\n' becomes a centred line break.
std::string dot_quote(const std::string& text);
// Text inside an HTML-like label: & < > " escaped.
std::string html_escape(const std::string& text);
// Pieces of HTML-like labels, escaping their text: a bold line, a small grey note.
std::string html_bold(const std::string& text);
std::string html_note(const std::string& text);
// "f3", "%5": a prefix and a number. (snprintf: GCC 12 warns falsely, -Wrestrict,
// on "f" + std::to_string(n) where it inlines both.)
std::string numbered(const char* prefix, long long n);
// "1.5 KiB": a byte count for people.
std::string human_bytes(int64_t bytes);

// The font of every drawing (see DotWriter's constructor for why a list).
inline constexpr const char* kFontList = "Helvetica,Arial,sans-serif";

class DotWriter {
 public:
  // `graph_attrs` add to (or override) nabla's graph defaults (font, size, title on
  // top); nodes and edges get nabla's shared defaults.
  DotWriter(const std::string& name, const DotAttrs& graph_attrs);

  void node(const std::string& id, const DotAttrs& attrs);
  // Edges are kept aside and written at the top level by finish(): an edge statement
  // inside a cluster would make both its ends members of that cluster.
  void edge(const std::string& from, const std::string& to, const DotAttrs& attrs = {});
  // Clusters nest; `id` gets the "cluster_" prefix that makes dot draw a box.
  void begin_cluster(const std::string& id, const DotAttrs& attrs);
  void end_cluster();
  // The DOT text, with every open cluster and the graph closed.
  std::string finish();

 private:
  void line(const std::string& text);
  std::string out_;
  std::string edges_;
  int depth_ = 1;
};

}  // namespace nabla::viz::detail
