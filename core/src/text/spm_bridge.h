// The SentencePiece calls of the text tokenizers, made through a small shared library, libfone_spm.so
// (spm_bridge_impl.cpp), that fone_text opens with dlopen(RTLD_LOCAL | RTLD_DEEPBIND).
//
// Why not link libsentencepiece directly: Debian's libsentencepiece (0.1.97) carries its own copy of
// protobuf-lite 3.14 and exports its symbols, while LibTorch loads the system libprotobuf 3.21. In one
// symbol namespace each calls into the other's copy and the process crashes before main() (or
// protobuf aborts with "compiled against version 3.14.0"). Opened locally with deep binding,
// libsentencepiece resolves protobuf to its own copy and the rest of the process never sees it.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace fone {

struct SpmBridge {
    static constexpr int kVersion = 1;
    int version = kVersion;
    // Trains a model from the sentences with SentencePieceTrainer's options; false and *error on failure.
    bool (*train)(const std::vector<std::string>& sentences,
                  const std::vector<std::pair<std::string, std::string>>& options, std::string& model,
                  std::string& error);
    // A processor for a serialized model, or nullptr and *error; release() frees it.
    void* (*load)(const std::string& model, std::string& error);
    void (*release)(void* processor);
    bool (*encode)(const void* processor, const std::string& text, std::vector<int>& ids, std::string& error);
    bool (*decode)(const void* processor, const std::vector<int>& ids, std::string& text, std::string& error);
    int (*piece_count)(const void* processor);
    std::string (*id_to_piece)(const void* processor, int id);
};

// Opens libfone_spm.so once: $FONE_SPM_LIBRARY if set, else lib/ beside the program's bin/ (the build
// tree's and an installation's), else the configured install prefix's. Throws TokenizerError naming the paths
// tried and dlerror() when none opens.
const SpmBridge& spm_bridge();

}  // namespace fone
