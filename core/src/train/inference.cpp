// evaluate_run, predict_run and generate_run: a trained run's model on data, on a prompt, writing text.
#include "fone/train/inference.h"

#include <cmath>
#include <filesystem>
#include <functional>
#include <stdexcept>
#include <unordered_set>

#include "checkpoints/run_model.h"
#include "fone/hf/generate.h"
#include "fone/io/shown_text.h"
#include "fone/numbers/number_parser.h"
#include "fone/store/run_store.h"
#include "fone/tasks/expression.h"
#include "nn/timing.h"
#include "train/text_prompt.h"
#include "train/typed_eval.h"

namespace fone {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// The numbers a generation wrote, as the end event lists them ("12.5", "-3").
json number_values(const ParsedText& found) {
    json values = json::array();
    for (const ParsedNumber& x : found.numbers)
        values.push_back(x.value.to_string());
    return values;
}

// A field of the last "eval" event the run recorded (epoch_seconds: its training seconds per epoch),
// null when it has none (an exported model without metrics, a run stopped before its first evaluation).
json recorded_eval_field(const std::string& run_dir, const char* key) {
    const MetricsFile metrics = read_metrics((fs::path(run_dir) / kMetricsFile).string());
    for (auto it = metrics.records.rbegin(); it != metrics.records.rend(); ++it)
        if (it->value("event", "") == "eval" && it->contains(key)) return (*it)[key];
    const fs::path summary = fs::path(run_dir) / kSummaryFile;
    if (fs::exists(summary)) {
        const json final_eval = read_json_file(summary.string()).value("final", json::object());
        if (final_eval.is_object() && final_eval.contains(key)) return final_eval[key];
    }
    return nullptr;
}

// The text metrics of a text run on its test split or on a file of the user's.
json evaluate_text(AnsweringRun& a, const std::string& data_file, std::size_t max_mispredictions) {
    RunModel& r = a.run;
    const std::vector<TextExample> examples =
        data_file.empty() ? r.text_splits.test : read_text_file(data_file);
    if (examples.empty()) throw std::invalid_argument(data_file + ": no examples");
    const Batch batch = encode_text_split(*r.text, examples, data_file.empty() ? "test split" : data_file);
    json m = r.text->evaluate(r.model, batch, a.device, max_mispredictions);
    m["task"] = r.config.text_task;
    return m;
}

// A fone-adapter run's metrics on its test split or a file of the user's (JSONL or plain text): loss,
// perplexity, the text tokens' perplexity and how often the number pieces are the model's first choice
// (AdapterScheme::evaluate).
json evaluate_adapter(AnsweringRun& a, const std::string& data_file) {
    RunModel& r = a.run;
    const std::vector<TextExample> examples =
        data_file.empty() ? r.text_splits.test : read_text_file(data_file);
    if (examples.empty())
        throw std::invalid_argument((data_file.empty() ? "the test split" : data_file) + ": no examples");
    const Batch batch = r.adapter->encode_text(examples);
    if (batch.n == 0)
        throw std::invalid_argument((data_file.empty() ? "the test split" : data_file) +
                                    ": no text to score (each example is one token or none)");
    json m = r.adapter->evaluate(r.model, batch, a.device);
    m["task"] = r.config.text_task;
    return m;
}

// The arithmetic metrics of a run on its test split or on a dataset file, with its recorded training time.
json evaluate_arithmetic(AnsweringRun& a, const std::string& run_dir, const std::string& data_file,
                         std::size_t max_mispredictions) {
    RunModel& r = a.run;
    std::vector<std::size_t> lines;
    const std::vector<Example> examples =
        data_file.empty() ? r.splits.test : read_dataset_file(data_file, &lines);
    if (examples.empty()) throw std::invalid_argument(data_file + ": no examples");
    Batch batch;
    try {
        batch = r.scheme->encode(examples);
    } catch (const NumberError& e) {
        if (data_file.empty()) throw;
        // A line read well whose numbers the model cannot take (more digits than its slots): name it.
        for (std::size_t i = 0; i < examples.size(); ++i)
            try {
                r.scheme->encode({examples[i]});
            } catch (const NumberError& one) {
                throw NumberError(data_file + ":" + std::to_string(lines[i]) + ": " + one.what());
            }
        throw;
    }
    json m = r.scheme->evaluate(r.model, batch, a.device, max_mispredictions);
    m["tokens_per_number"] = tokens_per_number(*r.scheme, examples);
    m["epoch_seconds"] = recorded_eval_field(run_dir, "epoch_seconds");
    m["epoch_cpu_seconds"] = recorded_eval_field(run_dir, "epoch_cpu_seconds");
    return m;
}

void check_request(const GenerateRequest& r) {
    if (!(r.temperature >= 0) || !std::isfinite(r.temperature))
        throw std::invalid_argument("--temperature must be a number >= 0 (0: greedy)");
    if (r.top_k < 0) throw std::invalid_argument("--top-k must be >= 0 (0: every token)");
    if (r.max_tokens < 1 || r.max_tokens > 100000)
        throw std::invalid_argument("--max-tokens must be in 1..100000");
}

// The "token" events of a generation: each new token with the text it adds (the text decoded so far,
// numbers written by write_number, minus what was handed out before).
class TokenEvents {
  public:
    TokenEvents(const TextTokenizer& tokenizer, const EventSink& sink) : tok_(tokenizer), sink_(sink) {}

