// `fone reproduce`'s text-scaling report (issue 41): per corpus and model size, each method's text
// perplexities and number measures, the FoNE/digit ratio of text perplexity against parameters, and the
// figure (text-scaling.png). docs/text.md, "The text question as a curve".
#include <algorithm>
#include <cstdio>
#include <iterator>
#include <map>

#include "cmd_reproduce.h"
#include "fone/text/text_scaling.h"

#ifdef FONE_WITH_PLOTS
#include <qcustomplot.h>

#include "analysis_plots.h"
#include "text_scaling_plots.h"
#endif

namespace fone::cli {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

double number_or(const json& r, const char* key, double otherwise = 0) {
    const json v = r.value(key, json());
    return v.is_number() ? v.get<double>() : otherwise;
}

// "368.4 (349.9–392.3)", "9.3% (8.0–10.1)": the mean and the range over seeds; "–" for none.
std::string spread(const std::vector<double>& v, bool percent) {
    if (v.empty()) return "–";
    double sum = 0;
    for (const double x : v)
        sum += x;
    const double k = percent ? 100 : 1;
    const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    char b[96];
    const char* unit = percent ? "%" : "";
    if (v.size() == 1)
        std::snprintf(b, sizeof b, "%.*f%s", percent ? 1 : 2, k * sum, unit);
    else
        std::snprintf(b, sizeof b, "%.*f%s (%.*f–%.*f)", percent ? 1 : 2, k * sum / v.size(), unit,
                      percent ? 1 : 2, k * *lo, percent ? 1 : 2, k * *hi);
    return b;
}

// The training tokens of a run: its steps' windows of text_context tokens (the last window of the split
// may be shorter: an upper bound within one window a step).
double train_tokens(const json& r) {
    return number_or(r, "steps") * number_or(r, "batch") * number_or(r, "text_context");
}

std::vector<std::string> in_order(const std::vector<json>& rows, const char* key) {
    std::vector<std::string> out;
    for (const json& r : rows)
        if (const std::string v = r.value(key, std::string());
            std::find(out.begin(), out.end(), v) == out.end())
            out.push_back(v);
    return out;
}

// One corpus: a row per size and method, each figure the mean (min–max) over its seeds.
void corpus_table(std::ostringstream& md, const std::vector<json>& rows, const std::string& corpus) {
    md << "\n#### " << corpus
       << "\n\n| size | params (w/o embedding) | train tokens / param | method | seeds | text perplexity | "
          "windows with numbers | number exact (teacher-forced) | digit accuracy | within 1% | log-sMAPE | "
          "training CPU s |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n";
    std::vector<json> of_corpus;
    std::copy_if(rows.begin(), rows.end(), std::back_inserter(of_corpus),
                 [&](const json& r) { return r.value("corpus", "") == corpus; });
    for (const std::string& size : in_order(of_corpus, "size"))
        for (const std::string& method : in_order(of_corpus, "method")) {
            std::map<std::string, std::vector<double>> v;
            double params = 0, tokens = 0;
            for (const json& r : of_corpus) {
                if (r.value("size", "") != size || r.value("method", "") != method) continue;
                params = number_or(r, "params_without_embedding");
                tokens = train_tokens(r);
                for (const char* k : {"text_perplexity", "text_perplexity_numbers", "next_number_exact_match",
                                      "next_number_digit_accuracy", "next_number_within_1_percent",
                                      "next_number_log_smape", "train_cpu_seconds"})
                    if (r.value(k, json()).is_number()) v[k].push_back(r[k].get<double>());
            }
            if (v["text_perplexity"].empty()) continue;
            char head[160];
            std::snprintf(head, sizeof head, "| %s | %.0f | %.2f | %s | %zu", size.c_str(), params,
                          params > 0 ? tokens / params : 0.0, method.c_str(), v["text_perplexity"].size());
            md << head << " | " << spread(v["text_perplexity"], false) << " | "
               << spread(v["text_perplexity_numbers"], false) << " | "
               << spread(v["next_number_exact_match"], true) << " | "
               << spread(v["next_number_digit_accuracy"], true) << " | "
               << spread(v["next_number_within_1_percent"], true) << " | "
               << spread(v["next_number_log_smape"], true) << " | " << spread(v["train_cpu_seconds"], false)
               << " |\n";
        }
}

std::vector<ScalingRun> scaling_runs(const std::vector<json>& rows, const char* measure) {
    std::vector<ScalingRun> runs;
    for (const json& r : rows)
        if (r.value(measure, json()).is_number())
            runs.push_back({r.value("corpus", ""), r.value("size", ""), r.value("method", ""),
                            static_cast<long long>(number_or(r, "seed")),
                            number_or(r, "params_without_embedding"), r[measure].get<double>()});
    return runs;
}

json ratio_json(const std::vector<RatioLine>& lines) {
    json out = json::array();
    for (const RatioLine& l : lines)
        for (const RatioPoint& p : l.points)
            out.push_back({{"corpus", l.corpus},
                           {"params", p.params},
                           {"ratio", p.mean},
                           {"low", p.low},
                           {"high", p.high},
                           {"seeds", p.seeds}});
    return out;
}

std::string ratio_cell(const std::vector<RatioLine>& lines, const std::string& corpus, double params) {
    for (const RatioLine& l : lines)
        for (const RatioPoint& p : l.points)
            if (l.corpus == corpus && p.params == params) {
                char b[64];
                std::snprintf(b, sizeof b, p.seeds > 1 ? "%.3f (%.3f–%.3f)" : "%.3f", p.mean, p.low, p.high);
                return b;
            }
    return "–";
}

}  // namespace

