// The profiler in the language (interp/builtins/profile.hpp): profile { } blocks, the REPL's
// :prof, and last_profile(), an object with the recorded ops:
//   p.table(group="op", sort="time", rows=0)   the table as text
//   p.rows(group="op", sort="time")            its rows as dicts
//   p.events()                                 every op and span as a dict
//   p.export_chrome_trace(path)                the Chrome trace event format (Perfetto)
//   p.elapsed_us                               how long the block ran
#include <memory>

#include "autograd/profiler.hpp"
#include "interp/builtins/builtins_internal.hpp"
#include "interp/builtins/profile.hpp"

namespace nabla::interp {

namespace {

Value dict_of(std::initializer_list<std::pair<const char*, Value>> items) {
  auto d = std::make_shared<DictObj>();
  for (const auto& [k, v] : items) d->set(make_str(k), v);
  return Value::object(Tag::Dict, d);
}

Value row_value(const ProfileRow& r) {
  double fraction = r.bandwidth_fraction();
  return dict_of({{"key", make_str(r.key)},
                  {"calls", Value::integer(r.calls)},
                  {"forward_us", Value::number(r.forward_us)},
                  {"backward_us", Value::number(r.backward_us)},
                  {"total_us", Value::number(r.total_us())},
                  {"flops", Value::number(r.flops)},
                  {"bytes", Value::number(r.bytes)},
                  {"bw_fraction", fraction >= 0 ? Value::number(fraction) : Value::none()}});
}

Value event_value(const ProfileEvent& e) {
  return dict_of({{"name", make_str(e.name)},
                  {"line", make_str(e.line)},
                  {"source", make_str(e.source)},
                  {"kind", make_str(e.is_op ? "op" : "span")},
                  {"phase", make_str(e.phase == ProfilePhase::forward ? "forward" : "backward")},
                  {"device", make_str(e.device)},
                  {"shapes", make_str(e.shapes)},
                  {"start_us", Value::number(static_cast<double>(e.start_ns) / 1e3)},
                  {"dur_us", Value::number(static_cast<double>(e.dur_ns) / 1e3)},
                  {"flops", Value::number(e.flops)},
                  {"bytes", Value::number(e.bytes)}});
}

// group and sort from arguments 1 and 2 of a method (self is 0).
std::pair<ProfileGroup, std::string> group_and_sort(const Bound& b) {
  ProfileGroup group = profile_group_from_name(b.has(1) ? str(b[1]) : "op");
  return {group, b.has(2) ? str(b[2]) : "time"};
}

Value profile_value(std::shared_ptr<const Profiler> p) {
  auto obj = std::make_shared<ObjectObj>();
  obj->type_name = "profile";
  obj->set("elapsed_us", Value::number(static_cast<double>(p->elapsed_ns()) / 1e3));
  obj->methods["table"] = [p](Evaluator&, CallArgs& a) {
    Bound b = bind("table", a, {"self", "group", "sort", "rows"}, 1);
    auto [group, sort] = group_and_sort(b);
    int64_t rows = b.has(3) ? as_int(b[3], "table(): rows") : 0;
    if (rows < 0) fail("table(): rows must be 0 (all) or more, got " + std::to_string(rows));
    return make_report(profile_table(*p, group, sort, static_cast<size_t>(rows)));
  };
  obj->methods["rows"] = [p](Evaluator&, CallArgs& a) {
    Bound b = bind("rows", a, {"self", "group", "sort"}, 1);
    auto [group, sort] = group_and_sort(b);
    std::vector<Value> out;
    for (const ProfileRow& r : profile_rows(p->events(), group, sort)) out.push_back(row_value(r));
    return make_list(std::move(out));
  };
  obj->methods["events"] = [p](Evaluator&, CallArgs& a) {
    bind("events", a, {"self"}, 1);
    std::vector<Value> out;
    for (const ProfileEvent& e : p->events()) out.push_back(event_value(e));
    return make_list(std::move(out));
  };
  obj->methods["export_chrome_trace"] = [p](Evaluator& ev, CallArgs& a) {
    ev.check_sandbox("export_chrome_trace()");
    Bound b = bind("export_chrome_trace", a, {"self", "path"}, 2);
    write_chrome_trace(*p, as_path(b[1], "export_chrome_trace"));
    return Value();
  };
  return Value::object(Tag::Object, obj);
}

// A string option of profile(...).
std::string string_option(const std::string& name, const Value& v) {
  if (v.tag != Tag::Str) fail("profile: " + name + " must be a string, got " + type_name(v));
  return str(v);
}

}  // namespace

ProfileOptions profile_options(const std::vector<std::pair<std::string, Value>>& kw) {
  ProfileOptions o;
  for (const auto& [name, v] : kw) {
    if (name == "sort") {
      o.sort = string_option(name, v);
      profile_rows({}, ProfileGroup::op, o.sort);  // checks the column's name
    } else if (name == "group") {
      o.group = string_option(name, v);
      profile_group_from_name(o.group);
    } else if (name == "rows") {
      o.rows = as_int(v, "profile: rows");
      if (o.rows < 0) fail("profile: rows must be 0 (all) or more, got " + std::to_string(o.rows));
    } else if (name == "trace") {
      o.trace = string_option(name, v);
    } else if (name == "print") {
      o.print = as_bool(v, "profile: print");
    } else {
      fail("profile: unknown option '" + name + "' (options: sort, group, rows, trace, print)");
    }
  }
  return o;
}

void run_profiled(Evaluator& ev, const ProfileOptions& options, const std::function<void()>& body) {
  if (!options.trace.empty()) ev.check_sandbox("profile(trace=...)");
  auto profiler = std::make_shared<Profiler>();
  profiler->set_library_prefix(kStdlibPrefix);
  ev.last_profile = profiler;
  {
    ProfilerActivation active(profiler.get());
    try {
      body();
    } catch (...) {
      profiler->stop();
      throw;
    }
    profiler->stop();
  }
  if (!options.trace.empty()) write_chrome_trace(*profiler, options.trace);
  if (options.print)
    ev.output(profile_table(*profiler, profile_group_from_name(options.group), options.sort,
                            static_cast<size_t>(options.rows)));
}

namespace {

Value last_profile_builtin(Evaluator& ev, CallArgs& a) {
  bind("last_profile", a, {}, 0);
  if (!ev.last_profile) fail("last_profile(): nothing has been profiled yet (use profile { ... })");
  return profile_value(ev.last_profile);
}

const BuiltinEntry kProfileBuiltins[] = {
    {"last_profile", last_profile_builtin, "last_profile()",
     "The ops of the last profile { } block or :prof, with table(), rows(), events() and export_chrome_trace(path). "
     "Example: profile { relu(randn(64)) }; print(last_profile().table(rows=10))"},
};

}  // namespace

const BuiltinLibrary kProfileLibrary = {"profile", nullptr, kProfileBuiltins, nullptr};

}  // namespace nabla::interp
