// JSON in time linear in its size, for the checkpoint headers (safetensors.cpp) and
// their "nabla.values" (interp/builtins/builtins_checkpoint.cpp).
//
// Note [Linear JSON]
// nlohmann::ordered_json keeps an object's keys in a vector, in order, and finds a key
// by walking it: its parser, which looks each new key up before inserting it, and
// `obj[key] = v` take time quadratic in the number of keys. A checkpoint header is one
// object with a key per tensor: 200k tensors took 45 s to parse. Here the parser
// (nlohmann's SAX interface) appends each key, and a hash set per large open object
// finds a key given twice; append_member appends where the caller knows the key is new.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

namespace nabla {

using ordered_json = nlohmann::ordered_json;

// Parses `text`; false with *error set when it cannot, phrased to follow "the header ":
// "is not valid JSON", "nests deeper than 8 levels", "gives the key 'w' twice in
// one object". Objects keep their keys in text order.
bool parse_json_linear(const std::string& text, int max_depth, ordered_json* out, std::string* error);

// obj (an object, or null, which becomes one) gets key: value at its end, without a
// search for key: the caller knows that obj does not have it.
void append_member(ordered_json& obj, std::string key, ordered_json value);

// The member `key` of object obj, or nullptr: a walk of its keys (cheap for the small
// objects of a tensor's entry; a large object is put in a hash map by its reader).
const ordered_json* find_member(const ordered_json& obj, const std::string& key);

}  // namespace nabla
