// Did-you-mean suggestions (see did_you_mean.hpp): one ranking, one phrasing.
#include "lang/did_you_mean.hpp"

#include <algorithm>
#include <cctype>

namespace nabla::lang {

namespace {

// Names that PyTorch, NumPy and Keras habits reach for, and the name nabla uses.
// Suggestions only: a synonym is offered when its nabla name is a valid candidate.
struct Synonym {
  const char* habit;
  const char* name;
};
constexpr Synonym kSynonyms[] = {
    {"learning_rate", "lr"},
    {"keepdims", "keepdim"},
    {"keep_dims", "keepdim"},
    {"axis", "dim"},
    {"axes", "dims"},
    {"axes", "dim"},
    {"epsilon", "eps"},
    {"rate", "p"},
    {"units", "out_features"},
    {"input_dim", "in_features"},
    {"output_dim", "out_features"},
    {"filters", "out_channels"},
    {"kernel", "kernel_size"},
    {"strides", "stride"},
    {"use_bias", "bias"},
    {"beta_1", "betas"},
    {"beta_2", "betas"},
    {"beta1", "betas"},
    {"beta2", "betas"},
    {"decay", "weight_decay"},
    {"astype", "to"},
    {"numpy", "tolist"},
    {"Dense", "Linear"},
};

bool is_synonym(std::string_view habit, std::string_view name) {
  for (const Synonym& s : kSynonyms)
    if (habit == s.habit && name == s.name) return true;
  return false;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// The part of a candidate compared with the name: "Linear" of "nn.Linear" when the
// name itself has no dot.
std::string_view compared_part(std::string_view candidate, std::string_view name) {
  if (name.find('.') != std::string_view::npos) return candidate;
  size_t dot = candidate.rfind('.');
  return dot == std::string_view::npos ? candidate : candidate.substr(dot + 1);
}

size_t max_distance(std::string_view name, std::string_view candidate, Closeness closeness) {
  size_t longer = std::max(name.size(), candidate.size());
  if (closeness == Closeness::loose) return std::max<size_t>(1, (longer + 1) / 2);
  return std::max<size_t>(1, (name.size() + candidate.size() + 3) / 6);  // Python's rule
}

constexpr size_t kLongestName = 100;

struct Ranked {
  size_t rank;  // 0: a synonym; then 1 + twice the case-blind distance, +1 where case differs
  size_t order;
  std::string name;
  size_t distance() const { return rank == 0 ? 0 : (rank - 1) / 2; }
};

// The rank of `candidate` for `name`, or npos when it is not close.
size_t rank_of(std::string_view name, std::string_view candidate, Closeness closeness) {
  std::string_view part = compared_part(candidate, name);
  if (is_synonym(name, part)) return 0;
  if (part == name) return std::string_view::npos;  // the name itself was not found here
  size_t limit = max_distance(name, part, closeness);
  size_t length_gap = name.size() > part.size() ? name.size() - part.size() : part.size() - name.size();
  if (length_gap > limit) return std::string_view::npos;  // cheap: the distance is at least the gap
  size_t blind = edit_distance(lower(name), lower(part));
  // Replacing every letter is no resemblance: `c` does not suggest `a`.
  if (blind > limit || blind >= std::max(name.size(), part.size())) return std::string_view::npos;
  bool case_differs = edit_distance(name, part) > blind;
  return 1 + 2 * blind + (case_differs ? 1 : 0);
}

std::string quoted_list(const std::vector<std::string>& names, const char* last_joint) {
  std::string out;
  for (size_t k = 0; k < names.size(); ++k) {
    if (k) out += k + 1 == names.size() ? last_joint : ", ";
    out += "'" + names[k] + "'";
  }
  return out;
}

}  // namespace

size_t edit_distance(std::string_view a, std::string_view b) {
  // Three rows of the table: the one before last is needed for swaps.
  std::vector<size_t> before(b.size() + 1), last(b.size() + 1), row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) last[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      row[j] = std::min({last[j] + 1, row[j - 1] + 1, last[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) row[j] = std::min(row[j], before[j - 2] + 1);
    }
    std::swap(before, last);
    std::swap(last, row);
  }
  return last[b.size()];
}

std::vector<std::string> closest_names(std::string_view name, const std::vector<std::string>& candidates,
                                       Closeness closeness) {
  std::vector<Ranked> near;
  if (name.size() > kLongestName) return {};  // no typo is that long, and distances cost len^2
  bool private_ok = !name.empty() && name[0] == '_';
  for (size_t k = 0; k < candidates.size(); ++k) {
    const std::string& c = candidates[k];
    if (!private_ok && compared_part(c, name).starts_with('_')) continue;
    size_t rank = rank_of(name, c, closeness);
    if (rank == std::string_view::npos) continue;
    bool seen = std::any_of(near.begin(), near.end(), [&](const Ranked& r) { return r.name == c; });
    if (!seen) near.push_back({rank, k, c});
  }
  std::sort(near.begin(), near.end(),
            [](const Ranked& a, const Ranked& b) { return a.rank != b.rank ? a.rank < b.rank : a.order < b.order; });
  // The best and those at most one edit worse; after a match that differs only in
  // case (or a synonym), only its equals: `optim.adam` suggests `Adam`, not `AdamW`.
  size_t worst = near.empty() || near[0].distance() == 0 ? 0 : near[0].distance() + 1;
  std::vector<std::string> out;
  for (size_t k = 0; k < near.size() && out.size() < 3; ++k)
    if (near[k].distance() <= worst) out.push_back(near[k].name);
  return out;
}

std::string did_you_mean(std::string_view name, const std::vector<std::string>& candidates, Closeness closeness) {
  std::vector<std::string> close = closest_names(name, candidates, closeness);
  if (close.empty()) return "";
  return "; did you mean " + quoted_list(close, " or ") + "?";
}

std::string keyword_suggestion(std::string_view name, const std::vector<std::string>& valid) {
  if (valid.empty()) return " (it takes no keyword arguments)";
  std::string listed;
  for (size_t k = 0; k < valid.size(); ++k) listed += (k ? ", " : "") + valid[k];
  return did_you_mean(name, valid) + " (valid keywords: " + listed + ")";
}

}  // namespace nabla::lang
