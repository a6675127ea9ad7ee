// fone analyse token-loss: where one text run's model pays more or less than another's, token by token,
// on a test document (fone/train/token_loss.h).
//
//   fone analyse token-loss --run fone-s1 --against subword-s1 --doc India --out DIR    DIR/token-loss.png
//   fone analyse token-loss --run A --against B --doc 3 --json      every piece's losses, one JSON line
#include <iostream>
#include <memory>

#include "analyse_output.h"
#include "command_support.h"
#include "commands.h"
#include "fone/store/run_store.h"
#include "fone/train/token_loss.h"
#include "json_io.h"
#ifdef FONE_WITH_PLOTS
#include "token_loss_plots.h"
#endif

namespace fone::cli {
namespace {

using nlohmann::json;

struct TokenLossOptions {
    std::string run, against, document = "0", runs_dir, out_dir, colouring = "a-b";
    int threads = 1, max_lines = 80;
    bool json = false, no_png = false;
};

// DIR/token-loss.png when asked for and this build draws; null otherwise.
json write_picture(const TokenLossOptions& o, const analysis::TokenLossComparison& c) {
    if (o.out_dir.empty() || o.no_png) return nullptr;
#ifdef FONE_WITH_PLOTS
    const std::string path = out_path(o.out_dir, "token-loss.png");
    plots::write_token_loss_png(path, c, plots::loss_colouring_from_name(o.colouring), 1200, o.max_lines);
    return path;
#else
    (void)c;
    return nullptr;
#endif
}

void run_token_loss(const TokenLossOptions& o) {
    const RunStore store = open_store(o.runs_dir, false);
    const analysis::TokenLossComparison c =
        compare_runs_on_document(store.resolve(o.run), store.resolve(o.against), o.document, o.threads);
    const json png = write_picture(o, c);
    if (o.json) {
        json out = analysis::token_loss_json(c);
        out["files"] = {{"png", png}};
        print_json_line(std::cout, out);
        return;
    }
    const analysis::ComparisonSummary s = analysis::summarise(c);
    std::cout << c.a.document << " (test document " << c.a.index << " of " << c.a.documents << "), "
              << s.text_pieces << " text pieces, " << s.numbers << " numbers\n"
              << "  nats per text token: " << c.a.run << " (" << c.a.method << ") " << s.text_loss_a << ", "
              << c.b.run << " (" << c.b.method << ") " << s.text_loss_b << "; " << c.a.run << " lower on "
              << 100 * s.text_a_lower << "% of text pieces\n"
              << "  nats per number: " << s.number_loss_a << " against " << s.number_loss_b << "; " << c.a.run
              << " lower on " << 100 * s.numbers_a_lower << "% of numbers\n"
              << "  checkpoints: " << c.a.checkpoint << ", " << c.b.checkpoint << "\n";
    if (!png.is_null()) std::cout << "  wrote " << png.get<std::string>() << "\n";
}

}  // namespace

void add_token_loss_command(CLI::App& app) {
    auto o = std::make_shared<TokenLossOptions>();
    auto* cmd =
        app.get_subcommand("analyse")->add_subcommand(kAnalyseTokenLoss.name, kAnalyseTokenLoss.description);
    cmd->add_option("--run", o->run, "Run name or directory: a text run (a in the colours)")->required();
    cmd->add_option("--against", o->against, "The run to compare with (b): same corpus, same text tokenizer")
        ->required();
    cmd->add_option("--doc", o->document,
                    "The test document: its index from 0, or its first line (a Factbook country: India)")
        ->capture_default_str();
    cmd->add_option("--out", o->out_dir, "Output folder for token-loss.png");
    cmd->add_option("--colour", o->colouring, "Colours: a-b (the difference), a or b (one run's loss)")
        ->check(CLI::IsMember({"a-b", "a", "b"}))
        ->capture_default_str();
    cmd->add_option("--max-lines", o->max_lines, "Lines of the document in the PNG")
        ->check(CLI::Range(1, 100000))
        ->capture_default_str();
    cmd->add_flag("--no-png", o->no_png, "No PNG");
    cmd->add_flag("--json", o->json,
                  "One JSON line: the runs, their checkpoints, the summary and every piece (\"text\", "
                  "\"number\", \"loss_a\", \"loss_b\", \"tokens_a\", \"tokens_b\"; numbers: \"value\", "
                  "\"predicted_a\", \"predicted_b\")");
    cmd->add_option("--runs-dir", o->runs_dir, "Run store");
    cmd->add_option("--threads", o->threads, "Torch threads (0: auto, from the CPUs free)")
        ->check(CLI::Range(0, 1024))
        ->capture_default_str();
    cmd->callback([o] { run_command("analyse token-loss", [&] { run_token_loss(*o); }); });
}

}  // namespace fone::cli
