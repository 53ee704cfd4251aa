// einsum: Einstein summation over an equation string, as torch.einsum, lowered to ops
// of the table (sum, where, permute, reshape, expand, matmul), so its gradients and
// their gradients come from those ops' rules.
//
// Lowering, operand by operand from the left:
//  1. A label repeated within one operand ("ii") takes the diagonal: the entries off
//     it are zeroed with where and the second dim summed out.
//  2. A label found in no other operand and not in the output is summed out at once.
//  3. The running result and the next operand are contracted by one batched matmul:
//     labels in both and needed later are the batch, labels in both and needed no
//     more are contracted (K), the rest are each side's free dims (M, N).
//  4. The last result sums out what the output lacks and is permuted to its order.
// "..." stands for the broadcast dims (right-aligned across operands); without "->"
// the output is "..." then the labels that occur once, in alphabetical order.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "autograd/ops.hpp"
#include "tensor/error.hpp"

namespace nabla {

namespace {

// A label: a letter, or one of the ellipsis dims (ids from 256 up, innermost last).
using Label = int;
constexpr Label kEllipsisBase = 256;

struct Operand {
  Tensor t;
  std::vector<Label> labels;  // one per dim of t
};

[[noreturn]] void fail(const std::string& equation, const std::string& what) {
  throw Error("einsum(\"" + equation + "\"): " + what);
}

// The labels of one term ("ij", "b...d"); `ellipsis_dims` is how many dims its "..."
// covers (-1: the term has none).
struct Term {
  std::vector<Label> letters_before, letters_after;
  bool has_ellipsis = false;
};

Term parse_term(const std::string& equation, const std::string& text) {
  Term term;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == ' ') continue;
    if (c == '.') {
      if (text.compare(i, 3, "...") != 0) fail(equation, "a '.' that is not part of '...'");
      if (term.has_ellipsis) fail(equation, "more than one '...' in the term '" + text + "'");
      term.has_ellipsis = true;
      i += 2;
      continue;
    }
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
      fail(equation, std::string("labels must be letters, got '") + c + "'");
    (term.has_ellipsis ? term.letters_after : term.letters_before).push_back(c);
  }
  return term;
}

// Each dim of `t` labelled from `term`; the ellipsis dims get ids counted from the
// innermost ellipsis dim of the widest one, so that they align on the right.
std::vector<Label> label_dims(const std::string& equation, const Term& term, const Tensor& t, size_t index,
                              int64_t* ellipsis_rank) {
  int64_t explicit_dims = static_cast<int64_t>(term.letters_before.size() + term.letters_after.size());
  int64_t covered = t.dim() - explicit_dims;
  if (covered < 0 || (!term.has_ellipsis && covered != 0))
    fail(equation, "operand " + std::to_string(index) + " of shape " + t.shape_str() + " has " +
                       std::to_string(t.dim()) + " dims but its term names " + std::to_string(explicit_dims) +
                       (term.has_ellipsis ? " (plus '...')" : ""));
  std::vector<Label> labels(term.letters_before.begin(), term.letters_before.end());
  for (int64_t d = 0; d < covered; ++d) labels.push_back(kEllipsisBase + static_cast<int>(covered - 1 - d));
  labels.insert(labels.end(), term.letters_after.begin(), term.letters_after.end());
  *ellipsis_rank = std::max(*ellipsis_rank, covered);
  return labels;
}

int64_t find_dim(const std::vector<Label>& labels, Label l) {
  return std::find(labels.begin(), labels.end(), l) - labels.begin();
}

// Takes the diagonal of every label repeated within the operand.
void take_diagonals(const std::string& equation, Operand& x) {
  for (size_t i = 0; i < x.labels.size(); ++i) {
    for (size_t j = i + 1; j < x.labels.size();) {
      if (x.labels[j] != x.labels[i]) {
        ++j;
        continue;
      }
      int64_t n = x.t.sizes()[i];
      if (x.t.sizes()[j] != n)
        fail(equation, std::string("label '") + static_cast<char>(x.labels[i]) + "' repeated in one operand has sizes " +
                           std::to_string(n) + " and " + std::to_string(x.t.sizes()[j]) + " (shape " +
                           x.t.shape_str() + ")");
      // keep[a, b] = (a == b), shaped to broadcast over dims i and j of t.
      IntList row_shape(x.t.dim(), 1), col_shape(x.t.dim(), 1);
      row_shape[i] = n;
      col_shape[j] = n;
      Tensor keep = eq(reshape(arange(n, DType::i64, x.t.device()), row_shape),
                       reshape(arange(n, DType::i64, x.t.device()), col_shape));
      x.t = sum(where(keep, x.t, zeros({}, x.t.dtype(), x.t.device())), {static_cast<int64_t>(j)});
      x.labels.erase(x.labels.begin() + static_cast<std::ptrdiff_t>(j));
    }
  }
}

