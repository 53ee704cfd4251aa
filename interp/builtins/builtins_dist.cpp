// The native side of `import dist` (stdlib/dist.dsl), the module `_dist` (the table
// at the end, Note [Builtin tables]): the process group
// (tensor/dist/communicator.hpp) and the data-parallel reducer
// (autograd/grad_reducer.hpp). Collectives work in place on the tensor's storage, as
// torch.distributed's do, outside autograd; the differentiable ones for tensor
// parallelism are ops of the table (autograd/ops/dist.cpp).
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "autograd/engine.hpp"
#include "autograd/grad_reducer.hpp"
#include "interp/builtins/builtins_internal.hpp"
#include "interp/models/module_walk.hpp"
#include "tensor/dist/collective_queue.hpp"
#include "tensor/dist/communicator.hpp"
#include "tensor/atomic_file.hpp"
#include "tensor/dist/flat_storage.hpp"

namespace nabla::interp {

namespace {

using dist::Communicator;

std::string str_arg(const Bound& b, size_t k, const std::string& what, const std::string& fallback) {
  if (!b.has(k)) return fallback;
  if (b[k].tag != Tag::Str) fail(what + " must be a str, got " + type_name(b[k]));
  return b[k].as<StrObj>()->s;
}

// The tensor of a collective, which writes in place into its storage. Its layout
// (contiguous or not) is the communicator's to check, after the ranks have compared
// their calls (Note [Collective checks]), so that every rank fails alike.
Tensor inplace_arg(const Value& v, const std::string& what) { return as_tensor(v, what); }

// dist.init(backend="gloo", init_method="env://", rank=none, world_size=none, timeout=30)
Value init_builtin(Evaluator& ev, CallArgs& a) {
  ev.check_sandbox("dist.init()");
  Bound b = bind("init", a, {"backend", "init_method", "rank", "world_size", "timeout"}, 0);
  if (dist::default_communicator()) fail("dist.init: the process group is already initialized (dist.destroy() first)");
  dist::InitOptions o;
  o.backend = str_arg(b, 0, "dist.init: backend", "gloo");
  o.init_method = str_arg(b, 1, "dist.init: init_method", "env://");
  if (b.has(2)) o.rank = static_cast<int>(as_int(b[2], "dist.init: rank"));
  if (b.has(3)) o.world_size = static_cast<int>(as_int(b[3], "dist.init: world_size"));
  if (b.has(4)) o.timeout = dist::Millis(int_from_double(std::round(as_num(b[4], "dist.init: timeout") * 1000), "dist.init: timeout in ms"));
  dist::set_default_communicator(dist::init_communicator(o));
  return Value();
}

Value reducer_value(std::shared_ptr<GradReducer> r) {
  auto obj = std::make_shared<ObjectObj>();
  obj->type_name = "GradReducer";
  obj->methods["set_sync"] = [r](Evaluator&, CallArgs& a) {
    Bound b = bind("set_sync", a, {"self", "on"}, 2);
    bool before = r->sync();
    r->set_sync(as_bool(b[1], "set_sync(): on"));
    return Value::boolean(before);
  };
  obj->methods["num_buckets"] = [r](Evaluator&, CallArgs& a) {
    bind("num_buckets", a, {"self"}, 1);
    return Value::integer(static_cast<int64_t>(r->num_buckets()));
  };
  obj->methods["bucket_params"] = [r](Evaluator&, CallArgs& a) {
    bind("bucket_params", a, {"self"}, 1);
    auto out = std::make_shared<ListObj>();
    for (const auto& bucket : r->bucket_params()) {
      auto l = std::make_shared<ListObj>();
      for (size_t i : bucket) l->items.push_back(Value::integer(static_cast<int64_t>(i)));
      out->items.push_back(Value::object(Tag::List, l));
    }
    return Value::object(Tag::List, out);
  };
  obj->methods["comm_stats"] = [r](Evaluator&, CallArgs& a) {
    bind("comm_stats", a, {"self"}, 1);
    auto d = std::make_shared<DictObj>();
    d->set(make_str("comm_us"), Value::number(r->last_comm_us()));
    d->set(make_str("wait_us"), Value::number(r->last_wait_us()));
    return Value::object(Tag::Dict, d);
  };
  return Value::object(Tag::Object, obj);
}

Value is_initialized_builtin(Evaluator&, CallArgs& a) {
  bind("is_initialized", a, {}, 0);
  return Value::boolean(dist::default_communicator() != nullptr);
}

Value destroy_builtin(Evaluator&, CallArgs& a) {
  bind("destroy", a, {}, 0);
  dist::set_default_communicator(nullptr);
  return Value();
}

Value rank_builtin(Evaluator&, CallArgs& a) {
  bind("rank", a, {}, 0);
  return Value::integer(dist::require_communicator("dist.rank()").rank());
}

Value world_size_builtin(Evaluator&, CallArgs& a) {
  bind("world_size", a, {}, 0);
  return Value::integer(dist::require_communicator("dist.world_size()").world_size());
}

Value backend_builtin(Evaluator&, CallArgs& a) {
  bind("backend", a, {}, 0);
  return make_str(dist::require_communicator("dist.backend()").backend());
}

Value all_reduce_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("all_reduce", a, {"tensor", "op"}, 1);
  Tensor t = inplace_arg(b[0], "dist.all_reduce: tensor");
  dist::require_communicator("dist.all_reduce").all_reduce(t, dist::reduce_op_from_name(str_arg(b, 1, "op", "sum")));
  return b[0];
}

Value broadcast_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("broadcast", a, {"tensor", "src"}, 1);
  Tensor t = inplace_arg(b[0], "dist.broadcast: tensor");
  int src = b.has(1) ? static_cast<int>(as_int(b[1], "dist.broadcast: src")) : 0;
  dist::require_communicator("dist.broadcast").broadcast(t, src);
  return b[0];
}

