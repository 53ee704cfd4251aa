// A str as Python sees it: a sequence of code points, while nabla stores UTF-8 bytes
// (shared by the lexer's \u escapes, format's 'c' and the str builtins).
// len(), indexing, slicing, iteration and the str methods that take or give positions
// (find, index, rfind) count code points through these, so "héllo"[1] is "é" and
// len("😀") is 1, as in Python. A byte that does not start a valid UTF-8 sequence (a
// "\xHH" escape) counts as one character of its own, so every byte string still splits
// into pieces that join back to it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace nabla {

// The byte offset where each character of s starts, then s.size().
std::vector<size_t> utf8_starts(const std::string& s);
// The number of characters of s (len(s)).
int64_t utf8_length(const std::string& s);
// The characters of s, each as its bytes (iter(s), list(s)).
std::vector<std::string> utf8_chars(const std::string& s);
// The character index at byte offset `byte` of s (a character's start, or s.size()).
int64_t utf8_index_of_byte(const std::string& s, size_t byte);
// The byte offset of character index k (0 <= k <= length; length gives s.size()).
size_t utf8_byte_of_index(const std::string& s, int64_t k);
// The code point of a one-character string, or -1 when s is not exactly one character.
int64_t utf8_code_point(const std::string& s);
// The offset of the first byte of s that is not part of valid UTF-8 (RFC 3629: no
// overlong form, no surrogate, nothing past 0x10FFFF), or std::string::npos when s is
// UTF-8 text throughout (what JSON, and so a checkpoint's header, can hold).
size_t utf8_invalid_at(const std::string& s);
// Code point c as UTF-8 (c in [0, 0x10FFFF], not a surrogate).
std::string utf8_encode(int64_t c);
// s in upper (lower) case as Python's str.upper() (lower()): each character by the
// Unicode simple case mapping of the C.UTF-8 locale (ASCII only where the system
// lacks it), and "\u{df}" to "SS", Python's one common full mapping; a byte that is not
// valid UTF-8 is kept as it is.
std::string utf8_change_case(const std::string& s, bool upper);
// Whether one character of a str (as utf8_chars gives) is of the class of str.isalpha,
// isalnum, isdigit (0-9), isspace (Python's whitespace), isupper or islower. A byte
// that is not valid UTF-8 is of none.
enum class CharClass { alpha, alnum, digit, space, upper, lower };
bool utf8_char_is(const std::string& ch, CharClass k);

}  // namespace nabla