    void operator()(std::size_t, const GeneratedToken& g) {
        json e = {{"event", "token"},
                  {"index", index_++},
                  {"id", g.id},
                  {"piece", tok_.piece(g.id)},
                  {"probability", g.probability}};
        std::string delta;
        if (g.id != text_token::kEos) {
            ids_.push_back(g.id);
            if (g.value) values_.push_back(*g.value);
            const std::string now = tok_.decode(ids_, values_);
            // Bytes of a character that is not complete yet decode to U+FFFD: wait for the rest.
            const bool partial = now.ends_with("\xEF\xBF\xBD") && g.id >= 6 && g.id < 262;
            if (!partial && now.starts_with(shown_)) {
                delta = now.substr(shown_.size());
                shown_ = now;
            }
        }
        e["text"] = delta;
        if (g.value) e["number"] = g.value->to_string();
        if (sink_) sink_(e);
    }

  private:
    const TextTokenizer& tok_;
    const EventSink& sink_;
    int index_ = 0;
    std::vector<int> ids_;  // the generated tokens so far, [EOS] left out
    std::vector<Decimal> values_;
    std::string shown_;  // the text handed out so far
};

// A fone-adapter run's continuation of a prompt (the pretrained tokenizer's ids, its special prefix first):
// "token" events as generate_run's, then the same "end" event.
json generate_adapter(AnsweringRun& a, const std::string& run, const GenerateRequest& request,
                      const EventSink& on_token) {
    const AdapterScheme& scheme = *a.run.adapter;
    std::vector<int64_t> prompt;
    try {
        prompt = scheme.ids_of(request.prompt);
    } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(std::string("prompt: ") + e.what());
    }
    AdapterGenerateOptions o;
    o.temperature = request.temperature;
    o.top_k = request.top_k;
    o.max_tokens = request.max_tokens;
    o.seed = request.seed;
    std::vector<int64_t> so_far;
    std::string shown;
    int index = 0;
    const AdapterGeneration g = scheme.generate(a.run.model, prompt, o, [&](int64_t id, double p) {
        so_far.push_back(id);
        // A character not complete yet waits for its next bytes; a byte that fits no character is U+FFFD
        // (and the stream goes on after it).
        const std::string now = complete_utf8(pretrained::decode_ids(scheme.tokenizer(), so_far));
        std::string delta;
        if (now.starts_with(shown)) {
            delta = now.substr(shown.size());
            shown = now;
        }
        if (on_token)
            on_token({{"event", "token"},
                      {"index", index++},
                      {"id", id},
                      {"piece", shown_text(scheme.tokenizer().token_text(id))},
                      {"probability", p},
                      {"text", delta}});
    });
    // As streamed: a generation cut inside a character leaves that character out.
    const std::string whole = complete_utf8(pretrained::decode_ids(scheme.tokenizer(), g.ids));
    return {{"event", "end"},
            {"prompt", request.prompt},
            {"text", whole},
            {"numbers", number_values(parse_numbers(whole))},
            {"tokens", g.ids.size()},
            {"stop", g.stop},
            {"method", a.run.config.method},
            {"run", run},
            {"checkpoint", a.checkpoint}};
}

}  // namespace