Value all_gather_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("all_gather", a, {"tensor"}, 1);
  Tensor t = inplace_arg(b[0], "dist.all_gather: tensor");
  return Value::tensor(dist::require_communicator("dist.all_gather").all_gather(t));
}

// all_gather_into(output, tensor): torch's all_gather_into_tensor, into a flat buffer.
Value all_gather_into_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("all_gather_into", a, {"output", "tensor"}, 2);
  Tensor out = inplace_arg(b[0], "dist.all_gather_into: output");
  Tensor t = inplace_arg(b[1], "dist.all_gather_into: tensor");
  dist::require_communicator("dist.all_gather_into").all_gather_into(t, out);
  return b[0];
}

Value reduce_scatter_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("reduce_scatter", a, {"tensor", "op"}, 1);
  Tensor t = inplace_arg(b[0], "dist.reduce_scatter: tensor");
  dist::ReduceOp op = dist::reduce_op_from_name(str_arg(b, 1, "op", "sum"));
  return Value::tensor(dist::require_communicator("dist.reduce_scatter").reduce_scatter(t, op));
}

Value barrier_builtin(Evaluator&, CallArgs& a) {
  bind("barrier", a, {}, 0);
  dist::require_communicator("dist.barrier").barrier();
  return Value();
}

Value send_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("send", a, {"tensor", "dst"}, 2);
  Tensor t = inplace_arg(b[0], "dist.send: tensor");
  dist::require_communicator("dist.send").send(t, static_cast<int>(as_int(b[1], "dist.send: dst")));
  return Value();
}

Value recv_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("recv", a, {"tensor", "src"}, 2);
  Tensor t = inplace_arg(b[0], "dist.recv: tensor");
  dist::require_communicator("dist.recv").recv(t, static_cast<int>(as_int(b[1], "dist.recv: src")));
  return b[0];
}

// The pieces of stdlib/_fsdp.dsl that the language cannot say: a unit's gathered
// flat parameter given back and refilled (Note [FSDP resharding]), and where
// backward stands.
Value release_bytes_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("release_bytes", a, {"tensor"}, 1);
  dist::release_bytes(as_tensor(b[0], "_dist.release_bytes: tensor"));
  return Value();
}

Value has_bytes_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("has_bytes", a, {"tensor"}, 1);
  return Value::boolean(dist::has_bytes(as_tensor(b[0], "_dist.has_bytes: tensor")));
}


// FSDP's collectives through one queue on a thread of its own (Note [One queue for a
// unit's collectives] in tensor/dist/collective_queue.hpp).

// gather_async(shard, full): queues the gather of every rank's shard into full (its
// bytes taken again if given back, its version kept); a ticket for wait_collective.
Value gather_async_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("gather_async", a, {"shard", "full"}, 2);
  Tensor shard = as_tensor(b[0], "_dist.gather_async: shard");
  Tensor full = as_tensor(b[1], "_dist.gather_async: full");
  return Value::integer(static_cast<int64_t>(dist::queue_gather(shard, full)));
}

Value wait_collective_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("wait_collective", a, {"ticket"}, 1);
  dist::wait_collective(static_cast<uint64_t>(as_int(b[0], "_dist.wait_collective: ticket")));
  return Value();
}

