#include "lang/ast.hpp"

#include <algorithm>
#include <vector>

namespace nabla::lang {

// ---- freeing without recursion (Note [Deep expressions]) ---------------------------

namespace {
// While a tree is being freed on this thread: the nodes still to free. A node's
// destructor frees its children through ExprDeleter, which only queues them here.
thread_local std::vector<Expr*>* t_pending = nullptr;
}  // namespace

void ExprDeleter::operator()(Expr* e) const noexcept {
  if (t_pending) {
    try {
      t_pending->push_back(e);
      return;
    } catch (...) {  // no memory for the queue: free this one the recursive way
      delete e;
      return;
    }
  }
  std::vector<Expr*> pending;
  t_pending = &pending;
  delete e;
  while (!pending.empty()) {
    Expr* next = pending.back();
    pending.pop_back();
    delete next;
  }
  t_pending = nullptr;
}

// ---- chains -----------------------------------------------------------------------

const Expr* first_operand(const Expr& e) {
  switch (e.kind) {
    case ExprKind::Unary: return static_cast<const Unary&>(e).operand.get();
    case ExprKind::Binary: return static_cast<const Binary&>(e).lhs.get();
    case ExprKind::Logical: return static_cast<const Logical&>(e).lhs.get();
    case ExprKind::Attribute: return static_cast<const Attribute&>(e).object.get();
    case ExprKind::Index: return static_cast<const Index&>(e).object.get();
    case ExprKind::Call: {
      const Expr& callee = *static_cast<const Call&>(e).callee;
      if (callee.kind == ExprKind::Attribute) return static_cast<const Attribute&>(callee).object.get();
      return &callee;
    }
    default: return nullptr;
  }
}

void measure(Expr& e) {
  const Expr* first = first_operand(e);
  e.chain_length = !first ? 0
                   : first->chain_length >= kLongChain ? kLongChain
                                                       : static_cast<uint8_t>(first->chain_length + 1);
  unsigned below = 0;
  for_each_operand(e, [&](const Expr& x) { below = std::max<unsigned>(below, x.height); });
  e.height = static_cast<uint8_t>(std::min(below + 1, 255u));
}

const char* op_symbol(BinaryOp op) {
  switch (op) {
    case BinaryOp::Add: return "+";
    case BinaryOp::Sub: return "-";
    case BinaryOp::Mul: return "*";
    case BinaryOp::Div: return "/";
    case BinaryOp::FloorDiv: return "//";
    case BinaryOp::Mod: return "%";
    case BinaryOp::Pow: return "**";
    case BinaryOp::MatMul: return "@";
    case BinaryOp::BitAnd: return "&";
    case BinaryOp::BitXor: return "^";
    case BinaryOp::BitOr: return "|";
    case BinaryOp::Eq: return "==";
    case BinaryOp::Ne: return "!=";
    case BinaryOp::Lt: return "<";
    case BinaryOp::Le: return "<=";
    case BinaryOp::Gt: return ">";
    case BinaryOp::Ge: return ">=";
    case BinaryOp::In: return "in";
    case BinaryOp::NotIn: return "not in";
    case BinaryOp::Is: return "is";
    case BinaryOp::IsNot: return "is not";
  }
  return "?";
}

const char* op_symbol(UnaryOp op) {
  switch (op) {
    case UnaryOp::Neg: return "-";
    case UnaryOp::Pos: return "+";
    case UnaryOp::Not: return "not";
    case UnaryOp::Invert: return "~";
  }
  return "?";
}

}  // namespace nabla::lang
