// fone model forward: one forward pass of a Hugging Face model folder (docs/pretrained.md). It needs
// LibTorch, so it lives in libfone_torch_commands.so, under the `model` group of cmd_model.cpp.
//
//   fone model forward DIR --token-ids 1,17,42 --json     logits and hidden states at the last position
//   fone model forward DIR --text "12+7="           the same after tokenizing the text
#include <algorithm>
#include <cmath>
#include <iostream>
#include <numeric>
#include <optional>
#include <sstream>

#include "commands.h"
#include "fone/hf/forward.h"
#include "json_io.h"
#include "model_command.h"

namespace fone::cli {
namespace {

using nlohmann::json;

std::vector<int64_t> parse_ids(const std::string& text) {
    std::vector<int64_t> ids;
    std::stringstream list(text);
    for (std::string cell; std::getline(list, cell, ',');) {
        std::size_t used = 0;
        long long v = -1;
        try {
            v = std::stoll(cell, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (cell.empty() || used != cell.size() || v < 0)
            throw std::invalid_argument("--token-ids takes token ids separated by commas, not '" + text +
                                        "'");
        ids.push_back(v);
    }
    return ids;
}

void register_forward(CLI::App* model) {
    auto dir = std::make_shared<std::string>();
    auto ids_text = std::make_shared<std::string>();
    auto text = std::make_shared<std::string>();
    auto as_json = std::make_shared<bool>(false);
    auto threads = std::make_shared<int>(0);
    auto top = std::make_shared<int>(5);
    auto* cmd = model->add_subcommand(kModelForward.name, kModelForward.description);
    cmd->add_option("dir", *dir, "The model folder")->required();
    auto* ids_opt = cmd->add_option("--token-ids", *ids_text, "Token ids, comma-separated");
    cmd->add_option("--text", *text, "A text, tokenized with the folder's tokenizer.json")->excludes(ids_opt);
    cmd->add_flag("--json", *as_json,
                  "Print {\"logits_last\": [...], \"hidden_last\": [[...], ...]} in full");
    cmd->add_option("--top", *top, "Without --json: the most likely next tokens listed")
        ->check(CLI::Range(1, 100))
        ->capture_default_str();
    cmd->add_option("--threads", *threads, "Torch threads (0: auto, from the CPUs free)")
        ->check(CLI::Range(0, 1024));
    cmd->callback([=] {
        run_model_command("model forward", [&] {
            if (ids_text->empty() && text->empty()) throw std::invalid_argument("give --token-ids or --text");
            const fp::ModelFolder m = fp::ModelFolder::open(*dir);
            std::optional<fp::BpeTokenizer> tokenizer;  // for --text, and to name the next tokens
            if (!text->empty() || (!*as_json && !m.tokenizer_path().empty())) tokenizer = folder_tokenizer(m);
            const std::vector<int64_t> ids = text->empty() ? parse_ids(*ids_text) : tokenizer->encode(*text);
            const fp::ForwardResult r = fp::forward_last(m, ids, *threads);
            if (*as_json) {
                print_json_line(
                    std::cout,
                    {{"token_ids", ids}, {"logits_last", r.logits_last}, {"hidden_last", r.hidden_last}});
                return;
            }
            std::vector<std::size_t> order(r.logits_last.size());
            std::iota(order.begin(), order.end(), std::size_t{0});
            const std::size_t n = std::min<std::size_t>(static_cast<std::size_t>(*top), order.size());
            std::partial_sort(
                order.begin(), order.begin() + static_cast<std::ptrdiff_t>(n), order.end(),
                [&](std::size_t a, std::size_t b) { return r.logits_last[a] > r.logits_last[b]; });
            json next = json::array();
            for (std::size_t i = 0; i < n; ++i) {
                json one = {{"id", order[i]}, {"logit", r.logits_last[order[i]]}};
                if (tokenizer && static_cast<int64_t>(order[i]) < tokenizer->vocab_size()) {
                    try {
                        one["token"] = tokenizer->token_text(static_cast<int64_t>(order[i]));
                    } catch (const fp::TokenizerError&) {
                    }
                }
                next.push_back(one);
            }
            json norms = json::array();
            for (const auto& h : r.hidden_last)
                norms.push_back(std::sqrt(std::inner_product(h.begin(), h.end(), h.begin(), 0.0)));
            print_json_line(std::cout, {{"token_ids", ids}, {"next_tokens", next}, {"hidden_norms", norms}});
        });
    });
}
}  // namespace

void add_model_forward_command(CLI::App& app) {
    register_forward(app.get_subcommand("model"));
}

}  // namespace fone::cli
