// The op profiler (autograd/profiler.hpp): what it records, how backward ops are
// attributed, library lines, the tables and the Chrome trace, and the fused optimizer
// step outside the op table.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "autograd/engine.hpp"
#include "autograd/ops.hpp"
#include "autograd/optim_step.hpp"
#include "autograd/profiler.hpp"
#include "autograd/roofline.hpp"
#include "tensor/origin.hpp"

using namespace nabla;

namespace {

Tensor leaf(std::vector<double> v, Shape s) { return tensor_from(v, s, DType::f64).set_requires_grad(true); }

std::vector<const ProfileEvent*> ops_named(const Profiler& p, const std::string& name) {
  std::vector<const ProfileEvent*> out;
  for (const ProfileEvent& e : p.events())
    if (e.is_op && e.name == name) out.push_back(&e);
  return out;
}

const ProfileEvent& span_named(const Profiler& p, const std::string& name) {
  for (const ProfileEvent& e : p.events())
    if (!e.is_op && e.name == name) return e;
  FAIL("no span " << name);
  throw;
}

// y = sum(x * x) with each op on its own line; then backward on line 3.
void run_square_sum(const Tensor& x) {
  set_current_origin("a.dsl:1:5");
  Tensor sq = x * x;
  set_current_origin("a.dsl:2:5");
  Tensor y = sum(sq);
  set_current_origin("a.dsl:3:1");
  backward(y);
  set_current_origin("");
}

}  // namespace

TEST_CASE("the profiler records top-level ops only while it is active") {
  Tensor a = tensor_from({1, 2, 3}, {3}, DType::f64);
  Profiler p;
  {
    ProfilerActivation active(&p);
    CHECK(active_profiler() == &p);
    sum(a * a + a);
  }
  CHECK(active_profiler() == nullptr);
  sum(a * a);  // not recorded
  REQUIRE(p.events().size() == 3);
  CHECK(p.events()[0].name == "mul");
  CHECK(p.events()[1].name == "add");
  CHECK(p.events()[2].name == "sum");
  for (const ProfileEvent& e : p.events()) {
    CHECK(e.is_op);
    CHECK(e.phase == ProfilePhase::forward);
    CHECK(e.device == "cpu");
    CHECK(e.dur_ns >= 0);
  }
  CHECK(p.events()[0].shapes == "[3], [3]");
  CHECK(p.events()[1].start_ns >= p.events()[0].start_ns + p.events()[0].dur_ns);
}

TEST_CASE("backward ops count under the line of their forward op, inside spans named after the node") {
  Tensor x = leaf({1, 2, 3}, {3});
  Profiler p;
  {
    ProfilerActivation active(&p);
    run_square_sum(x);
  }
  REQUIRE(ops_named(p, "mul").size() >= 2);  // the forward x * x and its backward's multiplications
  const ProfileEvent& forward_mul = *ops_named(p, "mul")[0];
  CHECK(forward_mul.phase == ProfilePhase::forward);
  CHECK(forward_mul.line == "a.dsl:1:5");
  const ProfileEvent& backward = span_named(p, "backward");
  CHECK(backward.line == "a.dsl:3:1");
  const ProfileEvent& mul_node = span_named(p, "MulBackward");
  CHECK(mul_node.line == "a.dsl:1:5");
  int backward_ops = 0;
  for (const ProfileEvent& e : p.events()) {
    if (!e.is_op || e.phase != ProfilePhase::backward) continue;
    ++backward_ops;
    // Every backward op lies inside the backward span and belongs to one of the lines.
    CHECK(e.start_ns >= backward.start_ns);
    CHECK(e.start_ns + e.dur_ns <= backward.start_ns + backward.dur_ns);
    CHECK((e.line == "a.dsl:1:5" || e.line == "a.dsl:2:5"));
    if (e.start_ns >= mul_node.start_ns && e.start_ns + e.dur_ns <= mul_node.start_ns + mul_node.dur_ns)
      CHECK(e.line == "a.dsl:1:5");
  }
  CHECK(backward_ops >= 2);
  CHECK(x.grad().defined());
}

TEST_CASE("an op in library code counts under the innermost call outside it") {
  Tensor a = tensor_from({1, 2}, {2}, DType::f64);
  Profiler p;
  p.set_library_prefix("<lib>/");
  {
    ProfilerActivation active(&p);
    ProfileSpan user_call([] { return std::pair<std::string, std::string>("Net.forward", "u.dsl:3:9"); });
    ProfileSpan lib_call([] { return std::pair<std::string, std::string>("Linear.forward", "<lib>/nn.dsl:5:1"); });
    set_current_origin("<lib>/nn.dsl:9:12");
    exp(a);
    set_current_origin("u.dsl:4:1");
    neg(a);
    set_current_origin("");
  }
  const ProfileEvent& e = *ops_named(p, "exp").at(0);
  CHECK(e.line == "u.dsl:3:9");
  CHECK(e.source == "<lib>/nn.dsl:9:12");
  CHECK(ops_named(p, "neg").at(0)->line == "u.dsl:4:1");
}

