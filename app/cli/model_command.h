// What `fone model` commands share (cmd_model.cpp in `fone`, cmd_model_forward.cpp in the LibTorch
// commands): a folder's errors as bad input, the folder's tokenizer.
#pragma once

#include <string>

#include "command_support.h"
#include "fone/io/safetensors.h"
#include "fone/pretrained/model_folder.h"
#include "fone/pretrained/tokenizer.h"

namespace fone::cli {

namespace fp = fone::pretrained;

// Errors of a folder or tokenizer are bad input (exit status 2), like a bad option.
template <class Work>
void run_model_command(const std::string& command, Work&& work) {
    run_command(
        command,
        [&] {
            try {
                work();
            } catch (const fp::PretrainedError& e) {
                throw std::invalid_argument(e.what());
            } catch (const fp::TokenizerError& e) {
                throw std::invalid_argument(e.what());
            } catch (const safetensors::Error& e) {
                throw std::invalid_argument(e.what());
            }
        },
        2);
}

// The folder's tokenizer.json; PretrainedError when it has none.
inline fp::BpeTokenizer folder_tokenizer(const fp::ModelFolder& m) {
    const std::string path = m.tokenizer_path();
    if (path.empty()) throw fp::PretrainedError(m.dir() + ": no tokenizer.json (give --token-ids instead)");
    return fp::BpeTokenizer::load(path);
}

}  // namespace fone::cli
