// The reader of plot_svg.hpp, and a check of it on a hand-written fragment, so that a
// broken reader cannot make the other tests pass.
#include "plot_svg.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <sstream>

#include "viz/plot/plot_backend.hpp"

namespace plot_test {

bool can_draw() {
  std::string why;
  if (nabla::viz::plot::backend::available(&why)) return true;
  MESSAGE("skipped the drawing checks of this test case: " << why);
  return false;
}

namespace {

// The value of attribute `name` in the element text `element`, or "".
std::string attribute(const std::string& element, const std::string& name) {
  std::string key = name + "=\"";
  for (size_t k = element.find(key); k != std::string::npos; k = element.find(key, k + 1))
    if (k > 0 && std::isspace(static_cast<unsigned char>(element[k - 1]))) {
      size_t begin = k + key.size();
      return element.substr(begin, element.find('"', begin) - begin);
    }
  return "";
}

// "&#x31;&#x30;" -> "10" (PLplot writes every character of a text so), plus the named entities.
std::string decode(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size();) {
    if (s.compare(i, 3, "&#x") == 0) {
      size_t end = s.find(';', i);
      unsigned long code = std::stoul(s.substr(i + 3, end - i - 3), nullptr, 16);
      out += code < 128 ? std::string(1, static_cast<char>(code)) : std::string("?");
      i = end + 1;
    } else if (s.compare(i, 5, "&amp;") == 0) out += '&', i += 5;
    else if (s.compare(i, 4, "&lt;") == 0) out += '<', i += 4;
    else if (s.compare(i, 4, "&gt;") == 0) out += '>', i += 4;
    else out += s[i++];
  }
  return out;
}

// The text of a <text> element's content: tspans' texts in order, a raised tspan
// (negative dy) as "^" + its text.
std::string text_content(const std::string& content) {
  std::string out;
  for (size_t i = 0; i < content.size();) {
    if (content[i] != '<') {
      size_t end = content.find('<', i);
      out += decode(content.substr(i, end - i));
      i = end;
      continue;
    }
    size_t close = content.find('>', i);
    std::string tag = content.substr(i, close - i + 1);
    if (tag.rfind("<tspan", 0) == 0 && attribute(tag, "dy").rfind("-", 0) == 0) out += "^";
    i = close + 1;
  }
  return out;
}

std::vector<std::pair<double, double>> parse_points(const std::string& s) {
  std::vector<std::pair<double, double>> out;
  std::istringstream in(s);
  std::string pair;
  while (in >> pair) {
    size_t comma = pair.find(',');
    out.emplace_back(std::stod(pair.substr(0, comma)), std::stod(pair.substr(comma + 1)));
  }
  return out;
}

}  // namespace

double Polyline::min_y() const {
  double m = points.at(0).second;
  for (auto [x, y] : points) m = std::min(m, y);
  return m;
}
double Polyline::max_y() const {
  double m = points.at(0).second;
  for (auto [x, y] : points) m = std::max(m, y);
  return m;
}

PlotSvg::PlotSvg(const std::string& svg) {
  for (size_t at = svg.find("<polyline"); at != std::string::npos; at = svg.find("<polyline", at + 1)) {
    std::string element = svg.substr(at, svg.find("/>", at) - at);
    polylines.push_back({attribute(element, "stroke"), attribute(element, "fill"), parse_points(attribute(element, "points"))});
  }
  for (size_t at = svg.find("<text"); at != std::string::npos; at = svg.find("<text", at + 1)) {
    size_t begin = svg.find('>', at) + 1, end = svg.find("</text>", begin);
    texts.push_back(text_content(svg.substr(begin, end - begin)));
    text_fills.push_back(attribute(svg.substr(at, begin - at), "fill"));
  }
}

int PlotSvg::count_stroked(const std::string& colour) const {
  return static_cast<int>(std::count_if(polylines.begin(), polylines.end(), [&](const Polyline& p) { return p.stroke == colour; }));
}

std::vector<Polyline> PlotSvg::filled(const std::string& colour) const {
  std::vector<Polyline> out;
  for (const Polyline& p : polylines)
    if (p.fill == colour) out.push_back(p);
  return out;
}

int PlotSvg::count_filled_texts(const std::string& colour) const {
  return static_cast<int>(std::count(text_fills.begin(), text_fills.end(), colour));
}

bool PlotSvg::has_text(const std::string& text) const { return std::find(texts.begin(), texts.end(), text) != texts.end(); }

TEST_CASE("plot svg reader: polylines, fills, and texts with superscripts") {
  PlotSvg svg(
      "<g>\n    <polyline\n      stroke=\"#1F77B4\"\n      fill=\"none\"\n      points=\"1.00,2.00 3.50,4.00\"\n      />\n"
      "    <polyline\n      stroke=\"none\"\n      fill=\"#FF7F0E\"\n      points=\"0,0 0,5 1,5 1,0 \"/>\n"
      "<text\n  fill=\"#000000\"\n><tspan font-family=\"sans-serif\">&#x31;&#x30;<tspan dy=\"-9.7\" "
      "font-size=\"11\">&#x2d;&#x31;</tspan></tspan></text>\n"
      "<text\n  y=\"5.7\"\n><tspan dy=\"2\">&#x61;&amp;b</tspan></text></g>");
  REQUIRE(svg.polylines.size() == 2);
  CHECK(svg.count_stroked("#1F77B4") == 1);
  CHECK(svg.polylines[0].points == std::vector<std::pair<double, double>>{{1, 2}, {3.5, 4}});
  REQUIRE(svg.filled("#FF7F0E").size() == 1);
  CHECK(svg.filled("#FF7F0E")[0].max_y() == 5);
  CHECK(svg.texts == std::vector<std::string>{"10^-1", "a&b"});
  CHECK(svg.count_filled_texts("#000000") == 1);
}

}  // namespace plot_test
