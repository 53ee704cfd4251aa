// The native half of the `log` stdlib module (stdlib/log.dsl imports it as `_log`):
// an events file as a value of the language, and the summaries written into it, each
// function checking its arguments and converting the language's values for
// summaries.hpp. The SummaryWriter model of stdlib/log.dsl calls these with its own
// events file; its methods' names and arguments are PyTorch's, and so are these.
#include <ctime>
#include <memory>

#include "interp/builtins/builtins_internal.hpp"
#include "interp/log/event_writer.hpp"
#include "interp/log/image_layout.hpp"
#include "interp/log/summaries.hpp"
#include "tensor/allocator.hpp"

namespace nabla::interp {

namespace {

namespace tb = nabla::tensorboard_log;

// An events file, as the language holds it (type "EventFile").
struct EventFileObj : ObjectObj {
  std::unique_ptr<tb::EventFileWriter> writer;
};

tb::EventFileWriter& writer_of(const Value& v, const std::string& fname) {
  auto* file = v.tag == Tag::Object ? dynamic_cast<EventFileObj*>(v.as<ObjectObj>()) : nullptr;
  if (!file) fail(fname + "(): expected an EventFile (from _log.open), got " + type_name(v));
  return *file->writer;
}

const std::string& str_arg(const Value& v, const std::string& fname, const char* arg) {
  if (v.tag != Tag::Str) fail(fname + "(): " + arg + " must be a str, got " + type_name(v));
  return v.as<StrObj>()->s;
}

// A number, or the value of a one-element tensor.
double number_arg(const Value& v, const std::string& fname, const char* arg) {
  if (v.is_num()) return v.as_double();
  if (v.tag == Tag::Tensor && v.t.numel() == 1) return v.t.item();
  std::string found = v.tag == Tag::Tensor ? "a tensor of shape " + v.t.shape_str() : type_name(v);
  fail(fname + "(): " + arg + " must be a number or a one-element tensor, got " + found);
}

std::optional<int64_t> step_arg(const Bound& b, size_t k, const std::string& fname) {
  if (!b.has(k)) return std::nullopt;
  return as_int(b[k], fname + "(): global_step");
}

double walltime_arg(const Bound& b, size_t k, const std::string& fname) {
  return b.has(k) ? number_arg(b[k], fname, "walltime") : tb::wall_time_now();
}

// Runs a summary builder, naming the caller in its error.
template <class Build>
auto named(const std::string& fname, Build build) {
  try {
    return build();
  } catch (const Error& e) {
    fail(fname + "(): " + e.what());
  }
}

// _log.open(log_dir, filename_suffix="", max_queue=10, flush_secs=120)
Value open_builtin(Evaluator& ev, CallArgs& a) {
  ev.check_sandbox("log.SummaryWriter()");
  Bound b = bind("open", a, {"log_dir", "filename_suffix", "max_queue", "flush_secs"}, 1);
  const std::string& dir = str_arg(b[0], "SummaryWriter", "log_dir");
  std::string suffix = b.has(1) ? str_arg(b[1], "SummaryWriter", "filename_suffix") : "";
  int64_t max_queue = b.has(2) ? as_int(b[2], "SummaryWriter(): max_queue") : 10;
  double flush_secs = b.has(3) ? number_arg(b[3], "SummaryWriter", "flush_secs") : 120;
  if (dir.empty()) fail("SummaryWriter(): log_dir is empty; give a folder (\".\" for this one)");
  if (max_queue < 1) fail("SummaryWriter(): max_queue must be at least 1, got " + std::to_string(max_queue));
  if (!(flush_secs >= 0)) fail("SummaryWriter(): flush_secs must be >= 0, got " + number_str(flush_secs));
  auto file = std::make_shared<EventFileObj>();
  file->type_name = "EventFile";
  file->writer =
      named("SummaryWriter", [&] { return std::make_unique<tb::EventFileWriter>(dir, suffix, max_queue, flush_secs); });
  tb::EventFileWriter* w = file->writer.get();
  file->describe = [w] { return "<EventFile " + w->path() + ">"; };
  return Value::object(Tag::Object, file);
}

// runs/<Mon DD_HH-MM-SS>_<host><comment>, PyTorch's default log_dir.
Value default_log_dir_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("default_log_dir", a, {"comment"}, 0);
  std::string comment = b.has(0) ? str_arg(b[0], "SummaryWriter", "comment") : "";
  std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  char stamp[64];
  std::strftime(stamp, sizeof stamp, "%b%d_%H-%M-%S", &local);
  return make_str("runs/" + std::string(stamp) + "_" + tb::host_name() + comment);
}

Value path_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("path", a, {"file"}, 1);
  return make_str(writer_of(b[0], "path").path());
}

Value add_scalar_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("add_scalar", a, {"file", "tag", "scalar_value", "global_step", "walltime"}, 3);
  tb::EventFileWriter& w = writer_of(b[0], "add_scalar");
  const std::string& tag = str_arg(b[1], "add_scalar", "tag");
  double value = number_arg(b[2], "add_scalar", "scalar_value");  // NaN and inf are written as they are
  named("add_scalar", [&] {
    w.add_summary(tb::scalar_summary(tag, value), step_arg(b, 3, "add_scalar"), walltime_arg(b, 4, "add_scalar"));
  });
  return Value();
}

