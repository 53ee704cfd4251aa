// vmap as functorch's: in_dims and out_dims are pytree prefixes of the arguments and
// outputs. The machinery it shares with the other transforms is builtins_func.cpp's
// (func_transforms.hpp); the batching itself is autograd/transforms/vmap.cpp's.
//
// Note [vmap dims as prefixes]
// functorch reads in_dims as a prefix of the arguments' structure: an int or none
// stands for every leaf below it, and a tuple, list or dict matches a container of the
// same kind and length (keys) and goes on into it, so `in_dims=((0, (none, 1)),)` maps
// over the first tensor of the tuple argument and the second dim of the last. out_dims
// reads the outputs alike. A leaf that is not a tensor takes none (none itself, and a
// number given a dim, is an error, as in functorch), and an output whose dim is none
// must not depend on the batch (functorch: "can not return a BatchedTensor when
// out_dim is None"); before, such an output came back batched at dim 0.
#include <optional>

#include "autograd/ops.hpp"
#include "autograd/transforms/vmap.hpp"
#include "interp/builtins/func_transforms.hpp"
#include "interp/values/pytree.hpp"

namespace nabla::interp::func {

namespace {

// The dim of each argument (in_dims) or output (out_dims): an int or none for all, or
// a tuple with one per argument or output.
std::vector<Value> per_entry_dims(const Value& dims, size_t n, const std::string& what) {
  if (dims.tag != Tag::Tuple && dims.tag != Tag::List) return std::vector<Value>(n, dims);
  const auto& items = dims.as<ListObj>()->items;
  std::string count = std::to_string(n) + (what == "in_dims" ? " argument" : " output") + (n == 1 ? "" : "s");
  if (items.size() != n)
    fail("vmap: " + what + " has " + std::to_string(items.size()) + " entries but the function " +
         (what == "in_dims" ? "was called with " : "returned ") + count);
  return items;
}

// One tensor leaf of an argument or output with its dim (none: not batched), and
// names for messages: the dim's place in in_dims, and the leaf's in the arguments.
struct LeafDim {
  Tensor t;
  Value dim;
  std::string spec, place;
};

std::string kind_of(const Value& v) {
  if (v.tag == Tag::Tuple || v.tag == Tag::List)
    return std::string(type_name(v)) + " of " + std::to_string(v.as<ListObj>()->items.size());
  return type_name(v);
}

// A place in a nested value as messages name it ("argument 0[1]['w']"), kept as its
// parts and joined only where a message or a leaf needs the text: joined at every
// level, a list nested 10^6 deep built 10^6 ever longer strings (vmap ran for hours).
struct Place {
  std::vector<std::string> parts;
  std::string str() const {
    std::string s;
    for (const std::string& p : parts) s += p;
    return s;
  }
};

// One more part of a place while a level of the walk is open.
class PlacePart {
 public:
  PlacePart(Place& place, std::string part) : place_(place) { place_.parts.push_back(std::move(part)); }
  ~PlacePart() { place_.parts.pop_back(); }
  PlacePart(const PlacePart&) = delete;
  PlacePart& operator=(const PlacePart&) = delete;