// Sums out the dims whose labels `keep` rejects.
void sum_out(Operand& x, const std::vector<bool>& keep_dim) {
  IntList dims;
  std::vector<Label> kept;
  for (size_t d = 0; d < x.labels.size(); ++d) {
    if (keep_dim[d])
      kept.push_back(x.labels[d]);
    else
      dims.push_back(static_cast<int64_t>(d));
  }
  if (dims.empty()) return;
  x.t = sum(x.t, dims);
  x.labels = kept;
}

// The size of label l in a and b broadcast (1 against n gives n).
int64_t label_size(const std::string& equation, const Operand& a, const Operand& b, Label l) {
  int64_t sa = a.t.sizes()[find_dim(a.labels, l)], sb = b.t.sizes()[find_dim(b.labels, l)];
  if (sa != sb && sa != 1 && sb != 1)
    fail(equation, "label " + (l >= kEllipsisBase ? std::string("of '...'") : std::string("'") + char(l) + "'") +
                       " has size " + std::to_string(sa) + " in one operand (shape " + a.t.shape_str() +
                       ") and " + std::to_string(sb) + " in another (shape " + b.t.shape_str() + ")");
  return std::max(sa, sb);
}

// x permuted to `order` (labels of x), reshaped to [prod of each group], groups being
// consecutive runs of `order` with the sizes in `sizes`.
Tensor as_groups(const Operand& x, const std::vector<Label>& order, const std::vector<int64_t>& full_sizes,
                 const std::vector<size_t>& group_ends) {
  IntList perm, expanded;
  for (size_t k = 0; k < order.size(); ++k) {
    perm.push_back(find_dim(x.labels, order[k]));
    expanded.push_back(full_sizes[k]);
  }
  Tensor t = expand(permute(x.t, perm), expanded);
  IntList groups;
  size_t begin = 0;
  for (size_t end : group_ends) {
    int64_t n = 1;
    for (size_t k = begin; k < end; ++k) n *= full_sizes[k];
    groups.push_back(n);
    begin = end;
  }
  return reshape(t, groups);
}

// a and b contracted over the labels in both that `needed_later` does not want.
Operand contract(const std::string& equation, const Operand& a, const Operand& b,
                 const std::vector<Label>& needed_later) {
  auto later = [&](Label l) { return std::find(needed_later.begin(), needed_later.end(), l) != needed_later.end(); };
  auto in = [](const Operand& x, Label l) { return std::find(x.labels.begin(), x.labels.end(), l) != x.labels.end(); };
  std::vector<Label> batch, a_only, b_only, contracted;
  for (Label l : a.labels) {
    if (!in(b, l))
      a_only.push_back(l);
    else
      (later(l) ? batch : contracted).push_back(l);
  }
  for (Label l : b.labels)
    if (!in(a, l)) b_only.push_back(l);
  std::vector<int64_t> batch_sizes, k_sizes;
  for (Label l : batch) batch_sizes.push_back(label_size(equation, a, b, l));
  for (Label l : contracted) k_sizes.push_back(label_size(equation, a, b, l));
  auto sizes_of = [](const Operand& x, const std::vector<Label>& ls) {
    std::vector<int64_t> s;
    for (Label l : ls) s.push_back(x.t.sizes()[find_dim(x.labels, l)]);
    return s;
  };
  std::vector<int64_t> m_sizes = sizes_of(a, a_only), n_sizes = sizes_of(b, b_only);
  // A as [batch, M, K], B as [batch, K, N].
  std::vector<Label> a_order = batch, b_order = batch;
  a_order.insert(a_order.end(), a_only.begin(), a_only.end());
  a_order.insert(a_order.end(), contracted.begin(), contracted.end());
  b_order.insert(b_order.end(), contracted.begin(), contracted.end());
  b_order.insert(b_order.end(), b_only.begin(), b_only.end());
  std::vector<int64_t> a_sizes = batch_sizes, b_sizes = batch_sizes;
  a_sizes.insert(a_sizes.end(), m_sizes.begin(), m_sizes.end());
  a_sizes.insert(a_sizes.end(), k_sizes.begin(), k_sizes.end());
  b_sizes.insert(b_sizes.end(), k_sizes.begin(), k_sizes.end());
  b_sizes.insert(b_sizes.end(), n_sizes.begin(), n_sizes.end());
  size_t nb = batch.size(), nm = a_only.size(), nk = contracted.size(), nn = b_only.size();
  Tensor a3 = as_groups(a, a_order, a_sizes, {nb, nb + nm, nb + nm + nk});
  Tensor b3 = as_groups(b, b_order, b_sizes, {nb, nb + nk, nb + nk + nn});
  Tensor c = matmul(a3, b3);  // [batch, M, N]
  IntList out_shape(batch_sizes.begin(), batch_sizes.end());
  out_shape.insert(out_shape.end(), m_sizes.begin(), m_sizes.end());
  out_shape.insert(out_shape.end(), n_sizes.begin(), n_sizes.end());
  Operand r;
  r.t = reshape(c, out_shape);
  r.labels = batch;
  r.labels.insert(r.labels.end(), a_only.begin(), a_only.end());
  r.labels.insert(r.labels.end(), b_only.begin(), b_only.end());
  return r;
}

}  // namespace

