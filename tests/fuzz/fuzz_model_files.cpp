// libFuzzer target for the files of a downloaded model folder (issue 33): the first byte picks what the
// rest is.
//   0: config.json      through the bounded JSON reader and PretrainedConfig::from_json
//   1: tokenizer.json   through BpeTokenizer::from_json_text, then a few texts encoded
//   2: the index        model.safetensors.index.json of a copy of the tiny sharded Llama folder
//                       (FONE_FUZZ_MODEL_DIR, set by scripts/fuzz.sh), opened with ModelFolder::open
//   3: any JSON         through parse_json_bounded (the reader of every outside JSON: run files, requests)
// The contract: a PretrainedError, TokenizerError, safetensors::Error or a false return with one line that
// starts with the file's name, never nlohmann's bare "[json.exception…]"; anything else (another exception,
// a crash, a hang, memory past the limit) is a finding: check() traps so that libFuzzer keeps the input.
// Structure generators beside the bytes: scripts/fuzz.sh seeds deep nesting, 100,000 entries, long lines
// and huge shapes, which 4 KB inputs of a byte fuzzer never reach.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "fone/io/json_bounded.h"
#include "fone/io/safetensors.h"
#include "fone/pretrained/model_folder.h"
#include "fone/pretrained/tokenizer.h"

namespace {

namespace fs = std::filesystem;
namespace fp = fone::pretrained;

void check(bool ok) {
    if (!ok) __builtin_trap();
}

// Whether this input itself holds nlohmann's marker: a message may quote the input where it went wrong, so
// the marker in a message is a raw nlohmann error only when the input did not bring it.
bool g_input_has_marker = false;

void check_message(const char* what, const char* starts_with) {
    check(what != nullptr && std::strlen(what) > 0 && std::strchr(what, '\n') == nullptr);
    check(std::strncmp(what, starts_with, std::strlen(starts_with)) == 0);
    check(g_input_has_marker || std::strstr(what, "[json.exception") == nullptr);
}

void fuzz_config(const std::string& text) {
    nlohmann::json j;
    std::string error;
    if (!fone::parse_json_bounded(text, "config.json", j, &error))
        return check_message(error.c_str(), "config.json");
    try {
        const fp::PretrainedConfig c = fp::PretrainedConfig::from_json(j, "config.json");
        check(c.head_dim >= 1 && c.heads >= 1 && c.kv_heads >= 1 && c.heads % c.kv_heads == 0);
        check(c.rotary_dims >= 0 && c.rotary_dims <= c.head_dim);
        (void)c.to_json().dump();
    } catch (const fp::PretrainedError& e) {
        check_message(e.what(), "config.json");
    }
}

void fuzz_tokenizer(const std::string& text) {
    try {
        const fp::BpeTokenizer t = fp::BpeTokenizer::from_json_text(text, "tokenizer.json");
        for (const char* s :
             {"12+40=52", "Hello world", " 3.14159 and 2,718", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}) {
            try {
                for (const int64_t id : t.encode(s))
                    (void)t.token_text(id);
            } catch (const fp::TokenizerError& e) {
                check_message(e.what(), "tokenizer.json");
            }
        }
    } catch (const fp::TokenizerError& e) {
        check_message(e.what(), "tokenizer.json");
    }
}

void fuzz_index(const std::string& text) {
    static const fs::path dir = [] {
        const char* model = std::getenv("FONE_FUZZ_MODEL_DIR");
        check(model != nullptr);
        const fs::path to = fs::temp_directory_path() / ("fuzz-model-" + std::to_string(::getpid()));
        fs::remove_all(to);
        fs::copy(model, to, fs::copy_options::recursive);
        return to;
    }();
    {
        std::ofstream out(dir / "model.safetensors.index.json", std::ios::binary | std::ios::trunc);
        out << text;
    }
    try {
        const fp::ModelFolder m = fp::ModelFolder::open(dir.string());
        check(!m.files().empty());
    } catch (const fp::PretrainedError& e) {
        check_message(e.what(), dir.string().c_str());
    } catch (const fone::safetensors::Error& e) {
        check_message(e.what(), dir.string().c_str());
    }
}

void fuzz_json(const std::string& text) {
    nlohmann::json j;
    std::string error;
    if (fone::parse_json_bounded(text, "request", j, &error))
        (void)j.dump();  // a depth past the limit would overflow the stack here
    else
        check_message(error.c_str(), "request");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
    g_input_has_marker = text.find("[json.exception") != std::string::npos;
    switch (data[0] % 4) {
        case 0:
            fuzz_config(text);
            break;
        case 1:
            fuzz_tokenizer(text);
            break;
        case 2:
            fuzz_index(text);
            break;
        default:
            fuzz_json(text);
    }
    return 0;
}