 private:
  Place& place_;
};

std::string index_part(const std::string& k) { return std::string("[").append(k).append("]"); }  // GCC 12's false -Wrestrict

// The leaves of `v` with their dims, `dims` being a prefix of v's structure (Note
// [vmap dims as prefixes]), in tree_leaves' order.
void leaf_dims(const Value& v, const Value& dims, Place& spec, Place& place, const std::string& what,
               std::vector<LeafDim>& out) {
  std::optional<TreeLevel> level;
  if (v.tag == Tag::List || v.tag == Tag::Tuple || v.tag == Tag::Dict) level.emplace(v);
  if (dims.is_none() || dims.tag == Tag::Int || dims.tag == Tag::Bool) {
    if (dims.tag == Tag::Bool) fail("vmap: " + spec.str() + ": expected an int or none, got bool");
    switch (v.tag) {
      case Tag::Tensor: out.push_back({v.t, dims, spec.str(), place.str()}); return;
      case Tag::List:
      case Tag::Tuple: {
        const auto& items = v.as<ListObj>()->items;
        for (size_t k = 0; k < items.size(); ++k) {
          PlacePart at(place, index_part(std::to_string(k)));
          leaf_dims(items[k], dims, spec, place, what, out);
        }
        return;
      }
      case Tag::Dict:
        for (const auto& [key, item] : v.as<DictObj>()->entries) {
          PlacePart at(place, index_part(repr(key)));
          leaf_dims(item, dims, spec, place, what, out);
        }
        return;
      case Tag::None: return;
      default:
        if (!dims.is_none() && what == "in_dims")
          fail("vmap: " + spec.str() + " is " + std::to_string(dims.i) + " but " + place.str() + " is " + type_name(v) +
               ", not a tensor (give none for it)");
        return;
    }
  }
  if (dims.tag == Tag::Tuple || dims.tag == Tag::List) {
    const auto& want = dims.as<ListObj>()->items;
    if (v.tag != dims.tag || v.as<ListObj>()->items.size() != want.size())
      fail("vmap: " + spec.str() + " is a " + kind_of(dims) + " but " + place.str() + " is a " + kind_of(v) + " (" +
           what + " must match the structure it maps, or be an int or none for all of it)");
    const auto& items = v.as<ListObj>()->items;
    for (size_t k = 0; k < items.size(); ++k) {
      PlacePart in_spec(spec, index_part(std::to_string(k))), in_place(place, index_part(std::to_string(k)));
      leaf_dims(items[k], want[k], spec, place, what, out);
    }
    return;
  }
  if (dims.tag == Tag::Dict) {
    auto* want = dims.as<DictObj>();
    if (v.tag != Tag::Dict)
      fail("vmap: " + spec.str() + " is a dict but " + place.str() + " is a " + kind_of(v) + " (" + what +
           " must match the structure it maps, or be an int or none for all of it)");
    auto* have = v.as<DictObj>();
    for (const auto& [key, d] : want->entries)
      if (!have->find(key))
        fail("vmap: " + spec.str() + " has the key " + repr(key) + " but " + place.str() + " does not");
    for (const auto& [key, item] : have->entries) {
      Value* d = want->find(key);
      if (!d) fail("vmap: " + place.str() + " has the key " + repr(key) + " but " + spec.str() + " does not");
      PlacePart in_spec(spec, index_part(repr(key))), in_place(place, index_part(repr(key)));
      leaf_dims(item, *d, spec, place, what, out);
    }
    return;
  }
  fail("vmap: " + spec.str() + ": expected an int, none, or a tuple, list or dict matching the structure it maps, got " +
       type_name(dims));
}

// The batch size the leaves' in_dims give, checking each.
int64_t batch_size_of(const std::vector<LeafDim>& leaves) {
  int64_t size = -1;
  std::string first;
  for (const LeafDim& l : leaves) {
    if (l.dim.is_none()) continue;
    int64_t d = l.dim.i;
    const Tensor& t = l.t;
    if (d < -t.dim() || d >= t.dim())
      fail("vmap: " + l.spec + " is " + std::to_string(d) + " but " + l.place + " has " + std::to_string(t.dim()) +
           " dims (shape " + t.shape_str() + ")");
    int64_t n = t.size(d);
    std::string here = l.place + " (shape " + t.shape_str() + ", in_dim " + std::to_string(d) + ")";
    if (size >= 0 && n != size)
      fail("vmap: the batch sizes differ: " + std::to_string(size) + " for " + first + " but " + std::to_string(n) +
           " for " + here);
    if (size < 0) {
      size = n;
      first = here;
    }
  }
  if (size < 0) fail("vmap: no argument is batched (every in_dim is none)");

  return size;
}

struct VmapSpec {
  Value f, in_dims, out_dims;
  transforms::Randomness randomness;
};

Value run_vmap(Evaluator& ev, const VmapSpec& s, CallArgs& a) {
  std::vector<Value> dims = per_entry_dims(s.in_dims, a.pos.size(), "in_dims");
  std::vector<std::vector<LeafDim>> per_arg(a.pos.size());
  std::vector<LeafDim> all;
  for (size_t k = 0; k < a.pos.size(); ++k) {
    std::string at = std::string("[").append(std::to_string(k)).append("]");  // not "[" + s: GCC 12's false -Wrestrict
    if (dims[k].tag == Tag::Int && !a.pos[k].is_none() && tree_leaves(a.pos[k]).empty())
      fail("vmap: in_dims" + at + " is " + std::to_string(dims[k].i) + " but argument " + std::to_string(k) + " is " +
           type_name(a.pos[k]) + ", not a tensor (give none for it)");
    Place spec{{"in_dims" + at}}, place{{"argument " + std::to_string(k)}};
    leaf_dims(a.pos[k], dims[k], spec, place, "in_dims", per_arg[k]);
    all.insert(all.end(), per_arg[k].begin(), per_arg[k].end());
  }
  int64_t size = batch_size_of(all);
  LevelScope scope(LevelKind::batch, size, s.randomness);
  std::vector<Value> args = a.pos;
  for (size_t k = 0; k < args.size(); ++k) {
    std::vector<Tensor> wrapped;
    for (const LeafDim& l : per_arg[k])
      wrapped.push_back(l.dim.is_none()
                            ? l.t
                            : transforms::make_batched(l.t, scope.id(), wrap_dim(l.dim.i, l.t.dim(), "vmap")));
    if (!wrapped.empty()) args[k] = tree_rebuild(args[k], wrapped);
  }
  Value out = call_function(ev, s.f, args, a.kw, Mode::forward);
  std::vector<Value> outs = out.tag == Tag::Tuple ? out.as<ListObj>()->items : std::vector<Value>{out};
  std::vector<Value> out_dims = per_entry_dims(s.out_dims, outs.size(), "out_dims");
  for (size_t k = 0; k < outs.size(); ++k) {
    checked_outputs(outs[k], "vmap");
    std::vector<LeafDim> leaves;
    std::string at = std::string("[").append(std::to_string(k)).append("]");  // not "[" + s: GCC 12's false -Wrestrict
    Place spec{{"out_dims" + at}}, place{{"output " + std::to_string(k)}};
    leaf_dims(outs[k], out_dims[k], spec, place, "out_dims", leaves);
    std::vector<Tensor> physical;
    for (const LeafDim& l : leaves) {
      if (l.dim.is_none()) {
        if (transforms::batched_at(l.t, scope.id()))
          fail("vmap: " + l.spec + " is none but " + l.place +
               " depends on the batch (none is for an output that is the same for every example)");
        physical.push_back(l.t);
        continue;
      }
      physical.push_back(
          transforms::unbatch(l.t, scope.id(), size, wrap_dim(l.dim.i, l.t.dim() + 1, "vmap: out_dims")));
    }
    outs[k] = tree_rebuild(outs[k], physical);
  }
  return out.tag == Tag::Tuple ? make_tuple(std::move(outs)) : outs[0];
}

}  // namespace

transforms::Randomness parse_randomness(const Value& v, const std::string& fname) {
  std::string s = v.is_none() ? "error" : v.tag == Tag::Str ? v.as<StrObj>()->s : "";
  if (s == "error") return transforms::Randomness::error;
  if (s == "different") return transforms::Randomness::different;
  if (s == "same") return transforms::Randomness::same;
  fail(fname + "(): randomness must be \"error\", \"different\" or \"same\", got " + repr(v));
}

Value vmap_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("vmap", a, {"func", "in_dims", "out_dims", "randomness"}, 1);
  if (!is_function(b[0])) fail("vmap(): func must be a function, got " + std::string(type_name(b[0])));
  VmapSpec s{b[0], b.given[1] ? b[1] : Value::integer(0), b.given[2] ? b[2] : Value::integer(0),
             parse_randomness(b[3], "vmap")};
  return make_native("vmap", [s](Evaluator& ev, CallArgs& call) { return run_vmap(ev, s, call); });
}

}  // namespace nabla::interp::func