// train/text_prompt.h
EncodedText generation_prompt(const TextLmScheme& text, const TrainConfig& config, const GenerateRequest& r) {
    // Whether a text run's examples are prompts with answers (generators, JSONL) or documents (plain text).
    const bool has_prompts = config.text_task != "text" || config.task.data_file.ends_with(".jsonl");
    const bool answer = has_prompts && !r.continue_text;
    if (answer && r.prompt.find_first_not_of(" \t\r\n") == std::string::npos)
        throw std::invalid_argument(
            "the prompt is empty (this run answers prompts; --continue starts from nothing)");
    try {
        return text.prompt_tokens(r.prompt, answer);
    } catch (const NumberError& e) {
        throw NumberError(std::string("prompt: ") + e.what());
    } catch (const TokenizerError& e) {
        throw std::invalid_argument(std::string("prompt: ") + e.what());
    }
}

json evaluate_run(const std::string& run_dir, const std::string& data_file, int threads,
                  std::size_t max_mispredictions) {
    AnsweringRun a = open_for_answers(run_dir, threads, data_file.empty() ? RunData::splits : RunData::none);
    json m;
    switch (a.run.kind) {
        case RunKind::arithmetic:
            m = evaluate_arithmetic(a, run_dir, data_file, max_mispredictions);
            break;
        case RunKind::text:
            m = evaluate_text(a, data_file, max_mispredictions);
            break;
        case RunKind::adapter:
            m = evaluate_adapter(a, data_file);
            break;
    }
    m["method"] = a.run.config.method;
    m["checkpoint"] = a.checkpoint;
    m["data"] = data_file.empty() ? "test split" : data_file;
    // The test split of a file task comes from the run's data file: say when it is not the one trained on.
    if (data_file.empty() && !a.run.data_note.empty()) m["data_note"] = a.run.data_note;
    return m;
}

