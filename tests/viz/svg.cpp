// The SVG reader of the viz tests and can_render() (svg.hpp), and a check of the reader on a hand-written
// fragment, so that a broken reader cannot make the other tests pass.
#include "svg.hpp"

#include <doctest/doctest.h>

#include "viz/graphviz.hpp"

namespace viz_test {

bool can_render() {
  std::string why;
  if (nabla::viz::graphviz_available(&why)) return true;
  MESSAGE("skipped the SVG checks of this test case: " << why);
  return false;
}

namespace {

// Graphviz escapes titles and texts: "a&#45;&gt;b" is "a->b".
std::string unescape(const std::string& s) {
  static const std::pair<const char*, const char*> entities[] = {
      {"&#45;", "-"}, {"&gt;", ">"}, {"&lt;", "<"}, {"&quot;", "\""}, {"&#160;", " "}, {"&#39;", "'"}, {"&amp;", "&"}};
  std::string out;
  for (size_t i = 0; i < s.size();) {
    bool replaced = false;
    for (const auto& [from, to] : entities) {
      size_t n = std::char_traits<char>::length(from);
      if (s.compare(i, n, from) == 0) {
        out += to;
        i += n;
        replaced = true;
        break;
      }
    }
    if (!replaced) out += s[i++];
  }
  return out;
}

// The text between `open_end` (the '>' closing an opening tag) and `close`.
std::string between(const std::string& s, size_t from, const std::string& close) {
  size_t end = s.find(close, from);
  return end == std::string::npos ? "" : s.substr(from, end - from);
}

std::string attribute(const std::string& tag, const std::string& name) {
  size_t at = tag.find(name + "=\"");
  if (at == std::string::npos) return "";
  return between(tag, at + name.size() + 2, "\"");
}

SvgGroup read_group(const std::string& svg, size_t start, size_t end) {
  std::string tag = svg.substr(start, svg.find('>', start) - start);
  std::string id = attribute(tag, "id");
  SvgGroup g;
  g.kind = id.rfind("node", 0) == 0 ? "node" : id.rfind("edge", 0) == 0 ? "edge" : "clust";
  g.classes = attribute(tag, "class");
  std::string body = svg.substr(start, end - start);
  size_t title = body.find("<title>");
  if (title != std::string::npos) g.title = unescape(between(body, title + 7, "</title>"));
  for (size_t at = body.find("<text"); at != std::string::npos; at = body.find("<text", at + 1)) {
    size_t open_end = body.find('>', at);
    g.texts.push_back(unescape(between(body, open_end + 1, "</text>")));
  }
  return g;
}

}  // namespace

std::string SvgGroup::text() const {
  std::string s;
  for (const std::string& t : texts) s += t + "\n";
  return s;
}

Svg::Svg(const std::string& svg) {
  // Graphviz writes node, edge and cluster groups flat (clusters do not enclose
  // their nodes), each ending at its first "</g>".
  for (const char* prefix : {"<g id=\"node", "<g id=\"edge", "<g id=\"clust"}) {
    for (size_t at = svg.find(prefix); at != std::string::npos; at = svg.find(prefix, at + 1))
      groups.push_back(read_group(svg, at, svg.find("</g>", at)));
  }
}

std::vector<SvgGroup> Svg::of_kind(const std::string& kind) const {
  std::vector<SvgGroup> out;
  for (const SvgGroup& g : groups)
    if (g.kind == kind) out.push_back(g);
  return out;
}

int Svg::count_class(const std::string& kind, const std::string& c) const {
  int n = 0;
  for (const SvgGroup& g : of_kind(kind)) n += g.has_class(c);
  return n;
}

bool Svg::has_title(const std::string& title) const {
  for (const SvgGroup& g : groups)
    if (g.title == title) return true;
  return false;
}

const SvgGroup& Svg::titled(const std::string& title) const {
  for (const SvgGroup& g : groups)
    if (g.title == title) return g;
  FAIL("no SVG element titled '" << title << "'");
  return groups.front();  // not reached: FAIL throws
}

std::string Svg::all_text() const {
  std::string s;
  for (const SvgGroup& g : groups) s += g.text();
  return s;
}

}  // namespace viz_test

TEST_CASE("the SVG reader finds groups, titles, classes and texts") {
  viz_test::Svg svg(R"(<svg><g id="graph0" class="graph"><title>%3</title>
<g id="clust1" class="cluster fused"><title>cluster_n2</title><text x="1">%4 = fused</text></g>
<g id="node1" class="node input"><title>v0</title><text x="1">%x</text><text>f32[2, 3]</text></g>
<g id="edge1" class="edge"><title>v0&#45;&gt;n1</title><path d=""/></g>
</g></svg>)");
  CHECK(svg.count("node") == 1);
  CHECK(svg.count("edge") == 1);
  CHECK(svg.count("clust") == 1);
  CHECK(svg.titled("v0").has_class("input"));
  CHECK_FALSE(svg.titled("v0").has_class("inp"));
  CHECK(svg.titled("v0").texts == std::vector<std::string>{"%x", "f32[2, 3]"});
  CHECK(svg.has_title("v0->n1"));
  CHECK(svg.count_class("clust", "fused") == 1);
}
