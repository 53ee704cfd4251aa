// The display seam of the embedding API (Interpreter::set_display, EvalResult::images;
// Note [Display] in interp/builtins/display.hpp): what display(x), drawings without a
// path, _repr_svg_ / _repr_png_ and progress bars send, with and without a notebook.
#include <doctest/doctest.h>

#include <fstream>
#include <string>
#include <vector>

#include "interp/interpreter.hpp"
#include "temp_dir.hpp"

using nabla::DisplayData;
using nabla::EvalResult;
using nabla::Interpreter;

namespace {

struct Notebook {
  Interpreter interp;
  std::vector<DisplayData> shown;
  std::string printed;
  Notebook() {
    interp.set_display([this](const DisplayData& d) { shown.push_back(d); });
    interp.set_output([this](const std::string& s) { printed += s; });
  }
};

bool is_png(const std::string& bytes) { return bytes.rfind("\x89PNG\r\n\x1a\n", 0) == 0; }

// A PNG's width and height, from its IHDR chunk.
std::pair<int, int> png_size(const std::string& bytes) {
  auto be32 = [&](size_t at) {
    return (static_cast<unsigned char>(bytes[at]) << 24) | (static_cast<unsigned char>(bytes[at + 1]) << 16) |
           (static_cast<unsigned char>(bytes[at + 2]) << 8) | static_cast<unsigned char>(bytes[at + 3]);
  };
  return {be32(16), be32(20)};
}

const char* const kFigure =
    "model Figure(n) {\n"
    "  _repr_svg_() = \"<svg xmlns='http://www.w3.org/2000/svg'><text>\" + str(n) + \"</text></svg>\"\n"
    "}\n";

}  // namespace

TEST_CASE("display: image tensors as PNG, other values as their text") {
  Notebook nb;
  EvalResult r = nb.interp.eval("display(rand(5, 7), rand(3, 4, 6), 42, zeros(2, 2, 2))");
  REQUIRE(r.ok);
  REQUIRE(nb.shown.size() == 4);
  CHECK(is_png(nb.shown[0].data.at("image/png")));
  CHECK(png_size(nb.shown[0].data.at("image/png")) == std::make_pair(7, 5));
  CHECK(png_size(nb.shown[1].data.at("image/png")) == std::make_pair(6, 4));
  CHECK(nb.shown[2].data == nabla::MimeBundle{{"text/plain", "42"}});
  CHECK(nb.shown[3].data.count("image/png") == 0);  // 2 channels: not an image
  CHECK(nb.shown[3].data.at("text/plain").find("tensor(") == 0);
  CHECK(nb.printed.empty());
}

TEST_CASE("display: without a notebook, the text form; drawings need a path") {
  Interpreter interp;
  std::string printed;
  interp.set_output([&](const std::string& s) { printed += s; });
  REQUIRE(interp.eval("display(42, \"a\")").ok);
  CHECK(printed == "42\n'a'\n");
  EvalResult r = interp.eval("let gm = compile(fn(v) = v * 2, randn(3))\ngm.render()", "<t>");
  REQUIRE(!r.ok);
  CHECK(r.error->message.find("<t>:2:1: error: gm.render(): no notebook to show the drawing in; give a path") == 0);
  r = interp.eval("render_autograd((randn(3, requires_grad=true) * 2).sum())");
  REQUIRE(!r.ok);
  CHECK(r.error->message.find("render_autograd(): no notebook") != std::string::npos);
}

TEST_CASE("display: drawings without a path go to the notebook as SVG") {
  Notebook nb;
  REQUIRE(nb.interp.eval("let gm = compile(fn(v) = relu(v) * 2, randn(3))\ngm.render()").ok);
  REQUIRE(nb.interp.eval("gm.optimize()\ngm.render(memory=true)").ok);
  REQUIRE(nb.interp.eval("render_autograd((randn(3, requires_grad=true) * 2).sum())").ok);
  REQUIRE(nb.shown.size() == 3);
  for (const DisplayData& d : nb.shown) CHECK(d.data.at("image/svg+xml").find("<svg") != std::string::npos);
  CHECK(nb.shown[0].data.at("image/svg+xml").find("relu") != std::string::npos);
}

TEST_CASE("display: _repr_svg_ of a model, in display(x) and as a cell's last value") {
  Notebook nb;
  REQUIRE(nb.interp.eval(kFigure).ok);
  EvalResult r = nb.interp.eval("Figure(7)");
  REQUIRE(r.ok);
  CHECK(r.images.at("image/svg+xml") == "<svg xmlns='http://www.w3.org/2000/svg'><text>7</text></svg>");
  CHECK(!r.echo.empty());
  REQUIRE(nb.interp.eval("display(Figure(8))").ok);
  REQUIRE(nb.shown.size() == 1);
  CHECK(nb.shown[0].data.at("image/svg+xml").find("<text>8</text>") != std::string::npos);
  // Without a notebook, the last value has no images (the methods do not run).
  Interpreter terminal;
  REQUIRE(terminal.eval(kFigure).ok);
  CHECK(terminal.eval("Figure(7)").images.empty());
}

TEST_CASE("display: a module's _repr_svg_ function (a native-style object without self)") {
  nabla::testing::TempDir dir("nabla_display");
  std::ofstream(dir.file("badge.dsl")) << "fn _repr_svg_() = \"<svg><text>badge</text></svg>\"\n";
  Notebook nb;
  REQUIRE(nb.interp.eval("import \"" + dir.file("badge.dsl") + "\" as badge\ndisplay(badge)").ok);
  REQUIRE(nb.shown.size() == 1);
  CHECK(nb.shown[0].data.at("image/svg+xml") == "<svg><text>badge</text></svg>");
}

TEST_CASE("display: a _repr_png_ that returns no str is an error naming it") {
  Notebook nb;
  REQUIRE(nb.interp.eval("model Bad() {\n  _repr_png_() = 3\n}").ok);
  EvalResult r = nb.interp.eval("display(Bad())");
  REQUIRE(!r.ok);
  CHECK(r.error->message.find("Bad._repr_png_() must return a str, got int") != std::string::npos);
  CHECK(nb.interp.eval("1 + 1").echo == "2");  // the session goes on
}

TEST_CASE("display: a progress bar redraws one display in place") {
  Notebook nb;
  REQUIRE(nb.interp
              .eval("import data\nlet bar = data.Progress(3, desc=\"epoch 1\")\n"
                    "for i in range(3) { bar.update(loss=0.5) }\nbar.close()")
              .ok);
  REQUIRE(nb.shown.size() >= 2);
  CHECK(!nb.shown.front().update);
  CHECK(!nb.shown.front().display_id.empty());
  for (size_t k = 1; k < nb.shown.size(); ++k) {
    CHECK(nb.shown[k].update);
    CHECK(nb.shown[k].display_id == nb.shown.front().display_id);
  }
  const std::string& last = nb.shown.back().data.at("text/plain");
  CHECK(last.find("epoch 1  3/3") == 0);
  CHECK(last.find(" in 0:0") != std::string::npos);  // the closing redraw
  CHECK(last.find("loss 0.5000") != std::string::npos);
  CHECK(nb.printed.empty());
  // tty=false keeps the summary line, in a notebook too.
  REQUIRE(nb.interp.eval("let quiet = data.Progress(2, desc=\"e\", tty=false)\nquiet.update()\nquiet.close()").ok);
  CHECK(nb.printed.find("e: 1/2 in") == 0);
}
