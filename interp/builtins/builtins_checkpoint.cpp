// The checkpoint builtins: save(obj, path, metadata=none), load(path, into=none) and
// load_metadata(path),
// over the safetensors files of tensor/safetensors.hpp.
//
// Layout of a file written by save(): every tensor found in obj (a dict, or the
// state_dict() of a value that has that method), at any depth of nested dicts, lists
// and tuples, is a safetensors tensor named by its path joined with "." (a top-level
// "fc.weight" stays "fc.weight"; state["exp_avg"][0] is "state.exp_avg.0"). When obj
// holds anything but str -> tensor entries, __metadata__["nabla.values"] holds the
// whole structure as JSON: null, bool, int, float, str and lists as themselves,
// {"__tensor__": name} for a tensor, {"__tuple__": [...]}, {"__float__": "nan"} for
// non-finite floats, {"__dtype__": "f32"}, and a dict as a JSON object, or as
// {"__dict__": [[key, value], ...]} when a key is not a string or starts with "__".
// load() rebuilds that structure; a file without the key (a plain state dict, or a
// file from another tool) loads as a dict of its tensors in file order.
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "interp/builtins/builtins_internal.hpp"
#include "interp/values/value_walk.hpp"
#include "lang/utf8_text.hpp"
#include "tensor/json_linear.hpp"
#include "tensor/safetensors.hpp"

