// DOT text building for viz/ (see dot_writer.hpp).
#include "viz/dot_writer.hpp"

#include <cstdio>

namespace nabla::viz::detail {

std::string dot_quote(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

std::string html_escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string html_bold(const std::string& text) { return "<B>" + html_escape(text) + "</B>"; }

std::string html_note(const std::string& text) {
  return "<FONT POINT-SIZE=\"8\" COLOR=\"#6b7280\">" + html_escape(text) + "</FONT>";
}

std::string numbered(const char* prefix, long long n) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s%lld", prefix, n);
  return buf;
}

std::string human_bytes(int64_t bytes) {
  static const char* const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double x = static_cast<double>(bytes);
  int unit = 0;
  while (x >= 1024 && unit < 4) {
    x /= 1024;
    ++unit;
  }
  char buf[32];
  if (unit == 0)
    std::snprintf(buf, sizeof buf, "%lld B", static_cast<long long>(bytes));
  else
    std::snprintf(buf, sizeof buf, "%.1f %s", x, units[unit]);
  return buf;
}

namespace {

std::string attr_list(const DotAttrs& attrs) {
  if (attrs.empty()) return "";
  std::string out = " [";
  for (size_t i = 0; i < attrs.size(); ++i) {
    const DotAttr& a = attrs[i];
    out += (i ? ", " : "") + a.name + "=";
    out += a.html ? "<" + a.value + ">" : dot_quote(a.value);
  }
  return out + "]";
}

}  // namespace

DotWriter::DotWriter(const std::string& name, const DotAttrs& graph_attrs) {
  out_ = "digraph " + dot_quote(name) + " {\n";
  // One look for every drawing: small type, so that big graphs stay readable, and a
  // font list rather than one name. The list starts with Helvetica, whose widths
  // Graphviz knows without a font library (SVG layout); it is not a PostScript
  // name, so the gd plugin (PNG) hands it to fontconfig as a pattern and finds a
  // sans font that exists, where plain "Helvetica" falls back to a bitmap font.
  DotAttrs defaults{{"fontname", kFontList}, {"fontsize", "12"}, {"labelloc", "t"}};
  defaults.insert(defaults.end(), graph_attrs.begin(), graph_attrs.end());
  line("graph" + attr_list(defaults));
  line("node" + attr_list({{"fontname", kFontList}, {"fontsize", "10"}, {"style", "filled"},
                           {"fillcolor", "white"}, {"margin", "0.08,0.04"}}));
  line("edge" + attr_list({{"fontname", kFontList}, {"fontsize", "8"}, {"color", "#555555"},
                           {"arrowsize", "0.7"}}));
}

void DotWriter::line(const std::string& text) {
  out_.append(static_cast<size_t>(2 * depth_), ' ');
  out_ += text + ";\n";
}

void DotWriter::node(const std::string& id, const DotAttrs& attrs) { line(dot_quote(id) + attr_list(attrs)); }

void DotWriter::edge(const std::string& from, const std::string& to, const DotAttrs& attrs) {
  edges_ += "  " + dot_quote(from) + " -> " + dot_quote(to) + attr_list(attrs) + ";\n";
}

void DotWriter::begin_cluster(const std::string& id, const DotAttrs& attrs) {
  out_.append(static_cast<size_t>(2 * depth_), ' ');
  out_ += "subgraph " + dot_quote("cluster_" + id) + " {\n";
  ++depth_;
  line("graph" + attr_list(attrs));
}

void DotWriter::end_cluster() {
  --depth_;
  out_.append(static_cast<size_t>(2 * depth_), ' ');
  out_ += "}\n";
}

std::string DotWriter::finish() {
  while (depth_ > 1) end_cluster();
  return out_ + edges_ + "}\n";
}

}  // namespace nabla::viz::detail
