// Where the evaluation is: "train.dsl:12:5" of the expression being evaluated (empty
// outside the interpreter). The interpreter sets it; autograd nodes, allocations (CPU
// and device), graph capture and error messages read it, so it lives at the bottom
// of the tree. Knows nothing of the language: an origin is just interned text.
//
// Note [Interned origins]
// The origin is kept current for every expression (a profiler, the allocators' live
// lists and anomaly mode all need the line of every op), so setting it must cost no
// more than an int store: each distinct text is interned once into a process-wide,
// append-only table and named by an OriginId; the interpreter caches the id of each
// AST node, so set_current_origin_id() is a thread-local store. Texts are never freed,
// so a `const std::string&` from origin_text() stays valid for the whole process.
#pragma once
#include <cstdint>
#include <string>

namespace nabla {

using OriginId = uint32_t;  // 0: no origin (the empty text)

// The id of `text` (the same text always gives the same id). Thread-safe; takes a lock,
// so callers intern once and keep the id.
OriginId intern_origin(const std::string& text);
// The text of an id from intern_origin ("" for 0). Lock-free.
const std::string& origin_text(OriginId id);

// Inline, and constinit so that no TLS wrapper call is made: the evaluator sets it
// for every tensor expression and the allocator reads it for every block.
namespace detail {
extern constinit thread_local OriginId t_current_origin;
}
inline OriginId current_origin_id() { return detail::t_current_origin; }
inline void set_current_origin_id(OriginId id) { detail::t_current_origin = id; }

// The text of the current origin, for readers that want it as a string.
inline const std::string& current_origin() { return origin_text(current_origin_id()); }
// Interns `text` and makes it current (C++ callers and tests; the interpreter uses ids).
inline void set_current_origin(const std::string& text) { set_current_origin_id(intern_origin(text)); }

// The expression an origin stands for ("a @ a.T"), for reports that show it beside
// the place (memory_summary). Expressions nested at one place share its origin; the
// longest, the outermost, is kept.
void note_origin_expression(OriginId id, const std::string& expression);
std::string origin_expression(OriginId id);  // "" if none was noted

}  // namespace nabla