// reduce_queued(tensor, op, scatter): the reduce-scatter (scatter=true) or all-reduce
// of tensor, queued behind the gathers already queued, waited for; its result.
Value reduce_queued_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("reduce_queued", a, {"tensor", "op", "scatter"}, 3);
  Tensor t = as_tensor(b[0], "_dist.reduce_queued: tensor");
  dist::ReduceOp op = dist::reduce_op_from_name(str(b[1]));
  bool scatter = as_bool(b[2], "_dist.reduce_queued: scatter");
  auto result = std::make_shared<Tensor>();
  uint64_t ticket = dist::queue_collective([t, op, scatter, result](dist::Communicator& comm) mutable {
    if (scatter) {
      *result = comm.reduce_scatter(t, op);
    } else {
      comm.all_reduce(t, op);
      *result = t;
    }
  });
  dist::wait_collective(ticket);
  return Value::tensor(*result);
}

// collective_queue_times(): {run_us, wait_us} of the queue (overlap = run - wait).
Value collective_queue_times_builtin(Evaluator&, CallArgs& a) {
  bind("collective_queue_times", a, {}, 0);
  dist::QueueTimes t = dist::collective_queue_times();
  auto d = std::make_shared<DictObj>();
  d->set(make_str("run_us"), Value::number(t.run_us));
  d->set(make_str("wait_us"), Value::number(t.wait_us));
  return Value::object(Tag::Dict, d);
}

Value backward_depth_builtin(Evaluator&, CallArgs& a) {
  bind("backward_depth", a, {}, 0);
  return Value::integer(backward_depth());
}

// at_backward_end(fn): fn() when the outermost backward() now running ends; false
// (and nothing queued) outside backward.
Value at_backward_end_builtin(Evaluator& ev, CallArgs& a) {
  Bound b = bind("at_backward_end", a, {"fn"}, 1);
  Value fn = b[0];
  Evaluator* e = &ev;
  return Value::boolean(queue_backward_callback([e, fn](bool completed) {
    if (!completed) return;  // backward failed: its error is the one to report
    CallArgs none;
    e->call_value(fn, none);
  }));
}

// The index of a sharded checkpoint (stdlib/_fsdp_checkpoint.dsl), in the layout of
// Hugging Face's and PyTorch's sharded safetensors: {"metadata": {str: str},
// "weight_map": {tensor name: file}}.
using IndexJson = nlohmann::ordered_json;

IndexJson str_dict_json(const Value& v, const std::string& what) {
  if (v.tag != Tag::Dict) fail(what + " must be a dict of str to str, got " + type_name(v));
  IndexJson o = IndexJson::object();
  for (auto& [k, x] : v.as<DictObj>()->entries) {
    if (k.tag != Tag::Str || x.tag != Tag::Str) fail(what + " must be a dict of str to str");
    o[k.as<StrObj>()->s] = x.as<StrObj>()->s;
  }
  return o;
}

Value json_str_dict(const IndexJson& j, const std::string& what) {
  if (!j.is_object()) fail("dist.load_sharded: the index's \"" + what + "\" is not an object");
  auto d = std::make_shared<DictObj>();
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!it.value().is_string())
      fail("dist.load_sharded: the index's \"" + what + "\" maps '" + it.key() + "' to something not a str");
    d->set(make_str(it.key()), make_str(it.value().get<std::string>()));
  }
  return Value::object(Tag::Dict, d);
}

// Note [Checkpoint notes]
// nabla launch gives its ranks NABLA_CHECKPOINT_NOTE, a file of its own. dist.save and
// dist.save_sharded write the path of each checkpoint they finish there (local rank 0,
// atomically), so that when a rank dies the launcher can say which checkpoint the run
// resumes from, and dist.elastic_state() can tell the restarted script.
std::string checkpoint_note_file() {
  const char* file = std::getenv("NABLA_CHECKPOINT_NOTE");
  return file ? file : "";
}

// note_checkpoint(path): records that the checkpoint at path is complete; whether it
// was written here (under nabla launch, on local rank 0).
Value note_checkpoint_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("note_checkpoint", a, {"path"}, 1);
  if (b[0].tag != Tag::Str) fail("note_checkpoint: path must be a str");
  const char* local = std::getenv("LOCAL_RANK");
  std::string file = checkpoint_note_file();
  if (file.empty() || (local && std::string(local) != "0")) return Value::boolean(false);
  write_file_atomically(file, b[0].as<StrObj>()->s, "dist checkpoint note");
  return Value::boolean(true);
}