Tensor einsum(const std::string& equation, const TensorList& operands) {
  if (operands.empty()) fail(equation, "expected at least one operand");
  size_t arrow = equation.find("->");
  std::string lhs = equation.substr(0, arrow);
  std::vector<std::string> terms;
  for (size_t start = 0;;) {
    size_t comma = lhs.find(',', start);
    terms.push_back(lhs.substr(start, comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (terms.size() != operands.size())
    fail(equation, "the equation has " + std::to_string(terms.size()) + " operand terms but " +
                       std::to_string(operands.size()) + " tensors were given");
  std::vector<Operand> xs(operands.size());
  int64_t ellipsis_rank = 0;
  std::map<Label, int> count;  // in how many operand terms each label occurs (once per term)
  for (size_t i = 0; i < operands.size(); ++i) {
    if (!operands[i].defined()) fail(equation, "operand " + std::to_string(i) + " is none");
    Term term = parse_term(equation, terms[i]);
    xs[i].t = operands[i];
    xs[i].labels = label_dims(equation, term, operands[i], i, &ellipsis_rank);
    std::vector<Label> seen;
    for (Label l : xs[i].labels)
      if (std::find(seen.begin(), seen.end(), l) == seen.end()) {
        seen.push_back(l);
        ++count[l];
      }
  }
  // The output's labels.
  std::vector<Label> output;
  if (arrow == std::string::npos) {
    for (int64_t d = ellipsis_rank - 1; d >= 0; --d) output.push_back(kEllipsisBase + static_cast<int>(d));
    std::map<Label, int> occurrences;
    for (const Operand& x : xs)
      for (Label l : x.labels) ++occurrences[l];
    for (auto [l, n] : occurrences)
      if (l < kEllipsisBase && n == 1) output.push_back(l);
  } else {
    Term term = parse_term(equation, equation.substr(arrow + 2));
    output = term.letters_before;
    if (term.has_ellipsis)
      for (int64_t d = ellipsis_rank - 1; d >= 0; --d) output.push_back(kEllipsisBase + static_cast<int>(d));
    else if (ellipsis_rank > 0)
      fail(equation, "'...' covers dims in the operands but the output has no '...'");
    output.insert(output.end(), term.letters_after.begin(), term.letters_after.end());
    for (size_t k = 0; k < output.size(); ++k) {
      if (output[k] < kEllipsisBase && !count.count(output[k]))
        fail(equation, std::string("output label '") + static_cast<char>(output[k]) + "' is in no operand");
      if (std::find(output.begin() + static_cast<std::ptrdiff_t>(k) + 1, output.end(), output[k]) != output.end())
        fail(equation, std::string("output label '") + static_cast<char>(output[k]) + "' appears twice");
    }
  }
  // Labels wanted after operand i: the output's and those of operands past i.
  auto wanted_after = [&](size_t i) {
    std::vector<Label> w = output;
    for (size_t j = i + 1; j < xs.size(); ++j) w.insert(w.end(), xs[j].labels.begin(), xs[j].labels.end());
    return w;
  };
  Operand acc;
  for (size_t i = 0; i < xs.size(); ++i) {
    take_diagonals(equation, xs[i]);
    // Sum out, early, the labels of this operand that nothing else wants (nor acc).
    std::vector<Label> wanted = wanted_after(i);
    wanted.insert(wanted.end(), acc.labels.begin(), acc.labels.end());
    std::vector<bool> keep(xs[i].labels.size());
    for (size_t d = 0; d < keep.size(); ++d)
      keep[d] = std::find(wanted.begin(), wanted.end(), xs[i].labels[d]) != wanted.end();
    sum_out(xs[i], keep);
    acc = i == 0 ? xs[0] : contract(equation, acc, xs[i], wanted_after(i));
  }
  // Sum out what the output lacks; permute to the output's order (expanding a label of
  // size 1 that broadcast nowhere stays 1).
  std::vector<bool> keep(acc.labels.size());
  for (size_t d = 0; d < keep.size(); ++d)
    keep[d] = std::find(output.begin(), output.end(), acc.labels[d]) != output.end();
  sum_out(acc, keep);
  IntList perm;
  for (Label l : output) perm.push_back(find_dim(acc.labels, l));
  return perm.empty() ? acc.t : permute(acc.t, perm);
}

}  // namespace nabla
