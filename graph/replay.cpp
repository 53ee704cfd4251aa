#include "graph/replay.hpp"

#include <algorithm>

#include "autograd/profiler.hpp"
#include "tensor/cuda/cuda_runtime.hpp"
#include "tensor/storage_views.hpp"

namespace nabla::graph {

// Note [CUDA graph replay]
// A training step of a small model on a GPU is a hundred kernel launches of a few
// microseconds each, and the host's work around each launch costs more than the
// kernel: the GPU waits for the host. A CUDA graph holds the launches of one run and
// replays them with one call. A graph module runs a graph's first run on a GPU by the
// executor (it warms up cuBLAS, cuDNN's algorithm choices and the allocator), records
// the second (tensor/cuda/cuda_graph.cu) and replays from the third on. A replay
// repeats the recorded run exactly, so what it assumes is kept true here:
// - Addresses. The recorded kernels read the recording's own input buffers, into which
//   each run copies its inputs (one device copy each, none when the caller passes that
//   very buffer), and the parameters in place: a parameter found at another address
//   (reassigned rather than updated in place) means record again. Everything the
//   recorded run allocated belongs to the recording (Note [Memory of a recording]).
// - Outputs. Every replay writes the same output buffers, and the caller gets new
//   tensors over them. A buffer of the last run that the caller still holds when the
//   next run starts (a loss kept in a list, an output fed back as an input) is copied
//   to fresh memory first, and the two storages trade memory: the caller's tensors
//   keep their values, the recording keeps its addresses.
// - Values decided on the host. The numbers of the program are constants of the
//   recorded run. What would be baked in wrongly is not recorded: an argument on the
//   CPU, a random op (its seed comes from the host at each call), a control-flow node
//   (its predicate is read on the host). A run that does what a graph cannot hold (a
//   copy to the host) fails to record, and the graph runs by the executor from then on.
// gm.explain() says which of these happened (Replay::summary and Replay::log).

struct Replay::Recording {
  std::unique_ptr<cuda::RecordedGraph> graph;
  TensorList args;           // what the graph reads: each input's own buffer, each parameter itself
  std::vector<char> copied;  // per argument: 1 for an input copied in before each replay
  TensorList outputs;        // where each replay leaves the results
  KeptBuffers kept;          // the arena and the constants on the device that the graph reads
};

namespace {

constexpr int kMaxRecordings = 4;  // then parameters that keep moving turn replay off

// The device a run computes on, as the executor picks it: that of the first argument
// that is not a CPU number.
Device run_device_of(const TensorList& args) {
  for (const Tensor& a : args)
    if (a.defined() && !(a.device().kind == DeviceKind::cpu && a.dim() == 0)) return a.device();
  return cpu_device();
}

// The graph's non-constant inputs, in the order of the arguments.
std::vector<const Value*> argument_values(const Graph& g) {
  std::vector<const Value*> out;
  for (int id : g.inputs)
    if (g.value(id).kind != ValueKind::constant) out.push_back(&g.value(id));
  return out;
}

// Why a node's work cannot be recorded ("" when it can), looking into fused bodies.
std::string unrecordable_node(const Node& n) {
  std::string where = n.origin.empty() ? "" : " (" + n.origin + ")";
  if (n.kind == NodeKind::cond || n.kind == NodeKind::while_loop || n.kind == NodeKind::scan)
    return "its " + n.name() + " node" + where + " decides on the host at each run";
  if (n.kind == NodeKind::table && draws_random_numbers(n.op))
    return n.name() + where + " draws from the host's random generator at each call, and a replay would repeat "
           "one draw";
  if (n.body)
    for (const Node& inner : n.body->nodes)
      if (std::string why = unrecordable_node(inner); !why.empty()) return why;
  return "";
}

// Why g's nodes cannot be recorded ("" when they can).
std::string unrecordable_nodes(const Graph& g) {
  for (const Node& n : g.nodes)
    if (std::string why = unrecordable_node(n); !why.empty()) return why;
  return "";
}

// Why a run with `args` cannot be recorded or replayed ("" when it can): an argument
// on another device (a CPU number would be baked in).
std::string unrecordable_arguments(const Graph& g, const TensorList& args, Device device) {
  for (size_t k = 0; k < args.size(); ++k)
    if (args[k].defined() && args[k].device() != device)
      return "argument %" + argument_values(g).at(k)->name + " is on " + args[k].device().str() +
             " (a recording would keep its value of one run)";
  return "";
}

// How many of `ts` are over `s`.
long over_storage_count(const TensorList& ts, const std::shared_ptr<Storage>& s) {
  return std::count_if(ts.begin(), ts.end(), [&](const Tensor& t) { return t.storage() == s; });
}

// Whether s is a parameter's (read in place): never the recording's to move.
bool parameter_storage(const Replay::Recording& r, const std::shared_ptr<Storage>& s) {
  for (size_t k = 0; k < r.args.size(); ++k)
    if (!r.copied[k] && r.args[k].storage() == s) return true;
  return false;
}

// Rebinds every tensor of ts over `from` to `to`, same layout.
void rebind(TensorList& ts, const std::shared_ptr<Storage>& from, const std::shared_ptr<Storage>& to) {
  for (Tensor& t : ts)
    if (t.storage() == from) t = over_storage(to, t);
}

// The outputs of the last replay that someone besides the recording still holds move
// to fresh memory, which the holders keep; the recording keeps its addresses. An
// output may be (a view of) an input buffer, which the next call overwrites too.
void free_held_outputs(Replay::Recording& r) {
  for (size_t k = 0; k < r.outputs.size(); ++k) {
    std::shared_ptr<Storage> recorded = r.outputs[k].storage();
    if (parameter_storage(r, recorded)) continue;  // eager would hand out the parameter itself too
    long ours = over_storage_count(r.outputs, recorded) + over_storage_count(r.args, recorded);
    if (recorded.use_count() - 1 <= ours) continue;  // - 1: `recorded` itself
    auto fresh = std::make_shared<Storage>(recorded->nbytes, recorded->device);
    cuda::copy_into(bytes_of(fresh), bytes_of(recorded));  // u8: b8 would turn each byte into 0 or 1
    std::swap(recorded->data, fresh->data);  // the holders' storage now has the copy
    rebind(r.outputs, recorded, fresh);
    rebind(r.args, recorded, fresh);
  }
}

// New tensors over the recording's outputs, for the caller.
TensorList hand_out(const Replay::Recording& r) {
  TensorList out;
  for (const Tensor& t : r.outputs) out.push_back(over_storage(t.storage(), t));
  return out;
}

// "parameter %w is at a new address ...": why the recording no longer fits `args`.
std::string moved_argument(const Graph& g, const Replay::Recording& r, const TensorList& args) {
  for (size_t k = 0; k < args.size(); ++k) {
    if (r.copied[k]) continue;
    const Tensor& a = args[k];
    const Tensor& bound = r.args[k];
    if (a.raw_data() != bound.raw_data() || !(a.strides() == bound.strides()))
      return "parameter %" + argument_values(g).at(k)->name +
             " is at a new address (reassigned rather than updated in place)";
  }
  return "";
}

// Records a run of g with `args`; `warm` is the executor's buffers of an earlier run,
// whose constants (already on the device) the recording reads in place.
std::shared_ptr<Replay::Recording> record(const Graph& g, const TensorList& args, int device,
                                          const KeptBuffers& warm) {
  auto r = std::make_shared<Replay::Recording>();
  std::vector<const Value*> values = argument_values(g);
  for (size_t k = 0; k < args.size(); ++k) {
    bool input = values[k]->kind == ValueKind::input;
    Tensor bound = args[k];
    if (input) {
      bound = empty(args[k].sizes(), args[k].dtype(), args[k].device());
      cuda::copy_into(bound, args[k]);
    }
    r->args.push_back(bound);
    r->copied.push_back(input);
  }
  r->kept.constants = warm.constants;
  r->graph = cuda::record_graph(device, [&] { r->outputs = run_graph(g, r->args, &r->kept); });
  r->kept.returned.clear();  // the outputs are r->outputs
  r->graph->launch();  // recording ran nothing: this run's results come from here
  return r;
}

TensorList replay_run(Replay::Recording& r, const TensorList& args) {
  free_held_outputs(r);
  for (size_t k = 0; k < args.size(); ++k)
    if (r.copied[k] && args[k].raw_data() != r.args[k].raw_data()) cuda::copy_into(r.args[k], args[k]);
  r.graph->launch();
  return hand_out(r);
}

std::string run_number(const Replay& r) { return std::to_string(r.eager_runs + r.recordings + r.replays + 1); }

}  // namespace

std::string Replay::summary() const {
  if (!enabled) return "CUDA graph: off (compile(..., cuda_graph=false))";
  if (!not_replayed.empty()) return "CUDA graph: not replayed: " + not_replayed;
  if (!recording) return recordings + replays == 0 ? "" : "CUDA graph: none recorded now";
  return "CUDA graph: " + std::to_string(replays) + " run" + (replays == 1 ? "" : "s") +
         " replayed, each one launch of " + std::to_string(recording->graph->node_count()) + " nodes (recorded " +
         std::to_string(recordings) + (recordings == 1 ? " time)" : " times)");
}

TensorList run_replayed(const Graph& g, const TensorList& args, Replay& r) {
  Device device = run_device_of(args);
  auto by_executor = [&] {
    ++r.eager_runs;
    return run_graph(g, args, &r.kept);
  };
  auto fall_back = [&](const std::string& why) {
    r.not_replayed = why;
    r.recording.reset();
    r.log.push_back("run " + run_number(r) + ": runs by the executor from now on: " + why);
    return by_executor();
  };
  if (!r.enabled || device.kind != DeviceKind::cuda || active_profiler() || !r.not_replayed.empty())
    return by_executor();
  if (std::string why = unrecordable_arguments(g, args, device); !why.empty()) return fall_back(why);
  if (r.recording) {
    std::string moved = moved_argument(g, *r.recording, args);
    if (moved.empty()) {
      ++r.replays;
      return replay_run(*r.recording, args);
    }
    r.recording.reset();
    if (r.recordings >= kMaxRecordings)
      return fall_back("recorded " + std::to_string(r.recordings) + " times, and still " + moved);
    r.log.push_back("run " + run_number(r) + ": records again: " + moved);
  }
  // The graph is fixed for this Replay (gm.optimize() makes a new one): its nodes are
  // checked only until it has a recording.
  if (std::string why = unrecordable_nodes(g); !why.empty()) return fall_back(why);
  if (r.eager_runs == 0) return by_executor();  // the warm-up run
  try {
    r.recording = record(g, args, device.index, r.kept);
  } catch (const Error& e) {
    return fall_back(e.what());
  }
  r.log.push_back("run " + run_number(r) + ": recorded a CUDA graph of " +
                  std::to_string(r.recording->graph->node_count()) + " nodes");
  ++r.recordings;
  r.kept.arena = Tensor();  // the executor's buffers are not needed while the recording replays
  r.kept.returned.clear();
  return hand_out(*r.recording);
}

}  // namespace nabla::graph
