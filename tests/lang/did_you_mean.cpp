// The did-you-mean helper (lang/did_you_mean.hpp): distances, which candidates are
// close enough, their order, and the phrasing every lookup error shares.
#include "lang/did_you_mean.hpp"

#include <doctest/doctest.h>

using namespace nabla::lang;

TEST_CASE("edit distance counts a swap of neighbours as one edit") {
  CHECK(edit_distance("weight", "weight") == 0);
  CHECK(edit_distance("wieght", "weight") == 1);  // swap
  CHECK(edit_distance("smu", "sum") == 1);
  CHECK(edit_distance("keep_dim", "keepdim") == 1);  // deletion
  CHECK(edit_distance("nmm", "nn") == 2);
  CHECK(edit_distance("", "abc") == 3);
  CHECK(edit_distance("abc", "") == 3);
  CHECK(edit_distance("kitten", "sitting") == 3);
}

TEST_CASE("closest names: best first, at most three, none when nothing is near") {
  std::vector<std::string> names = {"bias", "weight", "height", "forward"};
  CHECK(closest_names("wieght", names) == std::vector<std::string>{"weight", "height"});
  CHECK(closest_names("frwd", names).empty());
  CHECK(closest_names("zzzzzz", names).empty());
  // A case-only match comes first, and alone.
  CHECK(closest_names("adam", {"AdamW", "Adam", "SGD"}) == std::vector<std::string>{"Adam"});
  // No more than three.
  CHECK(closest_names("ab", {"ac", "ad", "ae", "af"}).size() == 3);
  // Replacing every letter is no resemblance.
  CHECK(closest_names("c", {"a", "b"}).empty());
  CHECK(closest_names("i", {"i8"}) == std::vector<std::string>{"i8"});
}

TEST_CASE("synonyms from other libraries are suggested only where nabla's name is valid") {
  CHECK(closest_names("learning_rate", {"params", "lr", "momentum"}) == std::vector<std::string>{"lr"});
  CHECK(closest_names("axis", {"input", "dim", "keepdim"}) == std::vector<std::string>{"dim"});
  CHECK(closest_names("learning_rate", {"params", "momentum"}).empty());
}

TEST_CASE("dotted candidates compare by their last part; private names only for private ones") {
  CHECK(closest_names("Lienar", {"nn.Linear", "nn.Conv2d"}) == std::vector<std::string>{"nn.Linear"});
  CHECK(closest_names("_dsit", {"_dist"}) == std::vector<std::string>{"_dist"});
  CHECK(closest_names("dsit", {"_dist"}).empty());
}

TEST_CASE("loose closeness reaches further, for small sets of short names") {
  std::vector<std::string> modules = {"nn", "optim", "data", "time"};
  CHECK(closest_names("nmm", modules).empty());
  CHECK(closest_names("nmm", modules, Closeness::loose) == std::vector<std::string>{"nn"});
  CHECK(closest_names("Optim", modules, Closeness::loose) == std::vector<std::string>{"optim"});
}

TEST_CASE("a name no typo could be is not compared (distances cost length squared)") {
  std::string huge(1 << 20, 'a');
  CHECK(closest_names(huge, {huge.substr(1)}).empty());
}

TEST_CASE("the phrasing of the suggestion and of the keyword list") {
  CHECK(did_you_mean("wieght", {"weight"}) == "; did you mean 'weight'?");
  CHECK(did_you_mean("Lienar", {"nn.Linear", "linear"}) == "; did you mean 'nn.Linear' or 'linear'?");
  CHECK(did_you_mean("ab", {"ac", "ad", "ae"}) == "; did you mean 'ac', 'ad' or 'ae'?");
  CHECK(did_you_mean("zzz", {"weight"}).empty());
  CHECK(keyword_suggestion("keep_dim", {"dim", "keepdim"}) ==
        "; did you mean 'keepdim'? (valid keywords: dim, keepdim)");
  CHECK(keyword_suggestion("colour", {"bias"}) == " (valid keywords: bias)");
  CHECK(keyword_suggestion("x", {}) == " (it takes no keyword arguments)");
}