// bins: "tensorflow" (SummaryWriter's default), a number of equal bins, or the edges.
std::vector<double> histogram_edges(const Value& bins, const std::vector<double>& values) {
  if (bins.tag == Tag::Str && bins.as<StrObj>()->s == "tensorflow") return tb::tensorflow_bins();
  if (bins.tag == Tag::Int) {
    // Note [Host memory budget] (tensor/allocator.cpp): the edges and counts are asked
    // for first; bins=2**40 pushed edges until the machine ran out (a hang).
    CpuAllocator::instance().check_host_request(static_cast<size_t>(std::max<int64_t>(bins.i, 0)), 2 * sizeof(double),
                                                "add_histogram(bins=" + std::to_string(bins.i) + ")");
    return named("add_histogram", [&] { return tb::equal_bins(values, bins.i); });
  }
  if (bins.tag == Tag::Tensor || bins.tag == Tag::List || bins.tag == Tag::Tuple)
    return as_numbers(bins, "add_histogram(): bins");
  fail("add_histogram(): bins must be \"tensorflow\", a number of bins or a list of edges, got " + repr(bins));
}

Value add_histogram_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("add_histogram", a, {"file", "tag", "values", "global_step", "bins", "walltime", "max_bins"}, 3);
  tb::EventFileWriter& w = writer_of(b[0], "add_histogram");
  const std::string& tag = str_arg(b[1], "add_histogram", "tag");
  std::vector<double> values = as_numbers(b[2], "add_histogram(): values");
  if (values.empty()) fail("add_histogram(): values is empty: a histogram needs at least one value");
  std::vector<double> edges = b.has(4) ? histogram_edges(b[4], values) : tb::tensorflow_bins();
  std::optional<int64_t> max_bins;
  if (b.has(6)) max_bins = as_int(b[6], "add_histogram(): max_bins");
  auto histogram = named("add_histogram", [&] { return tb::make_histogram(values, edges, max_bins); });
  named("add_histogram", [&] {
    w.add_summary(tb::histogram_summary(tag, histogram), step_arg(b, 3, "add_histogram"),
                  walltime_arg(b, 5, "add_histogram"));
  });
  return Value();
}

Value add_image_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("add_image", a, {"file", "tag", "img_tensor", "global_step", "walltime", "dataformats"}, 3);
  tb::EventFileWriter& w = writer_of(b[0], "add_image");
  const std::string& tag = str_arg(b[1], "add_image", "tag");
  const Tensor& t = as_tensor(b[2], "add_image(): img_tensor");
  std::string dataformats = b.has(5) ? str_arg(b[5], "add_image", "dataformats") : "CHW";
  tb::Image image = named("add_image", [&] {
    return tb::image_from_values(to_double_vector(t), std::vector<int64_t>(t.sizes().begin(), t.sizes().end()),
                                 dataformats, t.dtype() == DType::u8);
  });
  named("add_image", [&] {
    w.add_summary(tb::image_summary(tag, image), step_arg(b, 3, "add_image"), walltime_arg(b, 4, "add_image"));
  });
  return Value();
}

Value add_text_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("add_text", a, {"file", "tag", "text_string", "global_step", "walltime"}, 3);
  tb::EventFileWriter& w = writer_of(b[0], "add_text");
  const std::string& tag = str_arg(b[1], "add_text", "tag");
  const std::string& text = str_arg(b[2], "add_text", "text_string");
  named("add_text", [&] {
    w.add_summary(tb::text_summary(tag, text), step_arg(b, 3, "add_text"), walltime_arg(b, 4, "add_text"));
  });
  return Value();
}

// hparam_dict's entries: str keys; numbers, strs, bools, one-element tensors (none: left out).
std::vector<tb::HParam> hparams_of(const Value& dict) {
  if (dict.tag != Tag::Dict) fail(std::string("add_hparams(): hparam_dict must be a dict, got ") + type_name(dict));
  std::vector<tb::HParam> out;
  for (const auto& [key, v] : dict.as<DictObj>()->entries) {
    if (key.tag != Tag::Str) fail("add_hparams(): hparam_dict's keys must be strs, got " + repr(key));
    const std::string& name = key.as<StrObj>()->s;
    if (v.is_none()) continue;
    if (v.tag == Tag::Bool)
      out.push_back({name, v.b});
    else if (v.tag == Tag::Str)
      out.push_back({name, v.as<StrObj>()->s});
    else if (v.is_num() || (v.tag == Tag::Tensor && v.t.numel() == 1))
      out.push_back({name, number_arg(v, "", "")});
    else
      fail("add_hparams(): hparam_dict['" + name + "'] must be a number, str, bool or one-element tensor, got " +
           std::string(type_name(v)));
  }
  return out;
}

