// A process group (issue 8): the collectives of data-parallel training on the
// libraries the field trusts, Gloo for CPU tensors and NCCL for CUDA tensors. No
// collective algorithm is written here; this file says what each call means and how
// a group starts (rendezvous through a store, store.hpp) and fails (liveness.hpp).
//
// Every collective is called by all ranks of the group in the same order with tensors
// of the same shape and dtype; that is the caller's contract, as in torch.distributed,
// and each call is checked against it (Note [Collective checks], call_check.hpp): a
// call that breaks it is an Error on every rank, which leaves the group usable. A
// collective that fails (a peer died, or did not join within the timeout) throws an
// Error that names the collective and the rank(s) to blame, and the group is broken
// from then on: later calls fail at once with the first error.
#pragma once
#include <memory>
#include <string>

#include "tensor/dist/store.hpp"
#include "tensor/tensor.hpp"

namespace nabla::dist {

enum class ReduceOp { sum, avg, max, min };
ReduceOp reduce_op_from_name(const std::string& name);  // "sum", "avg", "max", "min"

struct InitOptions {
  std::string backend = "gloo";  // "gloo" (CPU tensors) or "nccl" (CUDA tensors)
  // "env://" (MASTER_ADDR, MASTER_PORT), "tcp://host:port" or "file:///path"
  std::string init_method = "env://";
  int rank = -1;        // -1: from RANK
  int world_size = -1;  // -1: from WORLD_SIZE
  Millis timeout{30000};  // for rendezvous and for each collective
  // Compare the ranks' calls before every collective, not only the first time each
  // call site makes each call (Note [Collective checks]): NABLA_DIST_DEBUG=DETAIL.
  bool check_every_call = false;
};

// Fills rank, world size and the store URL from the environment where the options
// leave them open (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT, as torchrun and
// `nabla launch` set them), and check_every_call from NABLA_DIST_DEBUG (OFF or
// DETAIL); an Error names what is missing or malformed.
InitOptions resolve_init_options(InitOptions options);

class Communicator {
 public:
  virtual ~Communicator() = default;
  int rank() const { return rank_; }
  int world_size() const { return world_size_; }
  virtual std::string backend() const = 0;

  // In place: every rank's `t` becomes the reduction over ranks.
  virtual void all_reduce(Tensor& t, ReduceOp op) = 0;
  // In place: every rank's `t` becomes rank `src`'s.
  virtual void broadcast(Tensor& t, int src) = 0;
  // The ranks' tensors concatenated along dim 0, in rank order: [world * n, ...].
  virtual Tensor all_gather(const Tensor& t) = 0;
  // The same into `out`, a contiguous buffer of world * t.numel() elements of t's
  // dtype on t's device (FSDP gathers a unit's flat parameter into the storage its
  // views were saved with). `out` is written, not reallocated.
  virtual void all_gather_into(const Tensor& t, Tensor& out) = 0;
  // `t` is [world * n, ...]: the reduction over ranks of chunk `rank` (rows
  // rank*n .. rank*n+n-1), [n, ...].
  virtual Tensor reduce_scatter(const Tensor& t, ReduceOp op) = 0;
  virtual void barrier() = 0;
  // Point to point (pipeline stages): `t` to rank `dst`; into `t` from rank `src`.
  virtual void send(const Tensor& t, int dst) = 0;
  virtual void recv(Tensor& t, int src) = 0;

 protected:
  Communicator(int rank, int world_size) : rank_(rank), world_size_(world_size) {}
  // An Error unless r is a rank of the group (and, for send and recv, another one);
  // `what` names the call and `arg` the argument.
  void check_rank(int r, const char* what, const char* arg) const;
  // all_gather's result shape: dim 0 (1 for a scalar) times the world size.
  Shape all_gather_shape(const Tensor& t) const;
  // An Error unless `out` can hold all_gather(t): contiguous, t's dtype and device,
  // world * t.numel() elements.
  void check_gather_buffer(const Tensor& t, const Tensor& out) const;
  int rank_;
  int world_size_;
};

// Joins the group (blocks until all world_size ranks have joined, or the timeout).
std::shared_ptr<Communicator> init_communicator(const InitOptions& options);

// The group dist.init() made, which the language's dist functions, the data-parallel
// reducer and the tensor-parallel ops use; nullptr before init and after destroy.
std::shared_ptr<Communicator> default_communicator();
void set_default_communicator(std::shared_ptr<Communicator> c);
// default_communicator(), or an Error saying that `what` needs dist.init() first.
Communicator& require_communicator(const std::string& what);

}  // namespace nabla::dist