// last_checkpoint(): the path of the last checkpoint noted in this launch, or none.
Value last_checkpoint_builtin(Evaluator&, CallArgs& a) {
  bind("last_checkpoint", a, {}, 0);
  std::string file = checkpoint_note_file();
  if (file.empty()) return Value();
  std::ifstream in(file);
  std::string path((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return path.empty() ? Value() : make_str(path);
}

// parameter_aliases(module): {first name: [other names]} of each parameter that more
// than one module field holds (tied weights), for FSDP's units.
Value parameter_aliases_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("parameter_aliases", a, {"module"}, 1);
  if (b[0].tag != Tag::Instance) fail("parameter_aliases: module must be a model instance");
  auto d = std::make_shared<DictObj>();
  for (const auto& [name, others] : tensor_aliases(b[0], TensorKinds::parameters)) {
    std::vector<Value> names;
    for (const std::string& n : others) names.push_back(make_str(n));
    d->set(make_str(name), make_list(std::move(names)));
  }
  return Value::object(Tag::Dict, d);
}

// sharded_index_text(weight_map, metadata): the index file's text.
Value sharded_index_text_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("sharded_index_text", a, {"weight_map", "metadata"}, 2);
  IndexJson j = {{"metadata", str_dict_json(b[1], "metadata")}, {"weight_map", str_dict_json(b[0], "weight_map")}};
  return make_str(j.dump(2) + "\n");
}

// parse_sharded_index(text): [weight_map, metadata].
Value parse_sharded_index_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("parse_sharded_index", a, {"text"}, 1);
  if (b[0].tag != Tag::Str) fail("parse_sharded_index: text must be a str");
  IndexJson j = IndexJson::parse(b[0].as<StrObj>()->s, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("weight_map"))
    fail("dist.load_sharded: the index is not JSON with a \"weight_map\"");
  IndexJson meta = j.contains("metadata") ? j["metadata"] : IndexJson::object();
  return make_list({json_str_dict(j["weight_map"], "weight_map"), json_str_dict(meta, "metadata")});
}

// Reducer(params, bucket_bytes): the gradient averaging of DistributedDataParallel.
Value reducer_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("Reducer", a, {"params", "bucket_bytes"}, 2);
  TensorList params;
  if (b[0].tag != Tag::List && b[0].tag != Tag::Tuple) fail("Reducer: params must be a list of tensors");
  for (const Value& v : b[0].as<ListObj>()->items) params.push_back(as_tensor(v, "Reducer: params"));
  int64_t bytes = as_int(b[1], "Reducer: bucket_bytes");
  if (bytes <= 0) fail("Reducer: bucket_bytes must be positive");
  auto comm = dist::default_communicator();
  if (!comm) fail("DistributedDataParallel needs a process group: call dist.init() first");
  return reducer_value(std::make_shared<GradReducer>(params, static_cast<size_t>(bytes), comm));
}