// metric_dict's entries: str keys, numbers or one-element tensors.
std::vector<std::pair<std::string, double>> metrics_of(const Value& dict) {
  if (dict.tag != Tag::Dict) fail(std::string("add_hparams(): metric_dict must be a dict, got ") + type_name(dict));
  std::vector<std::pair<std::string, double>> metrics;
  for (const auto& [key, v] : dict.as<DictObj>()->entries) {
    if (key.tag != Tag::Str) fail("add_hparams(): metric_dict's keys must be strs, got " + repr(key));
    const std::string& tag = key.as<StrObj>()->s;
    metrics.emplace_back(tag, number_arg(v, "add_hparams", ("metric_dict['" + tag + "']").c_str()));
  }
  return metrics;
}

// The run of add_hparams, as PyTorch writes it: a new events file in run_dir with the
// experiment, session_start_info and session_end_info summaries, then each metric as
// a scalar. Every argument is checked before the folder is made.
Value add_hparams_builtin(Evaluator& ev, CallArgs& a) {
  ev.check_sandbox("add_hparams()");
  Bound b = bind("add_hparams", a, {"run_dir", "hparam_dict", "metric_dict", "filename_suffix"}, 3);
  const std::string& run_dir = str_arg(b[0], "add_hparams", "run_dir");
  std::vector<tb::HParam> hparams = hparams_of(b[1]);
  std::vector<std::pair<std::string, double>> metrics = metrics_of(b[2]);
  std::string suffix = b.has(3) ? str_arg(b[3], "add_hparams", "filename_suffix") : "";
  std::vector<std::string> tags;
  for (const auto& metric : metrics) tags.push_back(metric.first);
  tb::HParamsSummaries s = tb::hparams_summaries(hparams, tags);
  named("add_hparams", [&] {
    tb::EventFileWriter w(run_dir, suffix, 10, 120);
    double now = tb::wall_time_now();
    for (const auto* summary : {&s.experiment, &s.session_start_info, &s.session_end_info})
      w.add_summary(*summary, std::nullopt, now);
    for (const auto& [tag, value] : metrics) w.add_summary(tb::scalar_summary(tag, value), std::nullopt, now);
    w.close();
  });
  return Value();
}

Value flush_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("flush", a, {"file"}, 1);
  tb::EventFileWriter& w = writer_of(b[0], "flush");
  named("flush", [&] { w.flush(); });
  return Value();
}

Value close_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("close", a, {"file"}, 1);
  tb::EventFileWriter& w = writer_of(b[0], "close");
  named("close", [&] { w.close(); });
  return Value();
}

const BuiltinEntry kLogFunctions[] = {
    {"open", open_builtin, "open(log_dir, filename_suffix=\"\", max_queue=10, flush_secs=120)",
     "A new TensorBoard events file in log_dir (made when missing), its first record written: an EventFile. "
     "Example: let f = _log.open(\"runs/open_example\")"},
    {"default_log_dir", default_log_dir_builtin, "default_log_dir(comment=\"\")",
     "PyTorch's default log folder: runs/<month day_hour-minute-second>_<host><comment>. "
     "Example: _log.default_log_dir(\"_lr0.1\")"},
    {"path", path_builtin, "path(file)",
     "The path of an EventFile. Example: _log.path(_log.open(\"runs/path_example\"))"},
    {"add_scalar", add_scalar_builtin, "add_scalar(file, tag, scalar_value, global_step=none, walltime=none)",
     "Writes one scalar (as f32) under tag. Example: _log.add_scalar(_log.open(\"runs/s\"), \"loss\", 0.25, 1)"},
    {"add_histogram", add_histogram_builtin,
     "add_histogram(file, tag, values, global_step=none, bins=\"tensorflow\", walltime=none, max_bins=none)",
     "Writes a histogram of values (a tensor or list). "
     "Example: _log.add_histogram(_log.open(\"runs/h\"), \"w\", randn(100), 1)"},
    {"add_image", add_image_builtin,
     "add_image(file, tag, img_tensor, global_step=none, walltime=none, dataformats=\"CHW\")",
     "Writes an image as PNG (floats in [0, 1], u8 in [0, 255]). "
     "Example: _log.add_image(_log.open(\"runs/i\"), \"x\", rand(3, 8, 8), 1)"},
    {"add_text", add_text_builtin, "add_text(file, tag, text_string, global_step=none, walltime=none)",
     "Writes a text summary under tag/text_summary. "
     "Example: _log.add_text(_log.open(\"runs/t\"), \"note\", \"hello\", 1)"},
    {"add_hparams", add_hparams_builtin, "add_hparams(run_dir, hparam_dict, metric_dict, filename_suffix=\"\")",
     "Writes a run in run_dir: the hparams plugin's experiment, session start and end, and each metric. "
     "Example: _log.add_hparams(\"runs/p/run1\", {\"lr\": 0.1}, {\"accuracy\": 0.9})"},
    {"flush", flush_builtin, "flush(file)",
     "Writes the events buffered so far. Example: _log.flush(_log.open(\"runs/f\"))"},
    {"close", close_builtin, "close(file)", "Flushes and closes the file. Example: _log.close(_log.open(\"runs/c\"))"},
};

}  // namespace

const BuiltinLibrary kLogLibrary = {"log", "_log", kLogFunctions, nullptr};

}  // namespace nabla::interp
