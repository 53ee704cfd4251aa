// See Note [Linear JSON] in json_linear.hpp.
#include "tensor/json_linear.hpp"

#include <memory>
#include <unordered_set>
#include <vector>

namespace nabla {

namespace {

// Builds the document from nlohmann's SAX events: one vector append per value.
class LinearBuilder : public nlohmann::json_sax<ordered_json> {
 public:
  LinearBuilder(ordered_json& root, int max_depth) : root_(root), max_depth_(max_depth) {}

  std::string error;

  bool null() override { return add(nullptr); }
  bool boolean(bool v) override { return add(v); }
  bool number_integer(number_integer_t v) override { return add(v); }
  bool number_unsigned(number_unsigned_t v) override { return add(v); }
  bool number_float(number_float_t v, const string_t&) override { return add(v); }
  bool string(string_t& v) override { return add(std::move(v)); }
  bool binary(binary_t& v) override { return add(ordered_json::binary(std::move(v))); }

  bool start_object(std::size_t) override { return open(ordered_json::object()); }
  bool start_array(std::size_t) override { return open(ordered_json::array()); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }

  bool key(string_t& k) override {
    if (seen_before(k)) return stop("gives the key '" + k + "' twice in one object");
    key_ = std::move(k);
    return true;
  }

  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    if (error.empty()) error = "is not valid JSON";
    return false;
  }

 private:
  bool stop(std::string why) {
    error = std::move(why);
    return false;
  }

  // Places v in the open container (or as the root); returns where it now lives.
  ordered_json* place(ordered_json v) {
    if (open_.empty()) {
      root_ = std::move(v);
      return &root_;
    }
    ordered_json& top = *open_.back();
    if (top.is_array()) {
      top.get_ref<ordered_json::array_t&>().push_back(std::move(v));
      return &top.back();
    }
    append_member(top, std::move(key_), std::move(v));
    return &top.get_ref<ordered_json::object_t&>().back().second;
  }

  bool add(ordered_json v) {
    place(std::move(v));
    return true;
  }

  bool open(ordered_json container) {
    if (static_cast<int>(open_.size()) >= max_depth_)
      return stop("nests deeper than " + std::to_string(max_depth_) + " levels");
    open_.push_back(place(std::move(container)));
    keys_.emplace_back();
    return true;
  }

  bool close() {
    open_.pop_back();
    keys_.pop_back();
    return true;
  }

  // Whether the open object has key k already: a walk of its few keys, or, past
  // kSmallObject of them, a hash set of them all (Note [Linear JSON]).
  bool seen_before(const std::string& k) {
    const auto& members = open_.back()->get_ref<const ordered_json::object_t&>();
    std::unique_ptr<std::unordered_set<std::string>>& set = keys_.back();
    if (!set && members.size() < kSmallObject) {
      for (const auto& m : members)
        if (m.first == k) return true;
      return false;
    }
    if (!set) {
      set = std::make_unique<std::unordered_set<std::string>>();
      for (const auto& m : members) set->insert(m.first);
    }
    return !set->insert(k).second;
  }

  static constexpr size_t kSmallObject = 16;

  ordered_json& root_;
  int max_depth_;
  std::vector<ordered_json*> open_;  // the containers being filled, outermost first
  // Per open container: the keys of a large object, once it has kSmallObject.
  std::vector<std::unique_ptr<std::unordered_set<std::string>>> keys_;
  std::string key_;                                    // the key of the next object member
};

}  // namespace

bool parse_json_linear(const std::string& text, int max_depth, ordered_json* out, std::string* error) {
  *out = nullptr;
  LinearBuilder builder(*out, max_depth);
  bool ok = ordered_json::sax_parse(text, &builder, nlohmann::detail::input_format_t::json, /*strict=*/true);
  if (ok) return true;
  *error = builder.error.empty() ? std::string("is not valid JSON") : builder.error;
  *out = nullptr;
  return false;
}

void append_member(ordered_json& obj, std::string key, ordered_json value) {
  if (obj.is_null()) obj = ordered_json::object();
  auto& members = static_cast<ordered_json::object_t::Container&>(obj.get_ref<ordered_json::object_t&>());
  members.emplace_back(std::move(key), std::move(value));
}

const ordered_json* find_member(const ordered_json& obj, const std::string& key) {
  if (!obj.is_object()) return nullptr;
  for (const auto& [k, v] : obj.items())
    if (k == key) return &v;
  return nullptr;
}

}  // namespace nabla
