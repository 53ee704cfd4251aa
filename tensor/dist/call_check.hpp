// What a rank passes to one collective (its CallSignature), and the comparison of the
// ranks' signatures before any data moves (issue 25 item 6). The backends
// (gloo_communicator.cpp, nccl_communicator.cpp) supply three tiny transfers of fixed
// size; this file decides, from what they bring back, whether the ranks agree and
// what to say when they do not. Knows nothing of Gloo or NCCL.
//
// Note [Collective checks]
// Collective libraries trust their callers. When ranks pass different sizes to one
// Gloo collective, a message longer than the buffer waiting for it fails an assertion
// (GLOO_ENFORCE) in Gloo's network thread, where nothing can catch it, and the process
// aborts; a shorter message fills part of the buffer and returns, leaving garbage.
// NCCL hangs or returns garbage. So every call first compares the ranks' signatures
// (the call, its reduce op, root or peer, and the tensor's dtype, shape, device and
// layout):
//   - a collective all-reduces (max) the signature's 64-bit digest d together with
//     ~d: the ranks agree iff max(d) == ~max(~d), that is max(d) == min(d). When they
//     do not (every rank sees the same result), an all-gather of the whole signatures
//     tells each rank who called what, and every rank throws the same Error;
//   - send and recv swap their signatures with the peer (one message each way), and
//     both sides compare the pair the same way.
// No data has moved when a check fails, so the group stays usable. The checks run
// under tags of their own, and the data then moves under a tag made from the digest
// (Gloo pairs messages by tag): ranks whose calls got out of step some other way can
// never pair a message with a buffer of another size; at worst they wait out the
// timeout, and the heartbeats (liveness.hpp) say what each rank was calling. The
// checks cost one small round trip per call (docs/distributed.md has the figures);
// they cannot be turned off, since without them a mistake kills the process.
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <string>

#include "tensor/tensor.hpp"

namespace nabla::dist {

enum class Collective : int64_t { all_reduce, broadcast, all_gather, reduce_scatter, barrier, send, recv };
const char* collective_name(Collective c);

struct CallSignature {
  static constexpr size_t kMaxDims = 8;  // more are compared through a hash of them all
  Collective call = Collective::barrier;
  int64_t op = -1;    // a ReduceOp, or -1
  int64_t root = -1;  // broadcast's src; send's dst; recv's src; -1
  int64_t rank = -1;  // the caller (not part of the digest: it differs by design)
  bool has_tensor = false;
  DType dtype = DType::f32;
  Device device;
  bool contiguous = true;
  Shape shape;
  bool more_dims = false;  // read from words: the shape has dims past kMaxDims, not shown

  // The signature as a fixed number of words, and back; from_words throws an Error on
  // words that no signature makes (a peer of another version).
  static constexpr size_t kWords = 20;
  using Words = std::array<int64_t, kWords>;
  Words words() const;
  static CallSignature from_words(const Words& w);
  uint64_t digest() const;
  // "all_reduce(op=sum) of f32[4, 3]", "barrier()", "send(dst=1) of a non-contiguous i64[2]"
  std::string describe() const;
};

// `op`: a ReduceOp as an int, or -1; `root`: as in CallSignature. `t` may be null.
CallSignature make_signature(Collective call, int rank, const Tensor* t, int64_t op = -1, int64_t root = -1);

// How a backend carries signatures between ranks, each transfer blocking until done
// (or throwing a backend exception, which the caller turns into an Error).
struct CheckTransport {
  int rank = 0, world_size = 1;
  // In place: each of the n words becomes its maximum over the ranks.
  std::function<void(int64_t* words, size_t n)> all_reduce_max;
  // `all` (world_size * n words) receives every rank's n words, in rank order.
  std::function<void(const int64_t* mine, int64_t* all, size_t n)> all_gather;
  // Sends n words to `peer` and receives n of its words.
  std::function<void(int peer, const int64_t* mine, int64_t* theirs, size_t n)> swap;
};

// The comparisons of Note [Collective checks]: return normally when every rank (or
// the peer) agrees, else throw the Error "dist.<call>: <what differed>" on every rank.
void check_collective(const CheckTransport& transport, const CallSignature& mine, uint64_t number);
void check_point_to_point(const CheckTransport& transport, const CallSignature& mine, int peer, uint64_t number);

// The tag under which a call's data moves (Gloo matches messages by tag): never the
// tag of the checks, and equal on two ranks only when their digests are.
uint32_t data_tag(const CallSignature& s);
inline constexpr uint32_t kCheckTag = 0xfffffff0u;

}  // namespace nabla::dist
