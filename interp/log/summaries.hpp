// The summaries of torch.utils.tensorboard.summary, built as tensorboard.Summary
// messages from plain C++ values: a scalar, a histogram (np.histogram's bins and
// PyTorch's trimming to the support), a PNG image, the text plugin's tensor and the
// hparams plugin's experiment / session_start_info / session_end_info. Knows nothing
// of the language (builtins_log.cpp converts its values) or of files
// (event_writer.hpp writes the events). Errors are nabla::Error with the message
// alone; the caller's name is prefixed by the caller.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "interp/log/proto/summary.pb.h"

namespace nabla::tensorboard_log {

::tensorboard::Summary scalar_summary(const std::string& tag, double value);

// SummaryWriter's default bins ("tensorflow"): 0, and ±1e-12 * 1.1^k below 1e20.
const std::vector<double>& tensorflow_bins();
// np.histogram(values, bins=n)'s edges: n equal bins from the least value to the
// greatest (±0.5 around a single value); an error when one of them is not finite.
std::vector<double> equal_bins(const std::vector<double>& values, int64_t n);
// PyTorch's make_histogram: counts in [edges[i], edges[i+1]) (the last bin closed),
// values outside the edges (and NaN) counted in num only, at most max_bins buckets
// (neighbours merged), trimmed to the buckets that hold values plus an empty one on
// the left; min, max, num, sum and sum_squares of all the values.
::tensorboard::HistogramProto make_histogram(const std::vector<double>& values, const std::vector<double>& edges,
                                             std::optional<int64_t> max_bins);
::tensorboard::Summary histogram_summary(const std::string& tag, const ::tensorboard::HistogramProto& histogram);

// An 8-bit image, [height, width, channels] row-major; channels 3 (RGB) or 4 (RGBA).
struct Image {
  int64_t height = 0, width = 0;
  int channels = 3;
  std::vector<uint8_t> pixels;
};
::tensorboard::Summary image_summary(const std::string& tag, const Image& image);

// The text plugin's summary, under tag + "/text_summary" as PyTorch names it.
::tensorboard::Summary text_summary(const std::string& tag, const std::string& text);

// One hyperparameter: a number, a str or a bool.
struct HParam {
  std::string name;
  std::variant<double, std::string, bool> value;
};
struct HParamsSummaries {
  ::tensorboard::Summary experiment, session_start_info, session_end_info;
};
// The three summaries torch.utils.tensorboard.summary.hparams makes: the experiment
// (every hparam's name and type, every metric's tag), the session's start (the
// values) and its end (STATUS_SUCCESS).
HParamsSummaries hparams_summaries(const std::vector<HParam>& hparams, const std::vector<std::string>& metric_tags);

}  // namespace nabla::tensorboard_log
