// The comparison of the ranks' calls before a collective (Note [Collective checks],
// tensor/dist/call_check.hpp), with the ranks simulated in one process: what each
// mismatch says, and that matching calls pass. tests/dist/mismatch.dsl runs the
// same through Gloo on 2 processes.
#include <doctest/doctest.h>

#include <algorithm>

#include "autograd/ops.hpp"
#include "tensor/dist/call_check.hpp"
#include "tensor/error.hpp"

using namespace nabla;
using namespace nabla::dist;

namespace {

// A transport that answers as if rank r had called ranks[r] (this rank: `me`).
CheckTransport simulated(const std::vector<CallSignature>& ranks, int me) {
  CheckTransport t;
  t.rank = me;
  t.world_size = static_cast<int>(ranks.size());
  t.all_reduce_max = [ranks](int64_t* w, size_t n) {
    REQUIRE(n == 2);
    for (const CallSignature& s : ranks) {
      uint64_t d = s.digest();
      w[0] = std::max(w[0], static_cast<int64_t>(d));
      w[1] = std::max(w[1], static_cast<int64_t>(~d));
    }
  };
  t.all_gather = [ranks](const int64_t*, int64_t* all, size_t n) {
    for (size_t r = 0; r < ranks.size(); ++r) {
      CallSignature::Words w = ranks[r].words();
      std::copy_n(w.begin(), n, all + r * n);
    }
  };
  t.swap = [ranks](int peer, const int64_t*, int64_t* theirs, size_t n) {
    CallSignature::Words w = ranks[static_cast<size_t>(peer)].words();
    std::copy_n(w.begin(), n, theirs);
  };
  return t;
}

CallSignature on(Collective call, int rank, const Tensor& t, int64_t op = -1, int64_t root = -1) {
  return make_signature(call, rank, &t, op, root);
}

// The Error of a collective check on rank `me`, or "(agreed)".
std::string collective_error(const std::vector<CallSignature>& ranks, int me = 0) {
  try {
    check_collective(simulated(ranks, me), ranks[static_cast<size_t>(me)], 7);
  } catch (const Error& e) {
    return e.what();
  }
  return "(agreed)";
}

std::string p2p_error(const std::vector<CallSignature>& ranks, int me, int peer) {
  try {
    check_point_to_point(simulated(ranks, me), ranks[static_cast<size_t>(me)], peer, 3);
  } catch (const Error& e) {
    return e.what();
  }
  return "(agreed)";
}

constexpr int64_t kSum = 0;

}  // namespace

TEST_CASE("matching calls agree, whatever the GPU of each rank") {
  Tensor a = zeros({4, 3});
  CHECK(collective_error({on(Collective::all_reduce, 0, a, kSum), on(Collective::all_reduce, 1, a, kSum)}) == "(agreed)");
  CallSignature gpu0 = on(Collective::all_reduce, 0, a, kSum), gpu1 = on(Collective::all_reduce, 1, a, kSum);
  gpu0.device = Device{DeviceKind::cuda, 0};
  gpu1.device = Device{DeviceKind::cuda, 1};
  CHECK(collective_error({gpu0, gpu1}) == "(agreed)");
  CallSignature b0 = make_signature(Collective::barrier, 0, nullptr), b1 = make_signature(Collective::barrier, 1, nullptr);
  CHECK(collective_error({b0, b1, b1}) == "(agreed)");
}

TEST_CASE("a shape that differs is an error naming the collective, the rank and the shapes") {
  std::vector<CallSignature> ranks = {on(Collective::all_reduce, 0, zeros({4}), kSum),
                                      on(Collective::all_reduce, 1, zeros({8}), kSum)};
  CHECK(collective_error(ranks, 1) ==
        "dist.all_reduce: rank 1: the ranks disagree on collective #7: rank 0 calls all_reduce(op=sum) of f32[4]; "
        "rank 1 calls all_reduce(op=sum) of f32[8] (they differ in the shape). Every rank must make the same calls "
        "in the same order, with tensors of the same shape and dtype (nothing was sent; the group is still usable)");
  CHECK(collective_error(ranks, 0).find("dist.all_reduce: rank 0: the ranks disagree") == 0);
}

TEST_CASE("each kind of difference is named") {
  Tensor f = zeros({4});
  auto why = [&](CallSignature a, CallSignature b) { return collective_error({a, b}); };
  CHECK(why(on(Collective::all_reduce, 0, f, kSum), on(Collective::all_reduce, 1, zeros({4}, DType::i64), kSum))
            .find("(they differ in the dtype)") != std::string::npos);
  CHECK(why(on(Collective::all_reduce, 0, f, kSum), on(Collective::all_reduce, 1, f, 2))
            .find("all_reduce(op=max) of f32[4] (they differ in the reduce op)") != std::string::npos);
  CHECK(why(on(Collective::broadcast, 0, f, -1, 0), on(Collective::broadcast, 1, f, -1, 1))
            .find("(they differ in the source rank)") != std::string::npos);
  CHECK(why(on(Collective::all_gather, 0, f), on(Collective::all_gather, 1, zeros({2, 2})))
            .find("(they differ in the number of dims)") != std::string::npos);
  CHECK(why(on(Collective::all_reduce, 0, f, kSum), on(Collective::all_gather, 1, f))
            .find("rank 1 calls all_gather() of f32[4] (they differ in the call)") != std::string::npos);
  CHECK(why(make_signature(Collective::barrier, 0, nullptr), on(Collective::all_reduce, 1, f, kSum))
            .find("rank 0 calls barrier(); rank 1 calls all_reduce(op=sum) of f32[4]") != std::string::npos);
  Tensor strided = transpose(zeros({4, 4}), 0, 1);
  CHECK(why(on(Collective::all_reduce, 0, zeros({4, 4}), kSum), on(Collective::all_reduce, 1, strided, kSum))
            .find("a non-contiguous f32[4, 4] (they differ in the layout") != std::string::npos);
  Tensor none;
  CHECK(why(on(Collective::all_reduce, 0, none, kSum), on(Collective::all_reduce, 1, f, kSum))
            .find("all_reduce(op=sum) without a tensor") != std::string::npos);
}

