// fone analyse patch | knockout: interventions on a trained FoNE run (fone/probes/intervention.h).
//
//   fone analyse patch --run RUN --prompt "123.456+654.321=" --place 0 --digit 3     the answer's units → 3
//   fone analyse patch --run RUN --prompt P --place 0 --digit 5 --layer 0 --position 1    the first operand
//   fone analyse patch --run RUN --serve          one JSON request per stdin line, one answer per line
//   fone analyse knockout --run RUN --prompt P --period 10 --layer 1    which digits break
//   fone analyse knockout --run RUN --out DIR     layer x period damage over the test split (CSV + PNG)
#include <charconv>
#include <cmath>
#include <iostream>
#include <memory>

#include "analyse_output.h"
#include "command_support.h"
#include "fone/io/shown_text.h"
#include "fone/probes/intervention.h"
#include "fone/store/run_store.h"
#include "intervention_plots.h"
#include "json_io.h"
#include "serve_request.h"

namespace fone::cli {
namespace {

using nlohmann::json;

struct RunOptions {
    std::string run, runs_dir;
    int threads = 1;
};

void add_run_options(CLI::App* cmd, RunOptions& o) {
    cmd->add_option("--run", o.run, "Run name or directory (a FoNE run)")->required();
    cmd->add_option("--runs-dir", o.runs_dir, "Run store");
    cmd->add_option("--threads", o.threads, "Torch threads (0: auto, from the CPUs free)")
        ->check(CLI::Range(0, 1024))
        ->capture_default_str();
}

std::string run_dir(const RunOptions& o) {
    return open_store(o.runs_dir, false).resolve(o.run);
}

// One answer per request line until stdin ends; a bad request is an {"error"} line, not the end.
void serve(InterventionSession& session) {
    json ready = session.describe();
    ready["ready"] = true;
    print_json_line(std::cout, ready);
    std::string line;
    bool too_long = false;
    while (read_bounded_line(std::cin, line, kMaxServeLineBytes, &too_long)) {
        if (too_long) {
            print_json_line(std::cout, {{"error", "the request line is longer than " +
                                                      std::to_string(kMaxServeLineBytes) +
                                                      " bytes (the limit of --serve)"}});
            continue;
        }
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        try {
            json request;
            const PatchRequest parsed = parse_serve_line(line, &request);
            json answer = session.patch(parsed);
            if (request.contains("id")) answer["id"] = request["id"];
            print_json_line(std::cout, answer);
        } catch (const std::exception& e) {
            print_json_line(std::cout, {{"error", served_error(e.what())}});
        }
    }
}

void register_patch(CLI::App* analyse) {
    auto o = std::make_shared<RunOptions>();
    auto r = std::make_shared<PatchRequest>();
    auto layer = std::make_shared<std::string>("head");
    auto serve_flag = std::make_shared<bool>(false);
    auto* cmd = analyse->add_subcommand(kAnalysePatch.name, kAnalysePatch.description);
    add_run_options(cmd, *o);
    cmd->add_option("--prompt", r->prompt, "The prompt, e.g. 123.456+654.321=");
    cmd->add_option("--place", r->place, "Decimal place whose pair turns: 0 units, 1 tens, -1 tenths")
        ->capture_default_str();
    auto* digit = cmd->add_option("--digit", r->digit, "Turn it to digit D's point on its circle")
                      ->check(CLI::Range(0, 9));
    cmd->add_option("--angle", r->angle_degrees, "... or to this angle in degrees")->excludes(digit);
    cmd->add_option("--layer", *layer,
                    "head (the digit head's input, after its norm), 0 (the input: at a number, its own FoNE "
                    "features) or k (the residual stream after block k)")
        ->capture_default_str();
    cmd->add_option("--position", r->position, "Token index (0: [BOS]); default the last token");
    cmd->add_flag("--serve", *serve_flag,
                  "Keep the model open: read one JSON request per line on stdin ({\"prompt\", \"place\", "
                  "\"digit\" or \"angle\", \"layer\", \"position\", \"id\"}), write one answer per line");
    cmd->callback([o, r, layer, serve_flag] {
        run_command("analyse patch", [&] {
            r->layer = parse_layer(*layer);
            InterventionSession session(run_dir(*o), o->threads);
            if (*serve_flag) return serve(session);
            if (r->prompt.empty()) throw std::invalid_argument("give --prompt (or --serve)");
            if (r->digit < 0 && std::isnan(r->angle_degrees))
                throw std::invalid_argument("give --digit or --angle");
            print_json_line(std::cout, session.patch(*r));
        });
    });
}

void register_knockout(CLI::App* analyse) {
    auto o = std::make_shared<RunOptions>();
    auto r = std::make_shared<KnockoutRequest>();
    auto layer = std::make_shared<std::string>("head");
    auto examples = std::make_shared<int>(200);
    auto out_dir = std::make_shared<std::string>();
    auto no_png = std::make_shared<bool>(false);
    auto* cmd = analyse->add_subcommand(kAnalyseKnockout.name, kAnalyseKnockout.description);
    add_run_options(cmd, *o);
    cmd->add_option("--prompt", r->prompt, "One prompt (needs --period)");
    cmd->add_option("--period", r->period, "The period whose pair is scaled, e.g. 10 or 0.01");
    cmd->add_option("--layer", *layer, "head, 0 (the input: the numbers' FoNE features) or k (after block k)")
        ->capture_default_str();
    cmd->add_option("--scale", r->scale, "What the pair is multiplied by (0: removed)")
        ->capture_default_str();
    cmd->add_option("--examples", *examples, "Test examples of the map")
        ->check(CLI::Range(1, 100000))
        ->capture_default_str();
    cmd->add_option("--out", *out_dir, "Output folder of the map");
    cmd->add_flag("--no-png", *no_png, "CSV only");
    cmd->callback([o, r, layer, examples, out_dir, no_png] {
        run_command("analyse knockout", [&] {
            r->layer = parse_layer(*layer);
            if (!r->prompt.empty()) {
                if (r->period.empty()) throw std::invalid_argument("--prompt needs --period");
                InterventionSession session(run_dir(*o), o->threads);
                return print_json_line(std::cout, session.knockout(*r));
            }
            if (out_dir->empty())
                throw std::invalid_argument("give --prompt and --period, or --out DIR for the map");
            const std::string dir = run_dir(*o);
            InterventionSession session(dir, o->threads, /*test_split=*/true);
            const analysis::DamageMap map = session.knockout_map(*examples, r->scale);
            json files;
            files["csv"] = out_path(*out_dir, "knockout.csv");
            write_file_atomic(files["csv"], analysis::damage_csv(map));
            const std::string title = "Knockout of " + session.describe()["run"].get<std::string>();
            files["png"] = maybe_png(
                out_path(*out_dir, "knockout.png"), 900, 160 + 60 * static_cast<int>(map.layers.size()),
                [&](QCustomPlot& p) { plots::draw_damage_map(p, map, title); }, !*no_png);
            json rows = json::array();
            for (std::size_t l = 0; l < map.layers.size(); ++l) {
                json row;
                for (std::size_t t = 0; t < map.periods.size(); ++t)
                    row[map.periods[t]] =
                        map.answers_changed(static_cast<Eigen::Index>(l), static_cast<Eigen::Index>(t));
                rows.push_back({{"layer", map.layers[l]}, {"answers_changed", row}});
            }
            print_json_line(std::cout, {{"analysis", "knockout"},
                                        {"run", session.describe()["run"]},
                                        {"prompts", map.prompts},
                                        {"scale", map.scale},
                                        {"exact_before", map.exact_before},
                                        {"layers", rows},
                                        {"files", files}});
        });
    });
}

}  // namespace

void add_intervention_commands(CLI::App& app) {
    CLI::App* analyse = app.get_subcommand("analyse");
    register_patch(analyse);
    register_knockout(analyse);
}

}  // namespace fone::cli
