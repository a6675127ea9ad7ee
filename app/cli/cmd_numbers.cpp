// fone encode | decode | parse: the exact number library on the command line.
#include <iostream>
#include <memory>
#include <sstream>

#include "command_support.h"
#include "fone/io/json_bounded.h"
#include "fone/numbers/fourier.h"
#include "fone/numbers/number_parser.h"
#include "json_io.h"

namespace fone::cli {
namespace {

using nlohmann::json;

struct SpecOptions {
    FoneSpec spec;
    std::string periods;  // "2,5,10"
    std::string method = "exact";
    bool no_sign = false;
};

void add_spec_options(CLI::App* cmd, SpecOptions& o) {
    cmd->add_option("-m,--int-digits", o.spec.int_digits, "Integer digits m (periods up to base^m)")
        ->capture_default_str();
    cmd->add_option("-n,--frac-digits", o.spec.frac_digits,
                    "Fractional digits n (periods down to base^(1-n))")
        ->capture_default_str();
    cmd->add_option("--base", o.spec.base, "Period base: T_i = base^i")->capture_default_str();
    cmd->add_option("--periods", o.periods,
                    "Mixed period multipliers, e.g. 2,5,10 for periods c*10^k (the paper's ablation)");
    cmd->add_option("--method", o.method,
                    "exact (phases from the digits), float64 (the paper's reference, wrong past ~15 digits) "
                    "or chunked (the paper's 5-digit chunks)")
        ->check(CLI::IsMember({"exact", "float64", "chunked"}))
        ->capture_default_str();
    cmd->add_flag("--no-sign", o.no_sign, "Drop the sign entry after the pairs (negatives are then errors)");
}

FoneSpec finish_spec(const std::string& command, SpecOptions& o) {
    run_command(
        command, [&] { o.spec.multipliers = parse_int_list(o.periods, "--periods"); }, 2);
    o.spec.sign_feature = !o.no_sign;
    o.spec.method = o.method == "float64"   ? EncodeMethod::float64
                    : o.method == "chunked" ? EncodeMethod::chunked
                                            : EncodeMethod::exact;
    run_command(
        command, [&] { o.spec.validate(); }, 2);
    return o.spec;
}

// Arguments, or else one item per non-empty line of standard input.
std::vector<std::string> inputs_or_stdin(const std::vector<std::string>& args) {
    if (!args.empty()) return args;
    std::vector<std::string> lines;
    for (std::string line; std::getline(std::cin, line);)
        if (line.find_first_not_of(" \t\r") != std::string::npos) lines.push_back(line);
    return lines;
}

std::string trim(const std::string& s) {
    const auto b = s.find_first_not_of(" \t\r\n");
    if (b == std::string::npos) return "";
    return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

void register_encode(CLI::App& app) {
    auto o = std::make_shared<SpecOptions>();
    auto numbers = std::make_shared<std::vector<std::string>>();
    auto dim = std::make_shared<int>(0);
    auto* cmd = app.add_subcommand("encode", "FoNE embedding of each NUMBER: one JSON line per number");
    add_spec_options(cmd, *o);
    cmd->add_option("--dim", *dim, "Zero-pad each embedding to this model width")
        ->check(CLI::Range(1, 1 << 20));
    cmd->add_option("numbers", *numbers, "Numbers (none: one per line on stdin); put -- before negatives");
    cmd->callback([o, numbers, dim] {
        const FoneSpec spec = finish_spec("encode", *o);
        int failures = 0;
        for (const std::string& raw : inputs_or_stdin(*numbers)) {
            try {
                const Decimal x = Decimal::parse(trim(raw));
                const auto e = *dim > 0 ? encode_padded(x, spec, *dim) : encode(x, spec);
                print_json_line(std::cout, json{{"value", x.to_string()}, {"embedding", e}});
            } catch (const NumberError& err) {
                print_error("encode", err.what());
                ++failures;
            }
        }
        if (failures) throw CliFailure(std::to_string(failures) + " number(s) could not be encoded");
    });
}

std::vector<double> embedding_from_text(const std::string& item) {
    const std::string t = trim(item);
    if (!t.empty() && (t[0] == '{' || t[0] == '[')) {
        json j;
        if (!parse_json_bounded(t, "input", j, nullptr))
            throw NumberError("not valid JSON: " + t.substr(0, 60));
        const json& arr = j.is_object() ? j.value("embedding", json()) : j;
        if (!arr.is_array()) throw NumberError("no \"embedding\" array in: " + t.substr(0, 60));
        std::vector<double> v;
        for (const auto& x : arr) {
            if (!x.is_number()) throw NumberError("embedding entries must be numbers");
            v.push_back(x.get<double>());
        }
        return v;
    }
    std::vector<double> v;
    std::stringstream ss(t);
    for (std::string cell; std::getline(ss, cell, ',');) {
        std::size_t used = 0;
        const std::string c = trim(cell);
        double value = 0.0;
        try {
            value = std::stod(c, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (c.empty() || used != c.size()) throw NumberError("not a number in the embedding: '" + c + "'");
        v.push_back(value);
    }
    return v;
}

void register_decode(CLI::App& app) {
    auto o = std::make_shared<SpecOptions>();
    auto items = std::make_shared<std::vector<std::string>>();
    auto* cmd = app.add_subcommand(
        "decode", "Recover each number from its FoNE embedding (the exact inverse of encode): JSON lines");
    add_spec_options(cmd, *o);
    // Embeddings are taken raw (not as a CLI11 positional, which would split "[1, 0]" into items).
    cmd->allow_extras();
    cmd->footer(
        "Embeddings: JSON arrays or comma-separated values as arguments; with none, the JSON lines "
        "of `fone encode` (or bare arrays) on stdin.");
    cmd->callback([o, items, cmd] {
        *items = cmd->remaining();
        const FoneSpec spec = finish_spec("decode", *o);
        int failures = 0;
        for (const std::string& item : inputs_or_stdin(*items)) {
            try {
                const auto e = embedding_from_text(item);
                // Accept embeddings zero-padded by `encode --dim`.
                const std::size_t w = static_cast<std::size_t>(spec.width());
                for (std::size_t i = w; i < e.size(); ++i)
                    if (e[i] != 0.0)
                        throw NumberError("non-zero entry past the FoNE width at index " + std::to_string(i));
                const auto used = std::span<const double>(e).first(std::min(e.size(), w));
                print_json_line(std::cout, json{{"value", decode(used, spec).to_string()}});
            } catch (const NumberError& err) {
                print_error("decode", err.what());
                ++failures;
            }
        }
        if (failures) throw CliFailure(std::to_string(failures) + " embedding(s) could not be decoded");
    });
}

json parsed_json(const ParsedText& p) {
    json numbers = json::array();
    for (const ParsedNumber& n : p.numbers)
        numbers.push_back({{"text", n.text},
                           {"value", n.value.to_string()},
                           {"start", n.start},
                           {"end", n.end},
                           {"byte_start", n.byte_start},
                           {"byte_end", n.byte_end}});
    return {{"template", p.templ}, {"numbers", numbers}, {"warnings", p.warnings}};
}

void register_parse(CLI::App& app) {
    auto text = std::make_shared<std::string>();
    auto* cmd = app.add_subcommand("parse", "Find the numbers in TEXT: template with [NUM] and exact values");
    cmd->add_option("text", *text, "Text to parse (none: all of stdin)");
    cmd->callback([text] {
        std::string input = *text;
        if (input.empty()) {
            std::stringstream ss;
            ss << std::cin.rdbuf();
            input = ss.str();
        }
        run_command("parse", [&] { print_json_line(std::cout, parsed_json(parse_numbers(input))); });
    });
}

}  // namespace

void add_number_commands(CLI::App& app) {
    register_encode(app);
    register_decode(app);
    register_parse(app);
}

}  // namespace fone::cli
