// Reading a program's text from a path: the script of `nabla FILE`, `nabla test`,
// `nabla graph`, the REPL's :load and `import "file.dsl"` all read through here, so
// they agree on what a program file is. Only a regular file or a pipe is: a folder is
// an error (it used to read as an empty program, so `nabla /tmp` did nothing and
// exited 0), and so is a device or a socket (`/dev/zero` would be read forever). A
// pipe (`nabla <(gen)`, `nabla /dev/stdin` fed by a pipe) is read to its end.
#pragma once
#include <string>

namespace nabla {

// "" when `path` can be run as a program, else the reason, ready for a message:
// "cannot open 'x.dsl': No such file or directory", "cannot run '/tmp': it is a folder".
std::string program_file_problem(const std::string& path);

// Reads the program at `path` into *text (the file is closed on return); "" on
// success, else the reason as program_file_problem gives it.
std::string read_program_file(const std::string& path, std::string* text);

}  // namespace nabla
