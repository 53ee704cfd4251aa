// render and render_data: the format from the extension, PNG through the gd
// plugin, Graphviz's errors as nabla::Error, and no partial file on any failure; in a
// build without Graphviz, DOT still written and SVG/PNG an error that says why.
#include <doctest/doctest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "graphs.hpp"
#include "svg.hpp"
#include "temp_dir.hpp"
#include "viz/graphviz.hpp"

using namespace nabla;
using nabla::testing::TempDir;
namespace fs = std::filesystem;

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

const std::string kSmallDot = "digraph { a -> b }";

}  // namespace

TEST_CASE("render writes SVG, DOT and PNG by extension") {
  if (!viz_test::can_render()) return;
  TempDir dir("nabla_viz");
  std::string dot = viz::graph_dot(viz_test::small_mlp());
  viz::render(dot, dir.file("g.svg"));
  viz::render(dot, dir.file("g.dot"));
  viz::render(dot, dir.file("g.GV"));
  std::string svg = read_file(dir.file("g.svg"));
  CHECK(svg.rfind("<?xml", 0) == 0);
  CHECK(svg.find("<svg") != std::string::npos);
  CHECK(svg.find("%3 = linear") != std::string::npos);
  CHECK(read_file(dir.file("g.dot")) == dot);
  CHECK(read_file(dir.file("g.GV")) == dot);

  std::string why;
  REQUIRE_MESSAGE(viz::png_available(&why), why);
  viz::render(dot, dir.file("g.png"));
  std::string png = read_file(dir.file("g.png"));
  CHECK(png.size() > 1000);
  CHECK(png.substr(0, 8) == std::string("\x89PNG\r\n\x1a\n", 8));
  CHECK(dir.listing() == std::vector<std::string>{"g.GV", "g.dot", "g.png", "g.svg"});
}

TEST_CASE("render_data returns each format in memory") {
  CHECK(viz::render_data(kSmallDot, "dot") == kSmallDot);
  CHECK_THROWS_WITH_AS(viz::render_data(kSmallDot, "pdf"), "render: unknown format 'pdf' (known: dot, svg, png)",
                       Error);
  if (!viz_test::can_render()) return;
  CHECK(viz::render_data(kSmallDot, "svg").find("<title>a&#45;&gt;b</title>") != std::string::npos);
  CHECK(viz::render_data(kSmallDot, "png").substr(1, 3) == "PNG");
}

TEST_CASE("without Graphviz, render writes DOT and refuses SVG and PNG, saying why") {
  std::string why;
  if (viz::graphviz_available(&why)) return;  // the cases above cover a build with Graphviz
  CHECK(why.find("built without Graphviz (NABLA_GRAPHVIZ=OFF)") != std::string::npos);
  CHECK(why.find("write .dot instead") != std::string::npos);
  CHECK_FALSE(viz::png_available());
  TempDir dir("nabla_viz");
  std::string dot = viz::graph_dot(viz_test::small_mlp());
  viz::render(dot, dir.file("g.dot"));
  viz::render(dot, dir.file("g.GV"));
  CHECK(read_file(dir.file("g.dot")) == dot);
  CHECK(read_file(dir.file("g.GV")) == dot);
  CHECK_THROWS_WITH_AS(viz::render(dot, dir.file("g.svg")),
                       ("render: cannot write '" + dir.file("g.svg") + "': " + why).c_str(), Error);
  CHECK_THROWS_WITH_AS(viz::render(dot, dir.file("g.png")), doctest::Contains("built without Graphviz"), Error);
  CHECK_THROWS_WITH_AS(viz::render_data(dot, "svg"), ("render: cannot make svg: " + why).c_str(), Error);
  CHECK(dir.listing() == std::vector<std::string>{"g.GV", "g.dot"});
}

TEST_CASE("an unknown extension is an error and writes nothing") {
  TempDir dir("nabla_viz");
  CHECK_THROWS_WITH_AS(viz::render(kSmallDot, dir.file("g.pdf")),
                       doctest::Contains("unknown extension '.pdf' (known: .dot, .gv, .svg, .png)"), Error);
  CHECK_THROWS_WITH_AS(viz::render(kSmallDot, dir.file("graph")), doctest::Contains("it has no extension"), Error);
  CHECK(dir.listing().empty());
}

TEST_CASE("an unwritable path is an error naming it, and leaves no file") {
  TempDir dir("nabla_viz");
  // Writing is the same for every format; without Graphviz only DOT gets that far.
  const std::string ext = viz::graphviz_available() ? ".svg" : ".dot";
  std::string missing = dir.file("no/such/dir/g" + ext);
  CHECK_THROWS_WITH_AS(viz::render(kSmallDot, missing),
                       ("render: cannot write '" + missing + "': No such file or directory").c_str(), Error);
  // A directory where the file should go: the rename fails after the temporary
  // file was written, and the temporary file is removed.
  fs::create_directory(dir.file("taken" + ext));
  CHECK_THROWS_WITH_AS(viz::render(kSmallDot, dir.file("taken" + ext)), doctest::Contains("cannot write"), Error);
  CHECK(dir.listing() == std::vector<std::string>{"taken" + ext});
  CHECK(fs::is_directory(dir.file("taken" + ext)));
}

TEST_CASE("DOT that Graphviz rejects is an error with its message, and the old file stays") {
  if (!viz_test::can_render()) return;
  TempDir dir("nabla_viz");
  std::string path = dir.file("g.svg");
  viz::render(kSmallDot, path);
  std::string old = read_file(path);
  CHECK_THROWS_WITH_AS(viz::render("digraph { a -> }", path),
                       doctest::Contains("render: the DOT text does not parse: Error: syntax error in line 1"), Error);
  CHECK_THROWS_WITH_AS(viz::render("digraph { a [label=<<B>bold</I>>] }", path), doctest::Contains("render:"), Error);
  CHECK(read_file(path) == old);
  CHECK(dir.listing() == std::vector<std::string>{"g.svg"});
}

TEST_CASE("rendering works again and again (no state left between calls)") {
  if (!viz_test::can_render()) return;
  std::string dot = viz::graph_dot(viz_test::with_fused());
  std::string first = viz::render_data(dot, "svg");
  viz::render_data(dot, "png");  // loads the gd plugin: must not change later SVG layouts
  for (int i = 0; i < 5; ++i) CHECK(viz::render_data(dot, "svg") == first);
}
