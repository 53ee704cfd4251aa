// Rendering in a nabla built without Graphviz (cmake -DNABLA_GRAPHVIZ=OFF, or no
// libgvc found): DOT text is written as it is, unchecked; SVG and PNG need a layout
// engine, so asking for them is an Error that says what to do instead. See
// viz/render_backend.hpp.
#include "tensor/error.hpp"
#include "viz/graphviz.hpp"
#include "viz/render_backend.hpp"

namespace nabla::viz {

namespace {

const char* kWithoutGraphviz =
    "this nabla was built without Graphviz (NABLA_GRAPHVIZ=OFF), so it cannot lay out SVG or PNG; "
    "write .dot instead (Graphviz's `dot -Tsvg g.dot -o g.svg` draws it)";

}  // namespace

std::string backend::render_known_format(const std::string& dot_text, const std::string& format) {
  if (format == "dot") return dot_text;
  throw Error("render: cannot make " + format + ": " + kWithoutGraphviz);
}

bool graphviz_available(std::string* why_not) {
  if (why_not) *why_not = kWithoutGraphviz;
  return false;
}

bool png_available(std::string* why_not) { return graphviz_available(why_not); }

}  // namespace nabla::viz
