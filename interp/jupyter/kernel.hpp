// nabla's Jupyter kernel on xeus (Debian's xeus-dev 2.4: the Jupyter protocol over
// ZeroMQ, with message signing): `nabla kernel -f CONNECTION_FILE` runs one
// Interpreter session for a notebook, and `nabla jupyter install` writes the
// kernelspec that tells Jupyter how to start it. Talks to the language only through
// the embedding API (interp/interpreter.hpp) and the REPL's shared decisions
// (interp/app/repl.hpp: completion, whether an entry is complete, Ctrl-C); the
// design note is docs/DESIGN.md's "The Jupyter kernel".
#pragma once
#include <string>
#include <vector>

#include "interp/interpreter.hpp"

namespace nabla::jupyter {

// `nabla kernel -f CONNECTION_FILE` (args: those after "kernel"): serves `interp` to
// the client that wrote the connection file until it asks for a shutdown. Returns
// the exit status: 0 after a shutdown, 2 on a usage error or a connection file that
// cannot be used (the message names the file and the problem).
int run_kernel_command(Interpreter& interp, const std::vector<std::string>& args);

// `nabla jupyter install [--user | --prefix DIR]` (args: those after "jupyter"):
// writes the kernelspec (kernel.json) of this nabla binary. Returns the exit status.
int run_jupyter_command(const std::vector<std::string>& args);

}  // namespace nabla::jupyter
