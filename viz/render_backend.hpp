// The half of rendering that needs Graphviz's libraries, behind one function, so that
// only one small file links against gvc: viz/render_graphviz.cpp (cgraph + gvc) or
// viz/render_none.cpp (no Graphviz: DOT passes through, SVG and PNG are errors).
// CMake's NABLA_GRAPHVIZ option picks which one is built. viz/render.cpp holds the
// rest (format checks, file writing) and is the same in both builds. Each backend
// also defines graphviz_available() and png_available() of viz/graphviz.hpp.
#pragma once
#include <string>

namespace nabla::viz::backend {

// `dot_text` as `format`, already known to be "dot", "svg" or "png". The Graphviz
// backend checks that DOT parses; the other returns it unchanged.
std::string render_known_format(const std::string& dot_text, const std::string& format);

}  // namespace nabla::viz::backend
