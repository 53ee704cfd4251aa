// The parser tests' one way to parse a string: as a file named `name` (errors then
// read "t.dsl:1:5: error: ...").
#pragma once
#include <memory>
#include <string>

#include "lang/parser.hpp"

namespace nabla::lang {

inline ParseResult parse_text(const std::string& text, const std::string& name = "t.dsl") {
  auto file = std::make_shared<SourceFile>();
  file->name = name;
  file->text = text;
  return parse(file);
}

}  // namespace nabla::lang
