// Where this build's own shared libraries are (the SentencePiece bridge, the LibTorch commands), for
// opening them with dlopen.
#pragma once

#include <string>
#include <vector>

namespace fone {

// Paths to try for FILE ("libfone_spm.so"), in order: $ENV_VAR when set; beside the program (bin/x ->
// lib/FILE, in the build tree and in an installation under any prefix); the configured install prefix.
std::vector<std::string> own_library_paths(const std::string& file, const char* env_var);

}  // namespace fone
