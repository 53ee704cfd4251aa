// memory_plan_dot: a table with a row per slot and a column per step, buffers as
// cells spanning their lifetimes in their slot's colour; overlaps flagged.
#include <doctest/doctest.h>

#include "svg.hpp"
#include "viz/graphviz.hpp"

using namespace nabla;
using graph::BufferUse;
using viz_test::Svg;

TEST_CASE("memory_plan_dot draws slots, lifetimes and the totals") {
  std::vector<BufferUse> plan = {
      {1, 0, 0, 2, 1024, "%1 linear"},
      {2, 1, 1, 3, 4096, ""},
      {3, 0, 3, 4, 512, "%3 relu"},
  };
  std::string dot = viz::memory_plan_dot(plan, {"linear", "relu"});
  // %1 lives over steps 0..2 and %3 over 3..4, both in slot 0's colour.
  CHECK(dot.find("COLSPAN=\"3\" BGCOLOR=\"#bfdbfe\">%1 linear") != std::string::npos);
  CHECK(dot.find("COLSPAN=\"2\" BGCOLOR=\"#bfdbfe\">%3 relu") != std::string::npos);
  CHECK(dot.find("COLSPAN=\"3\" BGCOLOR=\"#bbf7d0\">%2") != std::string::npos);

  if (!viz_test::can_render()) return;
  std::string svg_text = viz::render_data(dot, "svg");
  Svg svg(svg_text);
  CHECK(svg.count("node") == 1);
  CHECK(svg.titled("plan").has_class("plan"));
  std::string text = svg.titled("plan").text();
  for (const char* t : {"slot 0", "slot 1", "%1 linear", "%2", "%3 relu", "1.0 KiB", "4.0 KiB", "512 B", "0 linear",
                        "1 relu", "4"})
    CHECK_MESSAGE(text.find(std::string(t) + "\n") != std::string::npos, t);
  CHECK(text.find("overlap") == std::string::npos);
  CHECK(svg_text.find("memory plan: 3 buffers in 2 slots, 5.0 KiB planned, 5.5 KiB without reuse") !=
        std::string::npos);
}

TEST_CASE("memory_plan_dot puts overlapping buffers of one slot on an 'overlap' row") {
  std::vector<BufferUse> plan = {{1, 0, 0, 2, 64, ""}, {2, 0, 2, 3, 64, ""}, {3, 0, 3, 3, 64, ""}};
  if (!viz_test::can_render()) return;
  Svg svg(viz::render_data(viz::memory_plan_dot(plan), "svg"));
  std::string text = svg.titled("plan").text();
  // %2 overlaps %1 at step 2; %3 fits after %1 on the first row.
  size_t first = text.find("overlap");
  CHECK(first != std::string::npos);
  CHECK(text.find("overlap", first + 1) == std::string::npos);
}

TEST_CASE("an in-place buffer continues its predecessor's row from the step after the handover") {
  // %2 is computed over %1 at step 2 (in place): one row, %2's cell over steps 3..4.
  std::vector<BufferUse> plan = {{1, 0, 0, 2, 64, ""}, {2, 0, 2, 4, 64, "", true}};
  std::string dot = viz::memory_plan_dot(plan);
  CHECK(dot.find("overlap") == std::string::npos);
  CHECK(dot.find("COLSPAN=\"3\" BGCOLOR=\"#bfdbfe\">%1") != std::string::npos);
  CHECK(dot.find("COLSPAN=\"2\" BGCOLOR=\"#bfdbfe\">%2") != std::string::npos);
  // Without the mark the same two buffers overlap.
  plan[1].in_place = false;
  CHECK(viz::memory_plan_dot(plan).find("overlap") != std::string::npos);
}

TEST_CASE("memory_plan_dot rejects impossible buffers, naming them") {
  CHECK_THROWS_WITH_AS(viz::memory_plan_dot({{7, 0, 2, 1, 8, ""}}),
                       "memory plan: buffer 0 (%7): last_step 1 is before first_step 2", Error);
  CHECK_THROWS_WITH_AS(viz::memory_plan_dot({{1, 0, 0, 0, 8, ""}, {2, -1, 0, 0, 8, "%2 add"}}),
                       "memory plan: buffer 1 (%2 add): slot -1 is negative", Error);
  CHECK_THROWS_WITH_AS(viz::memory_plan_dot({{1, 0, 0, 0, -8, ""}}),
                       "memory plan: buffer 0 (%1): bytes -8 is negative", Error);
}

TEST_CASE("an empty memory plan still draws") {
  std::string dot = viz::memory_plan_dot({});
  CHECK(dot.find("0 buffers in 0 slots") != std::string::npos);
  if (!viz_test::can_render()) return;
  std::string svg = viz::render_data(dot, "svg");
  CHECK(svg.find("0 buffers in 0 slots") != std::string::npos);
}