TEST_CASE("shapes past the dims that travel are still compared") {
  Shape a, b;  // 10 dims, the last differing
  for (int k = 0; k < 10; ++k) {
    a.push_back(2);
    b.push_back(k == 9 ? 3 : 2);
  }
  std::string e = collective_error({on(Collective::all_reduce, 0, zeros(a), kSum), on(Collective::all_reduce, 1, zeros(b), kSum)});
  CHECK(e.find("f32[2, 2, 2, 2, 2, 2, 2, 2, ...]") != std::string::npos);
  CHECK(e.find("the ranks disagree") != std::string::npos);
  CallSignature s0 = on(Collective::send, 0, zeros(a), -1, 1), r1 = on(Collective::recv, 1, zeros(b), -1, 0);
  CHECK(p2p_error({s0, r1}, 0, 1).find("the ranks disagree") != std::string::npos);
}

TEST_CASE("many ranks are grouped by what they call") {
  std::vector<CallSignature> ranks;
  for (int r = 0; r < 8; ++r) ranks.push_back(on(Collective::all_reduce, r, zeros({r == 5 ? 3 : 2}), kSum));
  CHECK(collective_error(ranks, 2).find("ranks 0, 1, 2, 3, ... (7 in all) call all_reduce(op=sum) of f32[2]; rank 5 "
                                        "calls all_reduce(op=sum) of f32[3]") != std::string::npos);
}

TEST_CASE("send and recv: a mismatch is an error on both sides") {
  std::vector<CallSignature> ranks = {on(Collective::send, 0, zeros({8}), -1, 1), on(Collective::recv, 1, zeros({4}), -1, 0)};
  CHECK(p2p_error(ranks, 0, 1) ==
        "dist.send: rank 0: the ranks disagree on collective #3: rank 0 calls send(dst=1) of f32[8], rank 1 calls "
        "recv(src=0) of f32[4] (they differ in the shape). Every rank must make the same calls in the same order, "
        "with tensors of the same shape and dtype (nothing was sent; the group is still usable)");
  CHECK(p2p_error(ranks, 1, 0).find("dist.recv: rank 1: the ranks disagree on collective #3: rank 1 calls recv(src=0) "
                                    "of f32[4], rank 0 calls send(dst=1) of f32[8] (they differ in the shape)") == 0);
  ranks[1] = on(Collective::recv, 1, zeros({8}, DType::i64), -1, 0);
  CHECK(p2p_error(ranks, 1, 0).find("(they differ in the dtype)") != std::string::npos);
  ranks[1] = on(Collective::send, 1, zeros({8}), -1, 0);
  CHECK(p2p_error(ranks, 0, 1).find("(both send)") != std::string::npos);
  ranks = {on(Collective::recv, 0, zeros({8}), -1, 1), on(Collective::recv, 1, zeros({8}), -1, 0)};
  CHECK(p2p_error(ranks, 1, 0).find("(both receive)") != std::string::npos);
  ranks = {on(Collective::send, 0, zeros({8}), -1, 1), on(Collective::recv, 1, zeros({8}), -1, 0)};
  CHECK(p2p_error(ranks, 0, 1) == "(agreed)");
  CHECK(p2p_error(ranks, 1, 0) == "(agreed)");
}

TEST_CASE("the data tags: one per transfer, never the checks' tag") {
  CallSignature s = on(Collective::send, 0, zeros({8}), -1, 1), r = on(Collective::recv, 1, zeros({8}), -1, 0);
  CHECK(data_tag(s) == data_tag(r));
  CHECK(data_tag(s) != data_tag(on(Collective::recv, 1, zeros({4}), -1, 0)));
  CallSignature a0 = on(Collective::all_reduce, 0, zeros({8}), kSum), a1 = on(Collective::all_reduce, 1, zeros({8}), kSum);
  CHECK(data_tag(a0) == data_tag(a1));
  CHECK(data_tag(a0) != data_tag(on(Collective::all_reduce, 1, zeros({9}), kSum)));
  for (int n = 0; n < 2000; ++n) CHECK(data_tag(on(Collective::all_reduce, 0, zeros({n}), kSum)) < kCheckTag);
}

TEST_CASE("signature words from another build are refused") {
  CallSignature::Words w = on(Collective::all_reduce, 0, zeros({2}), kSum).words();
  CHECK(CallSignature::from_words(w).describe() == "all_reduce(op=sum) of f32[2]");
  w[0] ^= 1;
  CHECK_THROWS_WITH_AS(CallSignature::from_words(w), doctest::Contains("a peer sent a call signature"), Error);
}
