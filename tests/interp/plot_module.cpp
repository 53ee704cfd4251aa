// `import plot` in a session: the warnings a series with NaN, inf or non-positive
// values on a log axis gives (one per series and kind, at the call, naming the series
// and the count), and errors located at the user's line.
#include "helpers.hpp"

// A session whose run() returns what it printed and warned, in order.
struct Session : nabla::testing::Session {
  Session() {
    interp.set_warning_output([this](const std::string& s) { out += s; });
  }
};

TEST_CASE("plot: a NaN or inf in a series gives one warning at the call, naming the series and the count") {
  Session s;
  s.run("import plot\nlet fig = plot.Figure()");
  std::string out = s.run("fig.line([1.0, float(\"nan\"), 2.0, float(\"inf\"), 3.0, 4.0], label=\"train\")");
  CHECK(out == "t.dsl:1:1: warning: line(): series 'train': 2 of 6 points are NaN or inf and are not drawn; "
               "the line has gaps there\n");
  CHECK(s.run("fig.line([1, 2, 3])") == "");
  out = s.run("\nplot.hist([1, 2, float(\"nan\")], label=\"w\")");
  CHECK(out == "t.dsl:2:1: warning: hist(): series 'w': 1 of 3 values are NaN or inf and are not counted\n");
}

TEST_CASE("plot: non-positive values on a log axis are dropped with a warning, as matplotlib does") {
  Session s;
  s.run("import plot");
  std::string out = s.run("let f = plot.lines({\"loss\": [1.0, 0.0, -1.0, 0.5, float(\"nan\")]}, logy=true)");
  CHECK(out.find("series 'loss': 1 of 5 points are NaN or inf") != std::string::npos);
  CHECK(out.find("series 'loss': 2 of 5 points are not positive on a log axis and are not drawn\n") != std::string::npos);
  CHECK(s.run("let g = plot.lines([1.0, 0.0], logx=false)") == "");
  CHECK(s.run("let h = plot.lines([1.0, 2.0], logx=true)").find("1 of 2 points are not positive") != std::string::npos);
}

TEST_CASE("plot: errors are located at the user's line") {
  Session s;
  s.run("import plot");
  std::string e = s.error("let fig = plot.Figure()\nfig.line([1, 2], xs=[1, 2, 3])");
  CHECK(e.find("t.dsl:2:") != std::string::npos);
  CHECK(e.find("xs and ys differ in length for series 1: 3 xs, 2 ys") != std::string::npos);
  CHECK(e.find("fig.line([1, 2], xs=[1, 2, 3])\n") != std::string::npos);
  e = s.error("plot.lines([1, 2]).save(\"out.pdf\")");
  CHECK(e.find("t.dsl:1:") != std::string::npos);
  CHECK(e.find("save(): cannot tell the format of 'out.pdf': the extension must be .svg or .png, got .pdf") != std::string::npos);
}