namespace nabla::interp {

namespace {

using json = nlohmann::ordered_json;
constexpr const char* kValuesKey = "nabla.values";
// Deep enough for any real state; a deeper value stops here instead of overflowing
// the stack (save's encoding and the JSON library recurse), and so does a hostile
// file's nabla.values. A list or dict that holds itself is found before.
constexpr int kMaxNesting = 100;
// The parser's own bound, far past kMaxNesting so that decode() reports the depth.
constexpr int kMaxJsonDepth = 1 << 20;

bool reserved_key(const std::string& k) { return k.rfind("__", 0) == 0; }

// A checkpoint's header is JSON, which holds UTF-8 text only: a str with other bytes
// ("\xff") was written with U+FFFD in their place and loaded back changed, a dict key or
// a tensor's name too. `what` names it: "the str at 'a.b'", "the key 'k'".
std::string escaped(const std::string& s) {  // the bytes that are not UTF-8 as \xHH
  std::string out;
  for (size_t k = 0; k < s.size();) {
    std::string rest = s.substr(k);
    size_t bad = utf8_invalid_at(rest);
    if (bad == std::string::npos) return out + rest;
    char hex[8];
    std::snprintf(hex, sizeof hex, "\\x%02x", static_cast<unsigned char>(rest[bad]));
    out += rest.substr(0, bad) + hex;
    k += bad + 1;
  }
  return out;
}

const std::string& utf8_text(const std::string& s, const std::string& what) {
  size_t bad = utf8_invalid_at(s);
  if (bad == std::string::npos) return s;
  char byte[8];
  std::snprintf(byte, sizeof byte, "0x%02X", static_cast<unsigned char>(s[bad]));
  fail("save(): " + escaped(what) + " is not UTF-8 text (byte " + byte + " at offset " + std::to_string(bad) +
       "), which a checkpoint's JSON header cannot hold; store such bytes as a u8 tensor or a list of ints");
}

// Turns obj into JSON, collecting its tensors under their dotted paths.
json encode(Evaluator& ev, const Value& v, const std::string& path, safetensors::NamedTensors& tensors,
            int depth = 0) {
  auto sub = [&](const std::string& k) { return path.empty() ? k : path + "." + k; };
  // Every container on the way down, to name a cycle as one (Note [Walks over nested values]).
  bool container = v.tag == Tag::List || v.tag == Tag::Tuple || v.tag == Tag::Dict;
  WalkLevel level(container ? &walk_path(Walk::save) : nullptr, container ? v.o.get() : nullptr);
  if (level.cycle()) fail_cycle("save()", v, path);
  if (depth > kMaxNesting)
    fail("save(): the value nests deeper than " + std::to_string(kMaxNesting) + " levels (at '" + path +
         "'), more than a checkpoint holds");
  switch (v.tag) {
    case Tag::None: return nullptr;
    case Tag::Bool: return v.b;
    case Tag::Int: return v.i;
    case Tag::Float:
      if (std::isfinite(v.f)) return v.f;
      return json{{"__float__", std::isnan(v.f) ? "nan" : v.f > 0 ? "inf" : "-inf"}};
    case Tag::Str: return utf8_text(v.as<StrObj>()->s, "the str at '" + path + "'");
    case Tag::DType: return json{{"__dtype__", dtype_name(v.dt)}};
    case Tag::Tensor: {
      if (path.empty()) fail("save(): a tensor needs a name (save a dict of tensors)");
      tensors.emplace_back(path, v.t);
      return json{{"__tensor__", path}};
    }
    case Tag::List:
    case Tag::Tuple: {
      json a = json::array();
      auto& items = v.as<ListObj>()->items;
      for (size_t k = 0; k < items.size(); ++k)
        a.push_back(encode(ev, items[k], sub(std::to_string(k)), tensors, depth + 1));
      if (v.tag == Tag::Tuple) return json{{"__tuple__", std::move(a)}};
      return a;
    }
    case Tag::Dict: {
      auto& entries = v.as<DictObj>()->entries;
      bool plain = true;
      for (auto& [k, x] : entries) plain &= k.tag == Tag::Str && !reserved_key(k.as<StrObj>()->s);
      if (plain) {
        json o = json::object();
        for (auto& [k, x] : entries)  // keys are unique: append (Note [Linear JSON])
          append_member(o, utf8_text(k.as<StrObj>()->s, "the dict key at '" + sub(k.as<StrObj>()->s) + "'"),
                        encode(ev, x, sub(k.as<StrObj>()->s), tensors, depth + 1));
        return o;
      }
      json pairs = json::array();
      for (auto& [k, x] : entries) {
        if (k.tag == Tag::Tensor) fail("save(): a tensor cannot be a dict key in a checkpoint");
        pairs.push_back(
            json::array({encode(ev, k, "", tensors, depth + 1), encode(ev, x, sub(str(k)), tensors, depth + 1)}));
      }
      return json{{"__dict__", std::move(pairs)}};
    }
    default:
      fail(std::string("save(): cannot store a ") + type_name(v) + (path.empty() ? "" : " (at '" + path + "')") +
           " in a checkpoint; it holds tensors, numbers, strings, bools, none, lists, tuples and dicts");
  }
}

Value decode(const json& j, const std::unordered_map<std::string, Tensor>& tensors, const std::string& file,
             int depth = 0) {
  auto bad = [&](const std::string& what) -> Value { fail("load(): " + file + ": " + kValuesKey + ": " + what); };
  if (depth > kMaxNesting) return bad("nests deeper than " + std::to_string(kMaxNesting) + " levels");
  switch (j.type()) {
    case json::value_t::null: return Value();
    case json::value_t::boolean: return Value::boolean(j.get<bool>());
    case json::value_t::number_integer: return Value::integer(j.get<int64_t>());
    case json::value_t::number_unsigned: {
      uint64_t u = j.get<uint64_t>();
      if (u > static_cast<uint64_t>(INT64_MAX)) return bad("integer " + std::to_string(u) + " does not fit in an int");
      return Value::integer(static_cast<int64_t>(u));
    }
    case json::value_t::number_float: return Value::number(j.get<double>());
    case json::value_t::string: return make_str(j.get<std::string>());
    case json::value_t::array: {
      std::vector<Value> items;
      for (auto& x : j) items.push_back(decode(x, tensors, file, depth + 1));
      return make_list(std::move(items));
    }
    case json::value_t::object: {
      if (j.size() == 1) {
        auto it = j.begin();
        const std::string& k = it.key();
        const json& x = it.value();
        if (k == "__tensor__") {
          if (!x.is_string()) return bad("__tensor__ must name a tensor");
          auto t = tensors.find(x.get<std::string>());
          if (t == tensors.end()) return bad("tensor '" + x.get<std::string>() + "' is not in the file");
          return Value::tensor(t->second);
        }
        if (k == "__tuple__") {
          if (!x.is_array()) return bad("__tuple__ must hold a list");
          std::vector<Value> items;
          for (auto& y : x) items.push_back(decode(y, tensors, file, depth + 1));
          return make_tuple(std::move(items));
        }
        if (k == "__float__") {
          std::string s = x.is_string() ? x.get<std::string>() : "";
          if (s == "nan") return Value::number(std::nan(""));
          if (s == "inf") return Value::number(INFINITY);
          if (s == "-inf") return Value::number(-INFINITY);
          return bad("__float__ must be \"nan\", \"inf\" or \"-inf\"");
        }
        if (k == "__dtype__") {
          DType d;
          if (!x.is_string() || !dtype_from_name(x.get<std::string>(), &d)) return bad("unknown __dtype__");
          return Value::dtype(d);
        }
        if (k == "__dict__") {
          if (!x.is_array()) return bad("__dict__ must hold [key, value] pairs");
          auto d = std::make_shared<DictObj>();
          for (auto& p : x) {
            if (!p.is_array() || p.size() != 2) return bad("__dict__ must hold [key, value] pairs");
            d->set(decode(p[0], tensors, file, depth + 1), decode(p[1], tensors, file, depth + 1));
          }
          return Value::object(Tag::Dict, d);
        }
      }
      auto d = std::make_shared<DictObj>();
      for (auto& [k, x] : j.items()) d->set(make_str(k), decode(x, tensors, file, depth + 1));
      return Value::object(Tag::Dict, d);
    }
    default: return bad("unexpected JSON value");
  }
}

// A dict as it is, or the state_dict() of a value that has that method.
Value state_of(Evaluator& ev, const Value& obj, const std::string& fname) {
  if (obj.tag == Tag::Dict) return obj;
  if (obj.tag == Tag::Instance || obj.tag == Tag::Object) {
    auto names = ev.member_names(obj);
    if (std::find(names.begin(), names.end(), "state_dict") != names.end()) {
      CallArgs none;
      Value s = ev.call_method(obj, "state_dict", none);
      if (s.tag != Tag::Dict) fail(fname + "(): state_dict() returned a " + type_name(s) + ", expected a dict");
      return s;
    }
  }
  fail(fname + "(): expected a dict (or a value with a state_dict() method), got " + type_name(obj));
}

Value save_builtin(Evaluator& ev, CallArgs& a) {
  ev.check_sandbox("save()");
  Bound b = bind("save", a, {"obj", "path", "metadata"}, 2);
  Value state = state_of(ev, b[0], "save");
  std::string path = as_path(b[1], "save");
  safetensors::Metadata metadata;
  if (b.has(2)) {
    if (b[2].tag != Tag::Dict) fail(std::string("save(): metadata: expected a dict of str to str, got ") + type_name(b[2]));
    for (auto& [k, v] : b[2].as<DictObj>()->entries) {
      if (k.tag != Tag::Str || v.tag != Tag::Str) fail("save(): metadata: expected a dict of str to str");
      if (k.as<StrObj>()->s == kValuesKey) fail(std::string("save(): metadata: '") + kValuesKey + "' is reserved");
      metadata.emplace_back(utf8_text(k.as<StrObj>()->s, "a metadata key"),
                            utf8_text(v.as<StrObj>()->s, "metadata '" + k.as<StrObj>()->s + "'"));
    }
  }
  safetensors::NamedTensors tensors;
  json structure = encode(ev, state, "", tensors);
  bool flat = true;
  for (auto& [k, v] : state.as<DictObj>()->entries) flat &= k.tag == Tag::Str && v.tag == Tag::Tensor;
  if (!flat)
    metadata.emplace_back(kValuesKey, structure.dump(-1, ' ', false, json::error_handler_t::replace));
  safetensors::save_file(path, tensors, metadata);
  return Value();
}

Value load_builtin(Evaluator& ev, CallArgs& a) {
  ev.check_sandbox("load()");
  Bound b = bind("load", a, {"path", "into"}, 1);
  std::string path = as_path(b[0], "load");
  safetensors::Checkpoint ck = safetensors::load_file(path);
  if (b.has(1)) {
    Value state = state_of(ev, b[1], "load");
    safetensors::NamedTensors targets;
    encode(ev, state, "", targets);  // the same names as save() gives
    safetensors::load_into(ck, targets, path);
    return b[1];
  }
  for (auto& [k, v] : ck.metadata)
    if (k == kValuesKey) {
      json j;  // linear in its size (Note [Linear JSON]); decode() bounds its depth
      std::string why;
      if (!parse_json_linear(v, kMaxJsonDepth, &j, &why)) fail("load(): " + path + ": " + kValuesKey + " " + why);
      std::unordered_map<std::string, Tensor> by_name;
      for (auto& [n, t] : ck.tensors) by_name.emplace(n, t);
      return decode(j, by_name, path);
    }
  auto d = std::make_shared<DictObj>();
  for (auto& [n, t] : ck.tensors) d->set(make_str(n), Value::tensor(t));
  return Value::object(Tag::Dict, d);
}

// The file's own __metadata__ entries (those given to save(metadata=...), or another
// tool's), without nabla's "nabla.values".
Value load_metadata_builtin(Evaluator& ev, CallArgs& a) {
  ev.check_sandbox("load_metadata()");
  Bound b = bind("load_metadata", a, {"path"}, 1);
  safetensors::Checkpoint ck = safetensors::load_file(as_path(b[0], "load_metadata"));
  auto d = std::make_shared<DictObj>();
  for (auto& [k, v] : ck.metadata)
    if (k != kValuesKey) d->set(make_str(k), make_str(v));
  return Value::object(Tag::Dict, d);
}

const BuiltinEntry kCheckpointBuiltins[] = {
    {"save", save_builtin, "save(obj, path, metadata=none)",
     "Writes a dict of tensors (or a model's state_dict()) to a safetensors file; other values go in its header. "
     "Example: save(nn.Linear(4, 2), \"model.safetensors\")"},
    {"load", load_builtin, "load(path, into=none)",
     "The values save() wrote; with into, copies the tensors into that dict or model in place and returns it. "
     "Example: load(\"model.safetensors\", into=nn.Linear(4, 2))"},
    {"load_metadata", load_metadata_builtin, "load_metadata(path)",
     "The str to str metadata of a safetensors file (save(metadata=...) or another tool's). "
     "Example: load_metadata(\"model.safetensors\")"},
};

}  // namespace

const BuiltinLibrary kCheckpointLibrary = {"checkpoint", nullptr, kCheckpointBuiltins, nullptr};

}  // namespace nabla::interp
