#include "fone/store/train_config.h"

#include <algorithm>
#include <map>
#include <sstream>
#include <stdexcept>

#include "fone/io/json_bounded.h"
#include "fone/store/run_store.h"
#include "fone/tasks/typed_sums.h"
#include "fone/text/text_data.h"
#include "io/json_fields.h"

namespace fone {
namespace {

// "a, b or c": the methods whose row says yes, as the errors list them.
template <typename Pred>
std::string methods_where(Pred pred) {
    std::vector<std::string> names;
    for (const NumberMethod& m : number_methods())
        if (pred(m)) names.push_back(m.name);
    std::string out;
    for (std::size_t i = 0; i < names.size(); ++i)
        out += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
    return out;
}

std::string text_method_list() {
    return methods_where([](const NumberMethod& m) { return m.text; });
}

std::string init_from_method_list() {
    return methods_where([](const NumberMethod& m) { return m.init_from; });
}

const char* const kShapeKeys[] = {"hidden", "layers", "heads", "kv_heads", "intermediate"};

nlohmann::json merge(nlohmann::json base, const nlohmann::json& layer) {
    for (auto it = layer.begin(); it != layer.end(); ++it) {
        if (it.key() == "model" && it->is_object() && base.contains("model") && base["model"].is_object())
            for (auto m = it->begin(); m != it->end(); ++m)
                base["model"][m.key()] = *m;
        else
            base[it.key()] = *it;
    }
    return base;
}

}  // namespace

std::size_t default_train_size(const std::string& task) {
    if (task == "word-problems") return kWordProblemTrainSize;
    return is_text_training_task(task) ? kDefaultTextTrainSize : kDefaultTrainSize;
}

std::string TrainConfig::task_label() const {
    return is_text() ? text_task : task_name(task.kind);
}

bool TrainConfig::writes_subword_chunks() const {
    return number_pieces(method, to_json()) == "subword";
}

namespace {

// The settings of the methods of issue 19 (BitTokens, NumeroLogic, right-to-left chunks).
void check_peer_methods(const TrainConfig& c, std::vector<std::string>& problems) {
    auto check = [&](bool ok, const std::string& why) {
        if (!ok) problems.push_back(why);
    };
    check(c.numerologic_tokens == "digit" || c.numerologic_tokens == "subword",
          "numerologic_tokens: must be \"digit\" or \"subword\"");
    check(c.subword_direction == "l2r" || c.subword_direction == "r2l",
          "subword_direction: must be \"l2r\" or \"r2l\"");
    check(c.subword_direction != "r2l" || (c.writes_subword_chunks() && !c.is_text()),
          "subword_direction: r2l cuts subword chunks: methods subword, ntl with ntl_tokens subword, or "
          "numerologic with numerologic_tokens subword, on an arithmetic task (text runs cut left to right)");
    // The method's own settings, as its row checks them (fone/store/methods.h).
    const NumberMethod* row = find_number_method(c.method);
    if (row && row->settings_problem) {
        const std::string why = row->settings_problem(c);
        check(why.empty(), why);
    }
}

}  // namespace

void TrainConfig::validate() const {
    std::vector<std::string> problems;
    auto check = [&](bool ok, const std::string& why) {
        if (!ok) problems.push_back(why);
    };
    const NumberMethod* row = find_number_method(method);
    check(row != nullptr, "method: unknown method '" + method + "' (" + method_list_text() + ")");
    check(train_size >= 1 && train_size <= 100000000, "train_size: must be in 1..100000000");
    check(test_size >= 1 && test_size <= 10000000, "test_size: must be in 1..10000000");
    check(val_size <= 10000000, "val_size: must be in 0..10000000");
    if (!name.empty()) {
        const std::string why = run_name_problem(name);
        check(why.empty(), "name: " + why);
    }
    check(size_level >= 0 && size_level <= 6, "size_level: must be 1..6 (or 0 for a custom shape)");
    check(epochs >= 1 && epochs <= 100000, "epochs: must be in 1..100000");
    check(lr > 0 && lr < 10, "lr: must be in (0, 10)");
    check(batch >= 1 && batch <= (1u << 20), "batch: must be in 1..1048576");
    check(warmup >= 0 && warmup < 1, "warmup: must be a fraction in [0, 1)");
    check(schedule == "cosine" || schedule == "constant", "schedule: must be \"cosine\" or \"constant\"");
    check(clip >= 0, "clip: must not be negative (0 turns clipping off)");
    check(weight_decay >= 0, "weight_decay: must not be negative");
    check(beta1 >= 0 && beta1 < 1 && beta2 >= 0 && beta2 < 1, "beta1, beta2: must be in [0, 1)");
    check(device == "auto" || device == "cpu" || device == "cuda", "device: must be auto, cpu or cuda");
    check(precision == "fp32" || precision == "bf16", "precision: must be fp32 or bf16");
    check(threads >= 0 && threads <= 1024, "threads: must be in 0..1024 (0: auto, from the CPUs free)");
    check(target_acc >= 0 && target_acc <= 1, "target_acc: must be a fraction in [0, 1]");
    check(eval_every >= 0 && checkpoint_every >= 0, "eval_every, checkpoint_every: must not be negative");
    check(snapshots == "representations" || snapshots == "none",
          "snapshots: must be \"representations\" or \"none\"");
    check(task.kind != TaskKind::file || !task.data_file.empty(), "data: the file task needs --data FILE");
    check(task.modulus >= 2, "modulus: must be at least 2");
    check(task.long_digits >= 1 && task.long_digits <= 1000, "long_digits: must be in 1..1000");
    check(task.sampling == "uniform" || task.sampling == "typed",
          "sampling: must be \"uniform\" or \"typed\"");
    check(task.sampling != "typed" || (!is_text() && has_typed_sums(task.kind)),
          "sampling: typed sums are for dec-add, int-add and sub (" + task_label() + " samples uniformly)");
    if (task.sampling == "typed" && !is_text() && has_typed_sums(task.kind)) {
        try {
            validate_shape_weights(task.kind, task.sampling_weights);
        } catch (const std::invalid_argument& e) {
            problems.push_back(e.what());
        }
    }
    check(task.sampling == "typed" || task.sampling_weights.empty(),
          "sampling_weights: go with sampling typed");
    check(period_base >= 2 && period_base <= 36, "period_base: must be in 2..36");
    check(int_digits >= -1 && int_digits <= 1000, "int_digits: must be in 0..1000 (or -1: the task's)");
    check(frac_digits >= -1 && frac_digits <= 1000, "frac_digits: must be in 0..1000 (or -1: the task's)");
    check(ntl_lambda >= 0 && ntl_lambda <= 100, "ntl_lambda: must be in [0, 100]");
    check(ntl_tokens == "digit" || ntl_tokens == "subword", "ntl_tokens: must be \"digit\" or \"subword\"");
    check(abacus_max_offset >= 0 && abacus_max_offset <= 1000, "abacus_max_offset: must be in 0..1000");
    const bool adapter = is_adapter_method(method);
    check(!adapter || (is_text() && !init_from.empty()),
          "method " + method +
              ": adds FoNE to a pretrained model's own tokens: it needs --init-from DIR and a "
              "text task (--task text --data FILE)");
    check(align_steps >= -1, "align_steps: must be -1 (the whole run) or a number of steps");
    check(cpu_seconds >= 0 && cpu_seconds <= 1e9, "cpu_seconds: must be in [0, 1e9] (0: no budget)");
    check(!strict_numbers || is_text(), "strict_numbers: goes with a text task (numbers in text)");
    if (!init_from.empty()) {
        check(!is_text() || adapter,
              "init_from: a text task trains its own tokenizer; --init-from takes an arithmetic task (or "
              "--method fone-adapter, which keeps the model's tokens)");
        check(method_takes_init_from(method),
              "init_from: --init-from takes --method " + init_from_method_list() + ", not '" + method + "'");
    }
    check_peer_methods(*this, problems);
    if (is_text()) {
        check(is_text_training_task(text_task), "task: unknown text task '" + text_task + "'");
        check(!row || row->text, "method: text tasks take " + text_method_list() + ", not '" + method + "'");
        check(text_task != "text" || !task.data_file.empty(),
              "data: --task text needs --data FILE (JSONL of {\"prompt\", \"answer\"} or plain text)");
        check(text_task == "text" || task.data_file.empty(),
              "data: --task " + text_task + " generates its data; --data goes with --task text");
        check(!swap_operands, "swap_operands: text tasks have no operands to swap");
        check(period_multipliers.empty() && period_base == 10,
              "period_base, period_multipliers: text tasks use the plain base-10 periods");
    }
    check(digit_loss_weight >= 0 && digit_loss_weight <= 1000, "digit_loss_weight: must be in [0, 1000]");
    check(text_vocab_size >= 300 && text_vocab_size <= 1000000, "text_vocab_size: must be in 300..1000000");
    check(text_loss == "all" || text_loss == "answer", "text_loss: must be \"all\" or \"answer\"");
    check(text_context == 0 || (text_context >= 64 && text_context <= 65536),
          "text_context: must be 0 (no packing) or 64..65536 tokens");
    // text/'s own rule, checked here too so that a bad config is refused before a run directory is made.
    if (const std::string why = drills_problem(is_text() ? text_task : task_label(), drills); !why.empty())
        problems.push_back("drills: " + why);
    try {
        model.validate();
    } catch (const std::invalid_argument& e) {
        problems.push_back(e.what());
    }
    if (!problems.empty()) {
        std::ostringstream out;
        for (std::size_t i = 0; i < problems.size(); ++i)
            out << (i ? "\n" : "") << problems[i];
        throw std::invalid_argument(out.str());
    }
}

namespace {

// TrainConfig's fields but "task" (a name that is an arithmetic task or a text task: written from
// task_label(), read below), once (json_fields.h). The task options sit under their own keys.
constexpr auto train_fields = [](auto& c, auto&& field) {
    field("modulus", c.task.modulus);
    field("classify_d", c.task.classify_d);
    field("long_digits", c.task.long_digits);
    field("data", c.task.data_file);
    field("sampling", c.task.sampling);
    field("sampling_weights", c.task.sampling_weights);
    field("data_digest", c.data_digest);
    field("method", c.method);
    field("train_size", c.train_size);
    field("val_size", c.val_size);
    field("test_size", c.test_size);
    field("size_level", c.size_level);
    field("model", c.model);
    field("init_from", c.init_from);
    field("epochs", c.epochs);
    field("lr", c.lr);
    field("batch", c.batch);
    field("warmup", c.warmup);
    field("schedule", c.schedule);
    field("clip", c.clip);
    field("weight_decay", c.weight_decay);
    field("beta1", c.beta1);
    field("beta2", c.beta2);
    field("swap_operands", c.swap_operands);
    field("seed", c.seed);
    field("device", c.device);
    field("precision", c.precision);
    field("threads", c.threads);
    field("target_acc", c.target_acc);
    field("eval_every", c.eval_every);
    field("checkpoint_every", c.checkpoint_every);
    field("snapshots", c.snapshots);
    field("name", c.name);
    field("preset", c.preset);
    field("int_digits", c.int_digits);
    field("frac_digits", c.frac_digits);
    field("period_base", c.period_base);
    field("period_multipliers", c.period_multipliers);
    field("ntl_lambda", c.ntl_lambda);
    field("ntl_tokens", c.ntl_tokens);
    field("abacus_max_offset", c.abacus_max_offset);
    field("subword_direction", c.subword_direction);
    field("numerologic_tokens", c.numerologic_tokens);
    field("bittokens_reciprocal", c.bittokens_reciprocal);
    field("digit_loss_weight", c.digit_loss_weight);
    field("text_vocab_size", c.text_vocab_size);
    field("text_loss", c.text_loss);
    field("drills", c.drills);
    field("text_context", c.text_context);
    field("align_steps", c.align_steps);
    field("strict_numbers", c.strict_numbers);
    field("cpu_seconds", c.cpu_seconds);
};

}  // namespace

nlohmann::json TrainConfig::to_json() const {
    nlohmann::json j = {{"task", task_label()}};
    detail::write_fields(j, *this, train_fields);
    return j;
}

TrainConfig TrainConfig::from_json(const nlohmann::json& j) {
    TrainConfig c;
    detail::JsonFields f(j, "config");
    std::string task = task_name(c.task.kind);
    f.read("task", task);
    if (is_text_training_task(task)) {
        c.text_task = task;
    } else {
        try {
            c.task.kind = task_from_name(task);
        } catch (const std::invalid_argument& e) {
            throw std::invalid_argument(std::string("config: \"task\": ") + e.what() +
                                        " (text: text, word-problems, units, tables)");
        }
    }
    detail::read_fields(f, j, c, train_fields);
    f.reject_unknown();
    return c;
}

namespace {

// Text tasks (docs/text.md, "Defaults for text tasks", has the runs they come from): the small model of
// the arithmetic tasks (hidden 64, 2 layers, 2 query heads of width 32 sharing one key-value head, SwiGLU
// 256), whose steps cost half those of the earlier width-128 model, so a CPU budget buys twice the steps;
// the loss on the answer only (the prompt's numbers are random draws: predicting them taught nothing,
// and for fone two thirds of the digit loss was on them); batches of 64 sequences, evaluation (free
// generation of every test answer) four times an epoch on a test split of 200.
nlohmann::json default_text_settings(const std::string& task, std::size_t train_size) {
    nlohmann::json d = {{"task", task},
                        {"train_size", train_size},
                        {"val_size", 0},
                        {"test_size", 200},
                        {"size_level", 0},
                        {"model",
                         {{"hidden", 64},
                          {"layers", 2},
                          {"heads", 2},
                          {"kv_heads", 1},
                          {"intermediate", 256},
                          {"head_dim", 32},
                          {"init_std", 0.0},
                          {"head_temperature", true},
                          {"head_temperature_init", 1.0}}},
                        {"lr", 3e-3},
                        {"batch", 64},
                        {"warmup", 0.05},
                        {"schedule", "cosine"},
                        {"clip", 1.0},
                        {"weight_decay", 0.01},
                        {"swap_operands", false},
                        {"text_loss", "answer"},
                        {"epochs", 4},
                        {"eval_every", std::max<std::size_t>(1, train_size / 64 / 4)}};
    // Word problems: three in four training examples are drills, bare sums with the additive templates'
    // operands, and FoNE's digit loss weighs ten times the text's: with both, the sentences' additions and
    // subtractions are learnt within 300 CPU s; with either alone, not (docs/text.md, "Drills").
    // Their length: as long as the comparison's runs (300 CPU s on 1 thread, 3,770 steps of fresh problems),
    // one pass over 240,000 problems by default, more passes over fewer.
    // Documents (--task text) are packed into windows of 256 tokens: 4 x a 64-wide model's width, the
    // length at which one batch of 64 windows costs about as much as the model's other work.
    if (task == "text") d["text_context"] = 256;
    if (task == "word-problems") {
        d["drills"] = kWordProblemDrills;
        d["digit_loss_weight"] = 10.0;
        // (train_size 0 is refused by validate; one epoch keeps that the only error.)
        const std::size_t epochs =
            train_size == 0 ? 1 : std::max<std::size_t>(1, kWordProblemTrainSize / train_size);
        d["epochs"] = epochs;
        d["eval_every"] = std::max<std::size_t>(1, train_size * epochs / 64 / 4);
    }
    return d;
}

}  // namespace

nlohmann::json settings_object(nlohmann::json j, const std::string& where) {
    if (!j.is_object())
        throw std::invalid_argument(
            where + ": a config file is a JSON object of settings, not " +
            std::string(j.type_name() == std::string("array") ? "a list" : j.type_name()));
    j.erase("versions");  // a run's config.json can be used as is
    return j;
}

nlohmann::json read_config_file(const std::string& path) {
    return settings_object(read_json_file(path), path);
}

nlohmann::json config_settings_from_text(const std::string& text, const std::string& where) {
    nlohmann::json j;
    std::string error;
    if (!parse_json_bounded(text, where, j, &error)) throw RunError(error);  // depth limited, one line
    return settings_object(std::move(j), where);
}

namespace {

bool has_typed_sums_name(const std::string& task) {
    const auto arithmetic = task_names();
    return std::find(arithmetic.begin(), arithmetic.end(), task) != arithmetic.end() &&
           has_typed_sums(task_from_name(task));
}

// Typed sampling shows the uniform sums half as often: from 51,200 it reaches 99% on both the paper's
// test split and every typed shape at about 6.5 epochs, where uniform sampling took 4 (docs/training.md).
int default_epochs(std::size_t train_size, bool typed) {
    if (train_size >= 25600) return typed ? 10 : 5;
    return train_size >= 12800 ? 40 : 100;
}

// Below 12,800 typed examples, batch 128: twice the steps an epoch. At batch 256 one seed of three
// plateaued at 98.1% from 6,400 (docs/training.md); uniform sampling keeps the paper-recipe 256.
std::size_t default_batch(std::size_t train_size, bool typed) {
    return typed && train_size < 12800 ? 128 : 256;
}

// Below 12,800 typed examples, 3 layers: with 2, seed 2 of 3 plateaued at 98.7-98.85% from 6,400 even at
// batch 128; with 3 all three seeds reach 99% (docs/training.md). Uniform sampling keeps 2.
int default_layers(std::size_t train_size, bool typed) {
    return typed && train_size < 12800 ? 3 : 2;
}

}  // namespace

nlohmann::json default_train_settings(const std::string& task, std::size_t train_size) {
    if (is_text_training_task(task)) return default_text_settings(task, train_size);
    // Measured on 2 CPU cores, 6-digit decimal addition (docs/training.md has the runs): a small model
    // (hidden 64, 2 layers, 2 query heads of width 32 sharing one key-value head: attention as wide as the
    // model; LibTorch's default initialisation, which suits a narrow model better than Llama's std 0.02)
    // at batch 256 and lr 3e-3 with 10% warm-up and cosine. Batch 128, or lr 5e-3, leave one digit
    // position at chance in some runs of that model; batch 512 needs more epochs; 4 heads of width 64
    // learn the same per epoch at half the speed. Small sets (6,400) need more: a wider model (hidden 128,
    // heads of width 64), 100 epochs, b+a swaps and a fixed digit-logit scale reach 99% where the small
    // one plateaus at 98.7-98.9%; on typed sums, batch 128 too (default_batch).
    const bool small = train_size < 25600;
    nlohmann::json d = {{"task", task},
                        {"train_size", train_size},
                        {"size_level", 0},
                        {"model",
                         {{"hidden", small ? 128 : 64},
                          {"layers", default_layers(train_size, has_typed_sums_name(task))},
                          {"heads", 2},
                          {"kv_heads", 1},
                          {"intermediate", small ? 512 : 256},
                          {"head_dim", small ? 64 : 32},
                          {"init_std", 0.0},
                          // Small data: a fixed digit-logit scale; a learned one grows and overfits.
                          {"head_temperature", !small},
                          {"head_temperature_init", small ? 4.0 : 1.0}}},
                        {"lr", 3e-3},
                        {"batch", default_batch(train_size, has_typed_sums_name(task))},
                        {"warmup", 0.1},
                        {"schedule", "cosine"},
                        {"clip", 1.0},
                        {"weight_decay", 0.01},
                        // Small data: b+a for every a+b doubles it (97.3% -> 98.9% from 6,400).
                        {"swap_operands", small},
                        // Evaluate four times an epoch on large sets, so a --target-acc run stops soon after.
                        {"eval_every", small ? 0 : std::max<std::size_t>(1, train_size / 256 / 4)}};
    d["epochs"] = default_epochs(train_size, has_typed_sums_name(task));
    // Addition and subtraction train on the sums people type (typed_sums.h); the weights are recorded in
    // the run's config, so that the run can always draw its data again.
    if (has_typed_sums_name(task)) {
        d["sampling"] = "typed";
        d["sampling_weights"] = default_shape_weights(task_from_name(task), train_size);
    }
    if (task == "long-add") {
        // 60-digit operands: 61 digit slots need 123 entries of the hidden state; the paper used 8 layers.
        d["model"]["hidden"] = 256;
        d["model"]["layers"] = 4;
        d["model"]["heads"] = 4;
        d["model"]["kv_heads"] = 2;
        d["model"]["head_dim"] = 64;
        d["model"]["intermediate"] = 1024;
    }
    return d;
}

nlohmann::json pretrained_train_settings() {
    return {{"lr", 5e-5}, {"batch", 200}, {"warmup", 0.2}, {"schedule", "cosine"}, {"swap_operands", false}};
}

std::vector<std::string> preset_names() {
    return {"fast", "paper"};
}

nlohmann::json preset_settings(const std::string& preset) {
    if (preset == "fast") return {{"preset", "fast"}};
    if (preset == "paper")
        // The paper's appendix H and its reference code: Llama-style init, a learnable LayerNorm before
        // the digit head and no temperature, no augmentation, one evaluation per epoch.
        return {{"preset", "paper"},
                {"size_level", 4},
                {"lr", 5e-3},
                {"batch", 512},
                {"epochs", 100},
                {"warmup", 0.2},
                {"clip", 1.0},
                {"schedule", "cosine"},
                {"weight_decay", 0.01},
                {"swap_operands", false},
                {"sampling", "uniform"},
                {"eval_every", 0},
                {"model",
                 {{"init_std", 0.02},
                  {"head_norm", "layernorm"},
                  {"head_temperature", false},
                  {"head_temperature_init", 1.0}}}};
    throw std::invalid_argument("unknown preset '" + preset + "' (presets: fast, paper)");
}

namespace {

// Where each key's value came from: "lr", "model.hidden" -> "preset paper". A "model" that is not an
// object (bad input, refused below) is the one entry "model".
using Sources = std::map<std::string, std::string>;

void erase_model_sources(Sources& sources) {
    for (auto it = sources.begin(); it != sources.end();)
        it = it->first == "model" || it->first.rfind("model.", 0) == 0 ? sources.erase(it) : std::next(it);
}

// merge(), and `source` for every key the layer sets. A "model" that replaces the whole object (merge's
// other case) leaves no key of the one before it.
void merge_sourced(nlohmann::json& base, const nlohmann::json& layer, const std::string& source,
                   Sources& sources) {
    for (auto it = layer.begin(); it != layer.end(); ++it) {
        if (it.key() != "model") {
            sources[it.key()] = source;
            continue;
        }
        if (!(it->is_object() && base.contains("model") && base["model"].is_object()))
            erase_model_sources(sources);
        if (!it->is_object()) sources["model"] = source;
        for (auto m = it->begin(); it->is_object() && m != it->end(); ++m)
            sources["model." + m.key()] = source;
    }
    base = merge(std::move(base), layer);
}

std::string source_of(const Sources& sources, const std::string& key) {
    const auto it = sources.find(key);
    return it == sources.end() ? kSourceDefault : it->second;
}

// The callers' layers merged, later wins, with their sources; the keys read before from_json checks them
// checked here: a wrong type is the same clear error from_json gives.
nlohmann::json merge_layers(const std::vector<SettingsLayer>& layers, Sources& sources) {
    nlohmann::json named = nlohmann::json::object();
    for (const auto& [source, l] : layers) {
        // A config file holding a list or a number is not a set of settings: say so, naming nothing else.
        if (!l.is_object()) throw std::invalid_argument("config: expected a JSON object of settings");
        merge_sourced(named, l, source, sources);
    }
    if (named.contains("task") && !named["task"].is_string())
        throw std::invalid_argument("config: \"task\": expected a string");
    if (named.contains("preset") && !named["preset"].is_string() && !named["preset"].is_null())
        throw std::invalid_argument("config: \"preset\": expected a string");
    if (named.contains("size_level") && !named["size_level"].is_number_integer() &&
        !named["size_level"].is_null())
        throw std::invalid_argument("config: \"size_level\": expected an integer");
    return named;
}

bool names_nonempty(const nlohmann::json& named, const char* key) {
    return named.contains(key) && named[key].is_string() && !named[key].get<std::string>().empty();
}

// The default mixture's weights, its epochs and its batch, go with typed sampling only: --sampling
// uniform keeps the paper's recipe (reproductions are unchanged).
void apply_sampling_defaults(nlohmann::json& all, const nlohmann::json& named, const std::string& task,
                             std::size_t train_size, Sources& sources) {
    const bool typed = all.contains("sampling") && all["sampling"] == "typed";
    if (!typed && !named.contains("sampling_weights")) {
        all.erase("sampling_weights");
        sources.erase("sampling_weights");
    }
    const bool paper = named.contains("preset") && named["preset"] == "paper";
    if (typed || !has_typed_sums_name(task) || paper) return;
    const bool named_layers =
        named.contains("model") && named["model"].is_object() && named["model"].contains("layers");
    if (!named.contains("epochs")) {
        all["epochs"] = default_epochs(train_size, false);
        sources["epochs"] = kSourceTaskDefault;
    }
    if (!named.contains("batch")) {
        all["batch"] = default_batch(train_size, false);
        sources["batch"] = kSourceTaskDefault;
    }
    if (!named_layers && all["model"].is_object()) {
        all["model"]["layers"] = default_layers(train_size, false);
        sources["model.layers"] = kSourceTaskDefault;
    }
}

// A size level sets the shape (its keys take the level's source); shape keys given explicitly after it
// make the model custom.
void apply_size_level(nlohmann::json& all, const nlohmann::json& named, Sources& sources) {
    // "model" must be an object before the size level writes into it ("model": 2 is bad input, not a crash).
    if (all.contains("model") && !all["model"].is_object())
        throw std::invalid_argument("model: expected a JSON object");
    const nlohmann::json& level_value = all["size_level"];
    const long long level = level_value.is_number_integer() ? level_value.get<long long>() : 0;
    if (level <= 0 || level > 6) return;
    for (const char* k : kShapeKeys)
        if (named.contains("model") && named["model"].contains(k)) {
            all["size_level"] = 0;
            sources["size_level"] = source_of(sources, std::string("model.") + k);
            return;
        }
    const ModelConfig shape = size_level(static_cast<int>(level));
    nlohmann::json& m = all["model"];
    m["hidden"] = shape.hidden;
    m["layers"] = shape.layers;
    m["heads"] = shape.heads;
    m["kv_heads"] = shape.kv_heads;
    m["intermediate"] = shape.intermediate;
    m["head_dim"] = shape.head_dim;  // the paper's models: Llama-3.2's 64
    const std::string from = source_of(sources, "size_level");
    for (const char* k : {"hidden", "layers", "heads", "kv_heads", "intermediate", "head_dim"})
        sources[std::string("model.") + k] = from;
}

// Every key of a config (TrainConfig::to_json), the "model" object's one by one, with its source.
std::vector<SourcedSetting> sourced_settings(const nlohmann::json& config, const Sources& sources) {
    std::vector<SourcedSetting> out;
    for (auto it = config.begin(); it != config.end(); ++it) {
        if (it.key() != "model" || !it->is_object()) {
            out.push_back({it.key(), *it, source_of(sources, it.key())});
            continue;
        }
        for (auto m = it->begin(); m != it->end(); ++m)
            out.push_back({"model." + m.key(), *m, source_of(sources, "model." + m.key())});
    }
    return out;
}

}  // namespace

const SourcedSetting* ResolvedSettings::find(const std::string& key) const {
    for (const SourcedSetting& s : settings)
        if (s.key == key) return &s;
    return nullptr;
}

nlohmann::json ResolvedSettings::to_json() const {
    nlohmann::json sources = nlohmann::json::object();
    for (const SourcedSetting& s : settings)
        sources[s.key] = s.source;
    return {{"config", config.to_json()}, {"sources", sources}};
}

ResolvedSettings resolve_with_sources(const std::vector<SettingsLayer>& layers, bool validate) {
    Sources given;
    const nlohmann::json named = merge_layers(layers, given);
    const std::string task = named.value("task", std::string("dec-add"));
    const bool sized = named.contains("train_size") && named["train_size"].is_number_integer() &&
                       named["train_size"].get<long long>() >= 0;
    const std::size_t train_size = sized ? named["train_size"].get<std::size_t>() : default_train_size(task);
    Sources sources;
    nlohmann::json all = nlohmann::json::object();
    merge_sourced(all, default_train_settings(task, train_size), kSourceTaskDefault, sources);
    sources.erase("task");  // the task itself is the plain default, dec-add, when no layer names one
    if (names_nonempty(named, "init_from"))
        merge_sourced(all, pretrained_train_settings(), kSourcePretrained, sources);
    // "" is what a run's config.json records when no preset was named.
    if (names_nonempty(named, "preset")) {
        const std::string preset = named["preset"].get<std::string>();
        merge_sourced(all, preset_settings(preset), "preset " + preset, sources);
    }
    merge_sourced(all, named, "", sources);
    for (const auto& [key, source] : given)
        sources[key] = source;
    apply_sampling_defaults(all, named, task, train_size, sources);
    apply_size_level(all, named, sources);
    ResolvedSettings r;
    r.config = TrainConfig::from_json(all);
    if (validate) r.config.validate();
    r.settings = sourced_settings(r.config.to_json(), sources);
    return r;
}

TrainConfig resolve_train_config(const std::vector<nlohmann::json>& layers) {
    std::vector<SettingsLayer> labelled;
    labelled.reserve(layers.size());
    for (const nlohmann::json& l : layers)
        labelled.emplace_back("settings", l);
    return resolve_with_sources(labelled).config;
}

}  // namespace fone
