#include "autograd/transforms/vmap.hpp"

#include <algorithm>
#include <cstdio>
#include <mutex>
#include <set>

#include "autograd/ops.hpp"

namespace nabla {

namespace {

// t with dim `from` moved to `to` (a permute view; t itself when they are equal).
Tensor move_dim(const Tensor& t, int64_t from, int64_t to) {
  if (from == to) return t;
  IntList order;
  for (int64_t d = 0; d < t.dim(); ++d)
    if (d != from) order.push_back(d);
  order.insert(order.begin() + to, from);
  return permute(t, order);
}

}  // namespace

int64_t BatchContext::logical_dim(size_t i) const {
  const Tensor& t = physical_[i];
  return t.dim() - (batched(i) ? 1 : 0);
}

Tensor BatchContext::batch_first(size_t i) const {
  const Tensor& t = physical_[i];
  if (batched(i)) return move_dim(t, bdims_[i], 0);
  IntList shape{batch_size_};
  shape.insert(shape.end(), t.sizes().begin(), t.sizes().end());
  return expand(unsqueeze(t, 0), shape);
}

TensorList BatchContext::call_batched_first(const TensorList& inputs, const Attrs& attrs) {
  TensorList outs = call(def_.id, inputs, attrs);
  out_bdims.assign(outs.size(), 0);
  return outs;
}

namespace transforms {

namespace {

// Note [vmap randomness]
// Inside vmap(randomness="error") an op that draws random numbers is an error, as in
// functorch; "different" draws independently per batch element (what the batched
// op or the loop does anyway); "same" draws once for the whole batch, which the
// random factories do (interp) and the random rows cannot yet. This holds whether or
// not the op's inputs are batched (call() hands a random row to the innermost vmap
// either way): with none batched, "same" is one draw as it is, and "different" draws
// on the inputs expanded over the batch. Before, dropout(ones(n)) inside vmap drew one
// mask for every example under any randomness, where functorch errors or draws anew.
bool draws(const OpDef& def, const Attrs& attrs) {
  if (!draws_random_numbers(def.id)) return false;
  return !(def.id == OpId::dropout && (!attrs.b("training") || attrs.f("p") == 0));  // eval dropout: no draw
}

void check_randomness(const OpDef& def, const Attrs& attrs, const Level& level, bool any_batched) {
  if (!draws(def, attrs)) return;
  if (level.randomness == Randomness::error)
    throw Error(std::string("vmap: ") + def.name +
                " draws random numbers, and vmap was called with randomness=\"error\"; pass randomness=\"different\" "
                "(each batch element draws its own) or \"same\"");
  if (level.randomness == Randomness::same && any_batched)
    throw Error(std::string("vmap: ") + def.name + " cannot draw the same random numbers for every batch element "
                "(randomness=\"same\"); use randomness=\"different\"");
}

// A batch of no examples has no example to run the op on: the outputs are empty, their
// per-example shapes and dtypes those the row's shape rule gives for one example (a
// zero-stride stand-in, never read). As functorch, vmap over a batch of size 0 gives
// empty results; the loop returned no outputs at all, and the caller read past them.
TensorList empty_batch(BatchContext& c) {
  const OpDef& def = c.def();
  TensorList one;
  for (size_t i = 0; i < c.num_inputs(); ++i) {
    const Tensor& p = c.physical(i);
    if (!c.batched(i) || !p.defined()) {
      one.push_back(p);
      continue;
    }
    Shape shape = p.sizes();
    shape.erase(static_cast<size_t>(c.bdim(i)));
    one.push_back(expand(zeros({}, p.dtype(), p.device()), IntList(shape.begin(), shape.end())));
  }
  TensorList outs;
  for (const TensorMeta& m : def.infer(one, c.attrs())) {
    Shape shape = m.sizes;
    shape.insert(0, 0);
    outs.push_back(zeros(IntList(shape.begin(), shape.end()), m.dtype, one.empty() ? Device{} : c.physical(0).device()));
  }
  c.out_bdims.assign(outs.size(), 0);
  return outs;
}

// The fallback of rows without a rule: the op once per batch element, stacked.
TensorList batch_loop(BatchContext& c) {
  const OpDef& def = c.def();
  note_once(std::string("vmap loop ") + def.name, std::string("note: vmap: ") + def.name +
                                                      " has no batching rule (for these inputs); it runs once per batch element");
  if (c.batch_size() == 0) return empty_batch(c);
  std::vector<TensorList> per_example;
  per_example.reserve(static_cast<size_t>(c.batch_size()));
  for (int64_t b = 0; b < c.batch_size(); ++b) {
    TensorList args;
    for (size_t i = 0; i < c.num_inputs(); ++i)
      args.push_back(c.batched(i) ? select(c.physical(i), c.bdim(i), b) : c.physical(i));
    per_example.push_back(call(def.id, args, c.attrs()));
  }
  TensorList outs;
  size_t n = per_example.empty() ? 0 : per_example[0].size();
  for (size_t k = 0; k < n; ++k) {
    TensorList column;
    for (auto& one : per_example) column.push_back(one[k]);
    outs.push_back(stack(column, 0));
  }
  c.out_bdims.assign(outs.size(), 0);
  return outs;
}

}  // namespace

// Note [Nested wrappers]
// A wrapper's physical tensor is batched only at outer levels than its own. Transforms
// sometimes batch a tensor at a level outer than one it is already batched at (jacrev
// inside jacfwd: a gradient batched by the inner vmap gets the outer batch dim); the
// wrapper of the outer level then goes under the inner one, and unbatch looks through
// inner wrappers the same way.
Tensor make_batched(const Tensor& physical, uint64_t level, int64_t bdim) {
  if (const auto& inner = physical.impl()->batched; inner && inner->level > level) {
    // physical: dims of the per-example value, with `level`'s at bdim; inner->physical
    // has inner->level's dim at inner->bdim as well.
    int64_t outer_dim = bdim + (bdim >= inner->bdim ? 1 : 0);
    Tensor below = make_batched(inner->physical, level, outer_dim);
    return make_batched(below, inner->level, inner->bdim - (outer_dim < inner->bdim ? 1 : 0));
  }
  auto impl = std::make_shared<TensorImpl>();
  impl->storage = physical.storage();  // where it lives (device()); never read through
  Shape sizes = physical.sizes();
  sizes.erase(static_cast<size_t>(bdim));
  impl->sizes = sizes;
  impl->strides = contiguous_strides(sizes);
  impl->dtype = physical.dtype();
  impl->refresh_layout();
  impl->batched = std::make_shared<BatchedInfo>(BatchedInfo{physical, level, bdim});
  return Tensor(std::move(impl));
}

bool batched_at(const Tensor& t, uint64_t level) {
  if (!t.defined() || !t.impl()->batched) return false;
  const BatchedInfo& info = *t.impl()->batched;
  return info.level == level || (info.level > level && batched_at(info.physical, level));
}

Tensor unbatch(const Tensor& t, uint64_t level, int64_t batch_size, int64_t to) {
  if (const auto& inner = t.impl()->batched; inner && inner->level > level && batched_at(t, level)) {
    // Unbatch below the inner wrapper, placing `level`'s dim so that it lands at `to`
    // once the inner level's dim is left out again.
    int64_t at = to <= inner->bdim ? to : to + 1;
    Tensor below = unbatch(inner->physical, level, batch_size, at);
    return make_batched(below, inner->level, inner->bdim + (at <= inner->bdim ? 1 : 0));
  }
  if (t.impl()->batched && t.impl()->batched->level == level) {
    const BatchedInfo& info = *t.impl()->batched;
    return move_dim(info.physical, info.bdim, to);
  }
  IntList shape(t.sizes().begin(), t.sizes().end());
  shape.insert(shape.begin() + to, batch_size);
  return expand(unsqueeze(t, to), shape);
}

TensorList batch_call(const OpDef& def, const TensorList& inputs, const Attrs& given, Level& level) {
  Attrs attrs = given.items().size() == def.attrs.size() ? given : complete_attrs(def, given);
  TensorList physical(inputs.size());
  std::vector<int64_t> bdims(inputs.size(), -1);
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].defined() && inputs[i].impl()->batched && inputs[i].impl()->batched->level == level.id) {
      physical[i] = inputs[i].impl()->batched->physical;
      bdims[i] = inputs[i].impl()->batched->bdim;
    } else {
      physical[i] = inputs[i];
    }
  }
  const bool any_batched = std::any_of(bdims.begin(), bdims.end(), [](int64_t d) { return d >= 0; });
  check_randomness(def, attrs, level, any_batched);
  if (!any_batched && draws_random_numbers(def.id)) {
    if (level.randomness != Randomness::different || !draws(def, attrs)) {
      HideLevels hide(level.id);
      return call(def.id, inputs, attrs);  // one draw, the same for every example (or no draw)
    }
    for (size_t i = 0; i < inputs.size(); ++i)
      if (inputs[i].defined()) {  // each example's own draw: the op runs on the batch
        physical[i] = unbatch(inputs[i], level.id, level.batch_size, 0);
        bdims[i] = 0;
        break;
      }
  }
  TensorList outs;
  std::vector<int64_t> out_bdims;
  {
    HideLevels hide(level.id);
    BatchContext c(def, std::move(physical), std::move(bdims), attrs, level.batch_size);
    if (def.batch) outs = def.batch(c);
    if (outs.empty()) outs = batch_loop(c);  // no rule, or one that declined these inputs
    out_bdims = std::move(c.out_bdims);
  }
  for (size_t k = 0; k < outs.size(); ++k)
    if (outs[k].defined() && k < out_bdims.size() && out_bdims[k] >= 0)
      outs[k] = make_batched(outs[k], level.id, out_bdims[k]);
  return outs;
}

Tensor random_under_vmap(const char* name, const Shape& shape, const std::function<Tensor(const Shape&)>& draw) {
  Level* level = innermost_visible(LevelKind::batch);
  if (!level) return draw(shape);
  if (level->randomness == Randomness::error)
    throw Error(std::string("vmap: ") + name +
                " draws random numbers, and vmap was called with randomness=\"error\"; pass randomness=\"different\" "
                "(each batch element draws its own) or \"same\" (one draw for the whole batch)");
  uint64_t id = level->id;
  int64_t size = level->batch_size;
  bool different = level->randomness == Randomness::different;
  HideLevels hide(id);  // outer vmaps decide for their own batch dims
  if (!different) return random_under_vmap(name, shape, draw);
  Shape batched = shape;
  batched.insert(0, size);
  return make_batched(random_under_vmap(name, batched, draw), id, 0);
}

void note_once(const std::string& key, const std::string& text) {
  static std::mutex mutex;
  static std::set<std::string> seen;
  std::lock_guard<std::mutex> lock(mutex);
  if (seen.insert(key).second) std::fprintf(stderr, "%s\n", text.c_str());
}

}  // namespace transforms
}  // namespace nabla
