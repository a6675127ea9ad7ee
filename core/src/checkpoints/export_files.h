// What an export copies out of a run folder that may have come from someone else (fone export, both
// formats): only regular files inside the run, and of RUN/pretrained/ only the files a fone-adapter run
// keeps. Private to core/src/checkpoints/.
#pragma once

#include <string>

namespace fone {

// The files of a pretrained folder a fone-adapter run keeps in RUN/pretrained/ (kPretrainedFilesDir): its
// config and tokenizer. An export copies these and nothing else of that folder.
inline constexpr const char* kKeptPretrainedFiles[] = {"config.json", "tokenizer.json",
                                                       "tokenizer_config.json", "special_tokens_map.json",
                                                       "generation_config.json"};

// A file of a run copied into an export: only a regular file inside the run (a symbolic link in its place,
// which could point at a private key, is refused: RunError naming it, and the export writes nothing).
void copy_run_file(const std::string& from, const std::string& to);
// The kept files of RUN/pretrained/ (kKeptPretrainedFiles, those present) copied into to_dir with
// copy_run_file; nothing else of that folder. A link in place of the folder is refused.
void copy_kept_pretrained_files(const std::string& run_dir, const std::string& to_dir);

}  // namespace fone
