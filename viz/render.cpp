// Writing drawings: the format a path names, render_data's format check, and files
// written whole or not at all (tensor/atomic_file.hpp). The layout itself is behind viz/render_backend.hpp
// (Graphviz's cgraph + gvc in viz/render_graphviz.cpp, or viz/render_none.cpp in a
// build without Graphviz); this file needs no Graphviz header.
#include <cctype>

#include "tensor/atomic_file.hpp"
#include "tensor/error.hpp"
#include "viz/graphviz.hpp"
#include "viz/render_backend.hpp"

namespace nabla::viz {

namespace {

// The format a path's extension names: "svg", "png" or "dot".
std::string format_of_path(const std::string& path) {
  size_t dot = path.rfind('.');
  size_t slash = path.rfind('/');
  std::string ext = dot == std::string::npos || (slash != std::string::npos && dot < slash) ? "" : path.substr(dot + 1);
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (ext == "gv") return "dot";
  if (ext == "dot" || ext == "svg" || ext == "png") return ext;
  throw Error("render: cannot write '" + path + "': " +
              (ext.empty() ? std::string("it has no extension") : "unknown extension '." + ext + "'") +
              " (known: .dot, .gv, .svg, .png)");
}

}  // namespace

std::string render_data(const std::string& dot_text, const std::string& format) {
  if (format != "dot" && format != "svg" && format != "png")
    throw Error("render: unknown format '" + format + "' (known: dot, svg, png)");
  return backend::render_known_format(dot_text, format);
}

void render(const std::string& dot_text, const std::string& path) {
  std::string format = format_of_path(path);
  // Without Graphviz, say so before anything else about the path (a missing folder).
  std::string why;
  if (format != "dot" && !graphviz_available(&why)) throw Error("render: cannot write '" + path + "': " + why);
  write_file_atomically(path, render_data(dot_text, format), "render");
}

}  // namespace nabla::viz
