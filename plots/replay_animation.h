// Replay animations: frames (QImage) to an animated GIF through giflib (Debian's libgif-dev), the GIF
// library every image viewer and browser build on; chosen over an ffmpeg child process because it is a small
// library linked in (no program to find at run time, nothing to install beyond the -dev package) and a GIF
// plays everywhere, in docs and slides included. Builds without giflib still export the PNG frames; asking
// for a GIF there is a clear error (docs/analysis.md "Replay").
#pragma once

#include <QImage>
#include <string>
#include <vector>

namespace fone::plots {

// True when this build links giflib.
bool gif_supported();

// An animated GIF that loops forever, each frame shown `delay_centiseconds`; every frame is reduced to its
// own 256-colour palette (GifQuantizeBuffer). Written to a temporary file, then renamed. Throws
// std::runtime_error when there are no frames, their sizes differ, the file cannot be written, or the build
// has no giflib ("... apt-get install libgif-dev and rebuild").
void write_gif(const std::vector<QImage>& frames, const std::string& path, int delay_centiseconds = 50);

}  // namespace fone::plots