// The native module behind `import dist` (stdlib/dist.dsl wraps it).
const BuiltinEntry kDistFunctions[] = {
    {"init", init_builtin, "init(backend=\"gloo\", init_method=\"env://\", rank=none, world_size=none, timeout=30)",
     "Joins the process group (ranks and world size from nabla launch's environment unless given). "
     "Example: dist.init(backend=\"nccl\")"},
    {"is_initialized", is_initialized_builtin, "is_initialized()",
     "Whether this process is in a process group. Example: dist.is_initialized()"},
    {"destroy", destroy_builtin, "destroy()", "Leaves the process group. Example: dist.destroy()"},
    {"rank", rank_builtin, "rank()",
     "This process's rank in the group, from 0. Example: if dist.rank() == 0 { print(\"the first rank\") }"},
    {"world_size", world_size_builtin, "world_size()", "How many processes the group has. Example: dist.world_size()"},
    {"backend", backend_builtin, "backend()", "The group's backend, \"gloo\" or \"nccl\". Example: dist.backend()"},
    {"all_reduce", all_reduce_builtin, "all_reduce(tensor, op=\"sum\")",
     "Reduces tensor over every rank (op: sum, avg, max or min) into each rank's tensor, in place. "
     "Example: dist.all_reduce(ones(3), op=\"avg\")"},
    {"broadcast", broadcast_builtin, "broadcast(tensor, src=0)",
     "Copies rank src's tensor into every rank's, in place. Example: dist.broadcast(randn(3), src=0)"},
    {"all_gather", all_gather_builtin, "all_gather(tensor)",
     "Every rank's tensor, concatenated along the first dim in rank order. Example: dist.all_gather(ones(2, 3))"},
    {"reduce_scatter", reduce_scatter_builtin, "reduce_scatter(tensor, op=\"sum\")",
     "Reduces tensor over every rank and gives each rank its slice of the first dim. Example: "
     "dist.reduce_scatter(ones(4, 3))"},
    {"all_gather_into", all_gather_into_builtin, "all_gather_into(output, tensor)",
     "Gathers every rank's tensor into output, a flat buffer of world_size * tensor.numel() elements, in rank "
     "order (torch's all_gather_into_tensor). Example: dist.all_gather_into(zeros(2 * dist.world_size()), ones(2))"},
    {"release_bytes", release_bytes_builtin, "release_bytes(tensor)",
     "FSDP's resharding: gives the tensor's storage bytes back, its views kept (Note [FSDP resharding]). Example: "
     "_dist.release_bytes(ones(4))"},
    {"has_bytes", has_bytes_builtin, "has_bytes(tensor)",
     "Whether the tensor's storage holds bytes (false after release_bytes). Example: _dist.has_bytes(ones(2))"},
    {"backward_depth", backward_depth_builtin, "backward_depth()",
     "How many backward() calls run now (0 outside backward). Example: _dist.backward_depth()"},
    {"at_backward_end", at_backward_end_builtin, "at_backward_end(fn)",
     "Calls fn() when the outermost backward() now running ends; false outside backward. Example: "
     "_dist.at_backward_end(fn() = print(\"done\"))"},
    {"gather_async", gather_async_builtin, "gather_async(shard, full)",
     "Queues the all-gather of every rank's shard into full (FSDP's prefetch); a ticket for wait_collective. "
     "Example: _dist.wait_collective(_dist.gather_async(ones(2), zeros(2 * dist.world_size())))"},
    {"wait_collective", wait_collective_builtin, "wait_collective(ticket)",
     "Waits for a queued collective (gather_async); its error, if it failed. Example: "
     "_dist.wait_collective(_dist.gather_async(ones(2), zeros(2 * dist.world_size())))"},
    {"collective_queue_times", collective_queue_times_builtin, "collective_queue_times()",
     "{run_us, wait_us}: time the FSDP collective queue's thread ran calls, and callers waited for them. Example: "
     "_dist.collective_queue_times()"},
    {"reduce_queued", reduce_queued_builtin, "reduce_queued(tensor, op, scatter)",
     "A reduce-scatter (scatter=true) or all-reduce, queued behind FSDP's gathers and waited for. Example: "
     "_dist.reduce_queued(ones(2 * dist.world_size()), \"avg\", true)"},
    {"parameter_aliases", parameter_aliases_builtin, "parameter_aliases(module)",
     "{first name: [other names]} of each parameter held by more than one field (tied weights). Example: "
     "_dist.parameter_aliases(nn.Linear(2, 2))"},
    {"note_checkpoint", note_checkpoint_builtin, "note_checkpoint(path)",
     "Records a finished checkpoint's path for nabla launch (Note [Checkpoint notes]); whether it was written here. "
     "Example: _dist.note_checkpoint(\"ckpt/step5\")"},
    {"last_checkpoint", last_checkpoint_builtin, "last_checkpoint()",
     "The path of the last checkpoint noted in this launch, or none. Example: _dist.last_checkpoint()"},
    {"sharded_index_text", sharded_index_text_builtin, "sharded_index_text(weight_map, metadata)",
     "The JSON text of a sharded checkpoint's index: {metadata, weight_map}. Example: "
     "_dist.sharded_index_text({\"w\": \"a.safetensors\"}, {})"},
    {"parse_sharded_index", parse_sharded_index_builtin, "parse_sharded_index(text)",
     "[weight_map, metadata] of a sharded checkpoint's index text. Example: "
     "_dist.parse_sharded_index(\"{\\\"weight_map\\\": {}}\")"},
    {"barrier", barrier_builtin, "barrier()", "Waits until every rank has reached it. Example: dist.barrier()"},
    {"send", send_builtin, "send(tensor, dst)",
     "Sends tensor to rank dst (which calls recv). Example: dist.send(ones(3), 1)"},
    {"recv", recv_builtin, "recv(tensor, src)",
     "Receives into tensor, in place, what rank src sends. Example: dist.recv(zeros(3), 0)"},
    {"Reducer", reducer_builtin, "Reducer(params, bucket_bytes)",
     "The gradient averaging of DistributedDataParallel: buckets of params' gradients all-reduced during backward. "
     "Example: _dist.Reducer(nn.Linear(4, 2).parameters(), 25 * 1024 * 1024)"},
};
}  // namespace

const BuiltinLibrary kDistLibrary = {"dist", "_dist", kDistFunctions, nullptr};

}  // namespace nabla::interp
