// libFuzzer target for text corpora (issue 44): the bytes of a file a user gives as `fone train --task text
// --data FILE` or `fone corpus`, through the readers a run uses, and the World Factbook reader.
//
// The first byte chooses the reader: 0 a plain-text file (one document a line: read_text_documents), 1 a
// JSONL file (read_text_jsonl), 2 a Factbook country file (render_factbook_fields), and the corpus report of
// what was read. The contract: a file that is not a corpus is a TextDataError (or NumberError for a number
// the parser refuses) whose message is one line of at most 1,000 bytes that names the file; anything else
// (another exception, a crash, a hang, unbounded memory, a deep nesting that recurses) is a finding.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>

#include "fone/numbers/decimal.h"
#include "fone/text/corpus.h"
#include "fone/text/text_data.h"

namespace {

void check(bool ok) {
    if (!ok) __builtin_trap();
}

void check_message(const char* what, const std::string& where) {
    const std::string m = what;
    check(m.size() <= 1000 && m.find('\n') == std::string::npos);
    check(m.find(where) != std::string::npos || m.find("number") != std::string::npos);
}

// One file per process (libFuzzer runs inputs one after the other).
const std::string& scratch_file(const char* suffix) {
    static const std::string base = "/tmp/fone-fuzz-corpus-" + std::to_string(::getpid());
    static std::string path;
    path = base + suffix;
    return path;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    const int mode = data[0] % 3;
    const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
    std::vector<fone::TextExample> examples;
    const std::string path = scratch_file(mode == 1 ? ".jsonl" : ".txt");
    try {
        if (mode == 2) {
            const std::string fields = fone::render_factbook_fields(text, "country.json");
            examples.push_back({"", fields});
        } else {
            {
                std::ofstream out(path, std::ios::binary | std::ios::trunc);
                out << text;
            }
            examples = mode == 0 ? fone::read_text_documents(path) : fone::read_text_jsonl(path);
        }
    } catch (const fone::TextDataError& e) {
        check_message(e.what(), mode == 2 ? "country.json" : path);
        return 0;
    } catch (const fone::NumberError& e) {
        check_message(e.what(), "number");
        return 0;
    }
    for (const fone::TextExample& e : examples)
        check(mode == 1 || e.prompt.empty());
    const fone::CorpusReport r = fone::corpus_report(examples);
    check(r.documents == examples.size());
    return 0;
}
