// Did-you-mean: the names a mistyped one was most likely meant to be. Every lookup
// that fails by name (an undefined name, an attribute or method, a module, a
// keyword argument) adds the same suggestion to its message through this one helper,
// so all of them rank and phrase candidates alike. Pure text: knows nothing of values.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace nabla::lang {

// Damerau-Levenshtein distance (optimal string alignment): insertions, deletions,
// substitutions and swaps of two neighbouring characters each cost one.
size_t edit_distance(std::string_view a, std::string_view b);

// How far a candidate may be from the name. `usual` follows Python's rule (about one
// edit in three characters); `loose` allows about one edit in two, for small fixed
// sets of short names (the standard modules) where noise cannot creep in.
enum class Closeness { usual, loose };

// Up to three candidates close to `name`, best first: a known synonym (lr for
// learning_rate) or a match that differs only in case, then by edit distance, ties in
// the candidates' order; only the best and those one edit worse (only the best, when
// it is a synonym or a case-only match). A dotted candidate ("nn.Linear") is compared by its last part
// when `name` has no dot. Private names (a leading '_') are offered only for a name
// that starts with '_'.
std::vector<std::string> closest_names(std::string_view name, const std::vector<std::string>& candidates,
                                       Closeness closeness = Closeness::usual);

// "; did you mean 'weight'?", "; did you mean 'nn.Linear' or 'linear'?", or "" when none
// is close: appended to a message that names what was not found.
std::string did_you_mean(std::string_view name, const std::vector<std::string>& candidates,
                         Closeness closeness = Closeness::usual);

// For an unknown keyword argument: the closest valid keywords, then all of them:
// "; did you mean 'keepdim'? (valid keywords: dim, keepdim, dtype)", or
// " (it takes no keyword arguments)".
std::string keyword_suggestion(std::string_view name, const std::vector<std::string>& valid);

}  // namespace nabla::lang