void text_scaling_tables(std::ostringstream& md, const std::vector<json>& rows, json& extra) {
    const auto all = perplexity_ratios(scaling_runs(rows, "text_perplexity"));
    const auto numbered = perplexity_ratios(scaling_runs(rows, "text_perplexity_numbers"));
    const auto subword = perplexity_ratios(scaling_runs(rows, "text_perplexity"), "subword", "digit");
    md << "FoNE / digit-wise text perplexity (below 1: FoNE's is the lower), mean (lowest–highest) of the "
          "seeds' ratios:\n\n| corpus | params (w/o embedding) | FoNE / digit, all windows | FoNE / digit, "
          "windows with numbers | subword / digit | seeds |\n|---|---|---|---|---|---|\n";
    for (const RatioLine& l : all)
        for (const RatioPoint& p : l.points) {
            char head[96];
            std::snprintf(head, sizeof head, "| %s | %.0f | ", l.corpus.c_str(), p.params);
            md << head << ratio_cell(all, l.corpus, p.params) << " | "
               << ratio_cell(numbered, l.corpus, p.params) << " | " << ratio_cell(subword, l.corpus, p.params)
               << " | " << p.seeds << " |\n";
        }
    md << "\nPublished, each under its own protocol:";
    for (const PublishedRatio& p : published_ratios()) {
        char b[200];
        std::snprintf(b, sizeof b, " %s at %.1fM parameters: %.3f (%s);", p.label.c_str(), p.params / 1e6,
                      p.ratio, p.source.c_str());
        md << b;
    }
    md << "\n";
    for (const std::string& corpus : in_order(rows, "corpus"))
        corpus_table(md, rows, corpus);
    extra["text_scaling"] = {{"fone_over_digit", ratio_json(all)},
                             {"fone_over_digit_numbers", ratio_json(numbered)},
                             {"subword_over_digit", ratio_json(subword)}};
}

std::string write_text_scaling_plot(const Experiment& e, const std::vector<json>& rows, const fs::path& out) {
#ifdef FONE_WITH_PLOTS
    const std::string path = (out / "text-scaling.png").string();
    const auto lines = perplexity_ratios(scaling_runs(rows, "text_perplexity"));
    plots::write_png(path, 960, 540, [&](QCustomPlot& p) {
        plots::draw_text_scaling(p, lines, e.title,
                                 "each point: the mean of the seeds' FoNE/digit ratios (bars: lowest and "
                                 "highest seed); same text, model and seed for both methods");
    });
    return path;
#else
    (void)e, (void)rows, (void)out;
    return "";
#endif
}

}  // namespace fone::cli
