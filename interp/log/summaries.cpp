// The summaries of torch.utils.tensorboard.summary (summaries.hpp).
#include "interp/log/summaries.hpp"

#include <algorithm>
#include <cmath>

#include "interp/builtins/png.hpp"
#include "interp/log/proto/plugin_hparams.pb.h"
#include "interp/log/proto/plugin_text.pb.h"
#include "tensor/error.hpp"

namespace nabla::tensorboard_log {

namespace {

// The hparams plugin's names (tensorboard.plugins.hparams.metadata).
constexpr const char* kHParamsPlugin = "hparams";
constexpr const char* kExperimentTag = "_hparams_/experiment";
constexpr const char* kSessionStartInfoTag = "_hparams_/session_start_info";
constexpr const char* kSessionEndInfoTag = "_hparams_/session_end_info";

// The bucket of v among edges (the last bucket holds its right edge), or -1 outside.
int64_t bucket_of(const std::vector<double>& edges, double v) {
  if (!(v >= edges.front() && v <= edges.back())) return -1;  // NaN too, as np.histogram
  auto above = std::upper_bound(edges.begin(), edges.end(), v);
  return std::min<int64_t>(above - edges.begin() - 1, static_cast<int64_t>(edges.size()) - 2);
}

// Neighbouring buckets merged, `group` at a time (the last group padded with zeros).
void merge_buckets(std::vector<double>& counts, std::vector<double>& edges, int64_t group) {
  std::vector<double> merged_counts, merged_edges;
  for (size_t i = 0; i < counts.size(); i += static_cast<size_t>(group)) {
    double c = 0;
    for (size_t j = i; j < std::min(counts.size(), i + static_cast<size_t>(group)); ++j) c += counts[j];
    merged_counts.push_back(c);
    merged_edges.push_back(edges[i]);
  }
  merged_edges.push_back(edges.back());
  counts = std::move(merged_counts);
  edges = std::move(merged_edges);
}

// PyTorch's trimming: the buckets from the first that holds values to the last, and
// the empty one left of them (TensorBoard reads right edges only).
void trim_to_support(std::vector<double>& counts, std::vector<double>& edges) {
  auto holds = [](double c) { return c > 0; };
  auto first = std::find_if(counts.begin(), counts.end(), holds);
  if (first == counts.end()) throw Error("no value falls in the bins (all are outside them, or NaN)");
  size_t start = static_cast<size_t>(first - counts.begin());
  size_t end = static_cast<size_t>(std::find_if(counts.rbegin(), counts.rend(), holds).base() - counts.begin());
  std::vector<double> kept_counts;
  if (start == 0) kept_counts.push_back(0);
  kept_counts.insert(kept_counts.end(), counts.begin() + static_cast<ptrdiff_t>(start == 0 ? 0 : start - 1),
                     counts.begin() + static_cast<ptrdiff_t>(end));
  counts = std::move(kept_counts);
  edges = std::vector<double>(edges.begin() + static_cast<ptrdiff_t>(start),
                              edges.begin() + static_cast<ptrdiff_t>(end + 1));
}

::tensorboard::SummaryMetadata plugin_metadata(const std::string& plugin, const std::string& content) {
  ::tensorboard::SummaryMetadata metadata;
  metadata.mutable_plugin_data()->set_plugin_name(plugin);
  metadata.mutable_plugin_data()->set_content(content);
  return metadata;
}

// A summary of one value holding only the hparams plugin's data.
::tensorboard::Summary hparams_summary(const char* tag, const ::tensorboard::hparams::HParamsPluginData& data) {
  ::tensorboard::Summary summary;
  auto* value = summary.add_value();
  value->set_tag(tag);
  *value->mutable_metadata() = plugin_metadata(kHParamsPlugin, data.SerializeAsString());
  return summary;
}

}  // namespace

::tensorboard::Summary scalar_summary(const std::string& tag, double value) {
  ::tensorboard::Summary summary;
  auto* v = summary.add_value();
  v->set_tag(tag);
  v->set_simple_value(static_cast<float>(value));  // a float field: TensorBoard's scalars are f32
  return summary;
}

const std::vector<double>& tensorflow_bins() {
  static const std::vector<double> bins = [] {
    std::vector<double> positive;
    for (double v = 1e-12; v < 1e20; v *= 1.1) positive.push_back(v);
    std::vector<double> all;
    for (auto it = positive.rbegin(); it != positive.rend(); ++it) all.push_back(-*it);
    all.push_back(0);
    all.insert(all.end(), positive.begin(), positive.end());
    return all;
  }();
  return bins;
}

std::vector<double> equal_bins(const std::vector<double>& values, int64_t n) {
  if (n < 1) throw Error("bins must be at least 1, got " + std::to_string(n));
  double first = *std::min_element(values.begin(), values.end());
  double last = *std::max_element(values.begin(), values.end());
  for (double v : values)
    if (!std::isfinite(v))
      throw Error("the values' range is not finite (it holds " + number_str(v) + "); give the bins' edges instead");
  if (first == last) first -= 0.5, last += 0.5;
  // np.linspace(first, last, n + 1): i * step + first, the last edge exactly `last`.
  double step = (last - first) / static_cast<double>(n);
  std::vector<double> edges;
  for (int64_t i = 0; i <= n; ++i) edges.push_back(static_cast<double>(i) * step + first);
  edges.back() = last;
  return edges;
}

::tensorboard::HistogramProto make_histogram(const std::vector<double>& values, const std::vector<double>& edges,
                                             std::optional<int64_t> max_bins) {
  if (values.empty()) throw Error("the values are empty: a histogram needs at least one");
  if (edges.size() < 2) throw Error("the bins need at least 2 edges, got " + std::to_string(edges.size()));
  if (!std::is_sorted(edges.begin(), edges.end())) throw Error("the bins' edges must increase monotonically");
  if (max_bins && *max_bins < 1) throw Error("max_bins must be at least 1, got " + std::to_string(*max_bins));
  std::vector<double> counts(edges.size() - 1, 0.0), limits = edges;
  for (double v : values)
    if (int64_t b = bucket_of(edges, v); b >= 0) counts[static_cast<size_t>(b)] += 1;
  if (max_bins && static_cast<int64_t>(counts.size()) > *max_bins)
    merge_buckets(counts, limits, static_cast<int64_t>(counts.size()) / *max_bins);
  trim_to_support(counts, limits);
  ::tensorboard::HistogramProto h;
  double least = values[0], greatest = values[0], sum = 0, sum_squares = 0;
  bool has_nan = false;
  for (double v : values) {
    has_nan = has_nan || std::isnan(v);
    least = std::min(least, v);
    greatest = std::max(greatest, v);
    sum += v;
    sum_squares += v * v;
  }
  h.set_min(has_nan ? std::nan("") : least);  // NaN wins, as numpy's min and max
  h.set_max(has_nan ? std::nan("") : greatest);
  h.set_num(static_cast<double>(values.size()));
  h.set_sum(sum);
  h.set_sum_squares(sum_squares);
  for (double l : limits) h.add_bucket_limit(l);
  for (double c : counts) h.add_bucket(c);
  return h;
}

::tensorboard::Summary histogram_summary(const std::string& tag, const ::tensorboard::HistogramProto& histogram) {
  ::tensorboard::Summary summary;
  auto* v = summary.add_value();
  v->set_tag(tag);
  *v->mutable_histo() = histogram;
  return summary;
}

::tensorboard::Summary image_summary(const std::string& tag, const Image& image) {
  ::tensorboard::Summary summary;
  auto* v = summary.add_value();
  v->set_tag(tag);
  auto* img = v->mutable_image();
  img->set_height(static_cast<int32_t>(image.height));
  img->set_width(static_cast<int32_t>(image.width));
  img->set_colorspace(image.channels);
  img->set_encoded_image_string(interp::encode_png(image.pixels, image.width, image.height, image.channels));
  return summary;
}

::tensorboard::Summary text_summary(const std::string& tag, const std::string& text) {
  ::tensorboard::Summary summary;
  auto* v = summary.add_value();
  v->set_tag(tag + "/text_summary");
  ::tensorboard::TextPluginData plugin_data;
  plugin_data.set_version(0);
  *v->mutable_metadata() = plugin_metadata("text", plugin_data.SerializeAsString());
  auto* tensor = v->mutable_tensor();
  tensor->set_dtype(::tensorboard::DT_STRING);
  tensor->add_string_val(text);
  tensor->mutable_tensor_shape()->add_dim()->set_size(1);
  return summary;
}

HParamsSummaries hparams_summaries(const std::vector<HParam>& hparams, const std::vector<std::string>& metric_tags) {
  namespace hp = ::tensorboard::hparams;
  hp::HParamsPluginData start, experiment, end;  // version 0, PyTorch's PLUGIN_DATA_VERSION
  auto* values = start.mutable_session_start_info()->mutable_hparams();
  auto* infos = experiment.mutable_experiment();
  for (const HParam& p : hparams) {
    hp::HParamInfo* info = infos->add_hparam_infos();
    info->set_name(p.name);
    google::protobuf::Value& value = (*values)[p.name];
    if (const double* number = std::get_if<double>(&p.value)) {
      value.set_number_value(*number);
      info->set_type(hp::DATA_TYPE_FLOAT64);
    } else if (const std::string* text = std::get_if<std::string>(&p.value)) {
      value.set_string_value(*text);
      info->set_type(hp::DATA_TYPE_STRING);
    } else {
      value.set_bool_value(std::get<bool>(p.value));
      info->set_type(hp::DATA_TYPE_BOOL);
    }
  }
  for (const std::string& tag : metric_tags) infos->add_metric_infos()->mutable_name()->set_tag(tag);
  end.mutable_session_end_info()->set_status(hp::STATUS_SUCCESS);
  return {hparams_summary(kExperimentTag, experiment), hparams_summary(kSessionStartInfoTag, start),
          hparams_summary(kSessionEndInfoTag, end)};
}

}  // namespace nabla::tensorboard_log
