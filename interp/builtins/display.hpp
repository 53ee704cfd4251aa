// What a program shows in a notebook: display(x), drawings made without a path and
// progress bars, through the evaluator's display sink (Interpreter::set_display).
// The language side only: the Jupyter kernel (interp/jupyter/) turns DisplayData
// into messages, and nothing here knows of Jupyter.
//
// Note [Display]
// A value shows as an image when its type has a method `_repr_svg_()` (returning SVG
// text) or `_repr_png_()` (returning the PNG file's bytes as a str), as in IPython:
// native objects (methods of a graph module, functions of a native module) and DSL
// models that define one. display(x) sends x's text form and those images; an image
// tensor ([H, W] or [C, H, W] with C 1 or 3, data.save_image's rule) sends its PNG.
// The last expression of a notebook cell sends its images with its echo
// (EvalResult::images). With no sink set (a terminal, a script), display(x) prints
// the text form, a drawing without a path is an error asking for one, and a
// progress bar draws a terminal line: nothing is lost silently.
#pragma once
#include <functional>
#include <string>

#include "interp/eval/evaluator.hpp"

namespace nabla::interp {

// The images of v from its _repr_svg_() / _repr_png_() methods (it calls them);
// empty when it has neither. A method that returns something other than a str is
// an error naming it.
MimeBundle repr_images(Evaluator& ev, const Value& v);

// Fails unless a notebook is there to show a drawing: "<what>: no notebook to show
// the drawing in; give a path (.svg, .png or .dot)". Asked before laying it out.
void require_notebook(Evaluator& ev, const std::string& what);
// Sends an SVG drawing to the notebook (require_notebook first).
void display_svg(Evaluator& ev, const std::string& svg, const std::string& what);

// A progress bar's output in a notebook: each redraw ("\r" + line) replaces the
// bar's one display (a display_id, then updates); "\n" ends nothing. Only with a
// display sink set.
std::function<void(const std::string&)> progress_display(Evaluator& ev);

}  // namespace nabla::interp