TEST_CASE("profile tables group by op or by line, sort by any column, and reject unknown ones") {
  Tensor x = leaf({1, 2, 3}, {3});
  Profiler p;
  {
    ProfilerActivation active(&p);
    run_square_sum(x);
    set_current_origin("a.dsl:4:1");
    for (int i = 0; i < 5; ++i) neg(detach(x));
    set_current_origin("");
  }
  std::vector<ProfileRow> by_calls = profile_rows(p.events(), ProfileGroup::op, "calls");
  REQUIRE(!by_calls.empty());
  CHECK(by_calls[0].key == "neg");
  CHECK(by_calls[0].calls == 5);
  std::vector<ProfileRow> by_line = profile_rows(p.events(), ProfileGroup::line, "name");
  REQUIRE(by_line.size() == 4);  // 3:1 is backward()'s own seed gradient
  CHECK(by_line[0].key == "a.dsl:1:5");
  CHECK(by_line[0].forward_us > 0);
  CHECK(by_line[0].backward_us > 0);  // MulBackward's ops
  CHECK(by_line[2].key == "a.dsl:3:1");
  CHECK(by_line[3].key == "a.dsl:4:1");
  CHECK(by_line[3].calls == 5);
  CHECK(by_line[3].backward_us == 0);
  // Totals agree however the events are grouped.
  double total_op = 0, total_line = 0;
  for (const ProfileRow& r : by_calls) total_op += r.total_us();
  for (const ProfileRow& r : by_line) total_line += r.total_us();
  CHECK(total_op == doctest::Approx(total_line));
  std::vector<ProfileRow> by_time = profile_rows(p.events(), ProfileGroup::op, "time");
  for (size_t i = 1; i < by_time.size(); ++i) CHECK(by_time[i - 1].total_us() >= by_time[i].total_us());
  CHECK_THROWS_WITH(profile_rows(p.events(), ProfileGroup::op, "speed"),
                    "profile: cannot sort by \"speed\" (columns: name, calls, forward, backward, time, avg, flops, "
                    "bytes)");
  CHECK_THROWS_WITH(profile_group_from_name("file"), "profile: group must be \"op\" or \"line\", got \"file\"");
  std::string table = profile_table(p, ProfileGroup::op, "calls", 1);
  CHECK(table.find("neg") != std::string::npos);
  CHECK(table.find("more rows") != std::string::npos);
  CHECK(table.find("\ntotal ") != std::string::npos);
  // BW%: each row's GB/s over the copy bandwidth measured once for the process.
  CHECK(table.find("GB/s   BW%\n") != std::string::npos);
  CHECK(table.find("this machine's copy bandwidth") != std::string::npos);
  double copy = machine_copy_bandwidth();
  CHECK(copy > 1e8);  // any machine copies more than 100 MB/s
  CHECK(copy == machine_copy_bandwidth());  // measured once
  const ProfileRow& neg_row = by_calls[0];
  CHECK(neg_row.bandwidth_fraction() == doctest::Approx(neg_row.bytes / (neg_row.total_us() * 1e-6) / copy));
}

TEST_CASE("the Chrome trace is JSON with complete events that nest") {
  Tensor x = leaf({1, 2, 3}, {3});
  Profiler p;
  {
    ProfilerActivation active(&p);
    run_square_sum(x);
  }
  nlohmann::json trace = nlohmann::json::parse(chrome_trace_json(p));
  const auto& events = trace.at("traceEvents");
  REQUIRE(events.size() == p.events().size());
  const nlohmann::json* backward = nullptr;
  for (const auto& e : events) {
    CHECK(e.at("ph") == "X");
    CHECK(e.at("ts").is_number());
    CHECK(e.at("dur").get<double>() >= 0);
    if (e.at("name") == "backward") backward = &e;
  }
  REQUIRE(backward != nullptr);
  double begin = backward->at("ts"), end = begin + backward->at("dur").get<double>();
  int inside = 0;
  for (const auto& e : events)
    if (e.at("cat") == "backward") {
      CHECK(e.at("ts").get<double>() >= begin);
      CHECK(e.at("ts").get<double>() + e.at("dur").get<double>() <= end + 1e-3);
      CHECK(e.at("args").at("line").is_string());
      ++inside;
    }
  CHECK(inside >= 2);
}

TEST_CASE("one fused Adam step is recorded as adam_step, with its line, shapes, device and cost") {
  Tensor p = tensor_from({1, -2, 3, 0.5, 0, 4}, {2, 3}), g = tensor_from({0.1, 0.2, -0.3, 0.4, 0, 1}, {2, 3});
  Tensor m = zeros({2, 3}), v = zeros({2, 3});
  AdamHyper hyper;
  hyper.lr = 0.1;
  Profiler prof;
  {
    ProfilerActivation active(&prof);
    set_current_origin("train.dsl:9:3");
    CHECK(adam_step_(p, g, m, v, hyper));
    set_current_origin("");
  }
  auto steps = ops_named(prof, "adam_step");
  REQUIRE(steps.size() == 1);
  REQUIRE(prof.events().size() == 1);  // the whole step, not the ops of one
  const ProfileEvent& e = *steps[0];
  CHECK(e.line == "train.dsl:9:3");
  CHECK(e.device == "cpu");
  CHECK(e.shapes == "[2, 3], [2, 3], [2, 3], [2, 3]");
  CHECK(e.flops == 16 * 6);
  CHECK(e.bytes == 7 * 6 * 4);
  CHECK(e.dur_ns >= 0);
  CHECK(to_double_vector(m)[1] == doctest::Approx(0.1 * 0.2));  // the step ran: (1 - beta1) * g
  auto rows = profile_rows(prof.events(), ProfileGroup::op, "time");
  REQUIRE(rows.size() == 1);
  CHECK((rows[0].key == "adam_step" && rows[0].calls == 1 && rows[0].flops == 96));
  // Tensors the fused kernel does not take: nothing runs, nothing is recorded.
  Tensor g64 = to_dtype(g, DType::f64);
  Profiler none;
  {
    ProfilerActivation active(&none);
    CHECK_FALSE(adam_step_(p, g64, m, v, hyper));
  }
  CHECK(none.events().empty());
}