json evaluate_typed_suite(const std::string& run_dir, int threads, std::size_t per_shape, std::uint64_t seed,
                          std::size_t max_mispredictions) {
    if (per_shape < 1 || per_shape > 100000) throw std::invalid_argument("--per-shape must be in 1..100000");
    AnsweringRun a = open_for_answers(run_dir, threads, RunData::splits);
    RunModel& r = a.run;
    check_answers(fs::path(run_dir).filename().string(), r.config, RunCommand::typed_suite);
    if (!has_typed_sums(r.config.task.kind))
        throw std::invalid_argument(fs::path(run_dir).filename().string() + " is a " + r.config.task_label() +
                                    " run: the typed suite is for dec-add, int-add and sub");
    const TaskKind task = r.config.task.kind;
    const auto t0 = Clock::now();
    const TypedSuiteBatches suite = encode_typed_suite(*r.scheme, task, per_shape, seed);
    std::unordered_set<std::uint64_t> trained;
    for (const Example& e : r.splits.train)
        trained.insert(sum_id(task, e));
    json shapes = json::object(), typed = json::object(), lowest;
    double right = 0;
    std::size_t n = 0;
    for (std::size_t i = 0; i < suite.shapes.size(); ++i) {
        const std::string name = shape_name(suite.shapes[i]);
        json m = r.scheme->evaluate(r.model, suite.batches[i], a.device, max_mispredictions);
        const auto& examples = suite.examples[i];
        json shown = json::array();
        for (std::size_t k = 0; k < std::min<std::size_t>(3, examples.size()); ++k)
            shown.push_back(examples[k].line());
        const auto in_train = std::count_if(examples.begin(), examples.end(), [&](const Example& e) {
            return trained.count(sum_id(task, e)) > 0;
        });
        json shape = {{"exact_match", m["exact_match"]},
                      {"digit_accuracy", m["digit_accuracy"]},
                      {"n", examples.size()},
                      {"in_train", in_train},
                      {"examples", shown}};
        if (max_mispredictions > 0) shape["mispredictions"] = m["mispredictions"];
        shapes[name] = shape;
        typed[name] = m["exact_match"];
        if (lowest.is_null() || m["exact_match"].get<double>() < lowest["exact_match"].get<double>())
            lowest = {{"shape", name}, {"exact_match", m["exact_match"]}};
        right += m["exact_match"].get<double>() * static_cast<double>(examples.size());
        n += examples.size();
    }
    return {{"suite", "typed"},
            {"task", r.config.task_label()},
            {"seed", seed},
            {"per_shape", per_shape},
            {"n", n},
            {"exact_match", n > 0 ? right / static_cast<double>(n) : 0.0},
            {"lowest", lowest},
            {"typed", typed},
            {"shapes", shapes},
            {"method", r.config.method},
            {"checkpoint", a.checkpoint},
            {"eval_seconds", seconds_since(t0)}};
}

json predict_run(const std::string& run_dir, const std::string& prompt, int threads) {
    AnsweringRun a = open_for_answers(run_dir, threads, RunData::none);
    RunModel& r = a.run;
    check_answers(fs::path(run_dir).filename().string(), r.config, RunCommand::predict);
    // A whole question ("1+2", "5" and "1+2=3=4+5" are not): refused with why. The scheme encodes the
    // words read here instead of parsing the prompt again.
    const Batch b = r.scheme->encode_parsed_prompt({prompt, parse_prompt(prompt)});
    json out = r.scheme->explain(r.model, to_device(b, a.device));
    json tokens = json::array();
    const auto row = (b.prompt.defined() ? b.prompt : b.in.tokens)[0];
    for (int64_t k = 0; k < row.size(0); ++k)
        tokens.push_back(r.scheme->vocabulary()[static_cast<std::size_t>(row[k].item<int64_t>())]);
    out["prompt"] = prompt;
    out["tokens"] = tokens;
    out["method"] = r.config.method;
    out["checkpoint"] = a.checkpoint;
    return out;
}

json generate_run(const std::string& run_dir, const GenerateRequest& request, const EventSink& on_token) {
    check_request(request);
    AnsweringRun a = open_for_answers(run_dir, request.threads, RunData::none);
    RunModel& r = a.run;
    const std::string run = fs::path(run_dir).filename().string();
    check_answers(run, r.config, RunCommand::generate);
    if (r.kind == RunKind::adapter) return generate_adapter(a, run, request, on_token);
    const EncodedText prompt = generation_prompt(*r.text, r.config, request);
    GenerateOptions o;
    o.temperature = request.temperature;
    o.top_k = request.top_k;
    o.max_tokens = request.max_tokens;
    o.seed = request.seed;
    TokenEvents events(r.text->tokenizer(), on_token);
    const Generation g = r.text->generate(r.model, {prompt}, o, std::ref(events))[0];
    const std::string whole = r.text->generated_text(g);
    return {{"event", "end"},
            {"prompt", request.prompt},
            {"text", whole},
            {"numbers", number_values(parse_numbers(whole, r.text->tokenizer().number_limits()))},
            {"tokens", g.ids.size()},
            {"stop", g.ended              ? "eos"
                     : g.out_of_positions ? "max_seq"
                                          : "max_tokens"},
            {"method", r.config.method},
            {"run", run},
            {"checkpoint", a.checkpoint}};
}

}  // namespace fone
