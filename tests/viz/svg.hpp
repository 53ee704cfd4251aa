// Reading back the SVG that Graphviz writes, for the viz tests: its node, edge and
// cluster groups (`<g id="node3" class="node op">`), each with its <title> (the DOT
// id, or "a->b" for an edge), its classes and the text of its <text> elements.
#pragma once
#include <string>
#include <vector>

namespace viz_test {

// Whether this nabla lays out SVG (it was built with Graphviz). When it was not
// (NABLA_GRAPHVIZ=OFF), says so in a doctest MESSAGE, so that a test case that then
// returns shows that it skipped its rendering checks:
//   if (!viz_test::can_render()) return;
bool can_render();

struct SvgGroup {
  std::string kind;     // "node", "edge" or "clust"
  std::string title;    // "n3", "v0->n3", "cluster_n2"
  std::string classes;  // "node op added"
  std::vector<std::string> texts;

  bool has_class(const std::string& c) const { return (" " + classes + " ").find(" " + c + " ") != std::string::npos; }
  std::string text() const;  // all texts joined by '\n'
};

struct Svg {
  std::vector<SvgGroup> groups;

  explicit Svg(const std::string& svg_text);
  std::vector<SvgGroup> of_kind(const std::string& kind) const;
  int count(const std::string& kind) const { return static_cast<int>(of_kind(kind).size()); }
  // The groups of a kind that have CSS class `c`.
  int count_class(const std::string& kind, const std::string& c) const;
  // The group with this title; fails the test when there is none.
  const SvgGroup& titled(const std::string& title) const;
  bool has_title(const std::string& title) const;
  // Every text of every group, one per line.
  std::string all_text() const;
};

}  // namespace viz_test
