// Drawing a figure (figure.hpp) into file bytes. render_figure is the one entry point;
// line plots and histograms go through the drawing backend, PLplot
// (viz/plot/plplot_backend.cpp), or, in a build without PLplot (NABLA_PLPLOT=OFF),
// viz/plot/plplot_none.cpp, whose drawing is an error that says so. An image grid is
// its pixels (see Note [Image grids are pixels] in render_figure.cpp) and needs no
// backend.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "viz/plot/figure.hpp"

namespace nabla::viz::plot {

// The bytes of `figure` as a file of `format` ("svg" or "png"). Fails (nabla::Error)
// when the drawing library does, or is not built in; never touches a file.
std::string render_figure(const Figure& figure, const std::string& format);

// `figure`'s file bytes to `path` (its extension picks the format), through the atomic
// writer: a failure leaves no partial file and never replaces a good one. `what`
// begins the errors ("save()").
void save_figure(const Figure& figure, const std::string& path, const std::string& what);

namespace backend {

// False, with the reason in *why, in a build without the drawing library.
bool available(std::string* why);
// The line plots and histograms of `figure` (no image) as SVG text.
std::string draw_svg(const Figure& figure);
// ... and as 8-bit RGB pixels, figure.width x figure.height, row-major.
std::vector<uint8_t> draw_rgb(const Figure& figure);

}  // namespace backend
}  // namespace nabla::viz::plot
