#include "checkpoints/run_model.h"
#include "checkpoints/export_files.h"

#include <algorithm>
#include <filesystem>
#include <optional>

#include "fone/io/file_read.h"
#include "fone/io/json_bounded.h"
#include "fone/io/json_files.h"
#include "fone/nn/device.h"
#include "fone/store/run_store.h"
#include "fone/text/corpus.h"
#include "hf/init_from.h"
#include "nn/device_setup.h"
#include "schemes/adapter_scheme.h"

namespace fone {
namespace {

namespace fs = std::filesystem;

// "" when the run's data file is the one it started with (or it has none recorded), else what changed.
std::string data_file_change(const TrainConfig& c) {
    if (c.data_digest.empty()) return "";
    std::string error;
    const std::string now = data_digest(c.task.data_file, &error);
    if (now.empty()) return "the run's data file is not readable now (" + error + ")";
    if (now == c.data_digest) return "";
    return "the run's data file " + c.task.data_file + " changed since the run started (its digest was " +
           c.data_digest + ", now " + now + ")";
}

Splits load_splits(const TrainConfig& c) {
    if (c.task.kind == TaskKind::file)
        return split_dataset(read_dataset_file(c.task.data_file), c.train_size, c.val_size, c.test_size,
                             c.seed);
    return generate_splits(c.task, c.train_size, c.val_size, c.test_size, c.seed);
}

FoneSpec spec_for(const TrainConfig& c, const Splits& s) {
    FoneSpec spec = task_spec(c.task, {&s.train, &s.val, &s.test});
    if (c.int_digits >= 0) spec.int_digits = c.int_digits;
    if (c.frac_digits >= 0) spec.frac_digits = c.frac_digits;
    spec.base = c.period_base;
    spec.multipliers = c.period_multipliers;
    spec.validate();
    return spec;
}

// a+b and b+a for every commutative training example (a*b too): twice the data for free.
std::vector<Example> with_swaps(std::vector<Example> train) {
    const std::size_t n = train.size();
    for (std::size_t i = 0; i < n; ++i) {
        const Example& e = train[i];
        if (e.operands.size() == 2 && (e.ops[0] == "+" || e.ops[0] == "*") &&
            !(e.operands[0] == e.operands[1])) {
            Example s = e;
            std::swap(s.operands[0], s.operands[1]);
            train.push_back(s);
        }
    }
    return train;
}

// An arithmetic run's data (as asked, or a file task's file), digit slots and scheme.
void open_arithmetic(RunModel& r, RunData data) {
    // Generated tasks know their digit slots without data; file tasks need the file to derive them.
    if (data != RunData::none || r.config.task.kind == TaskKind::file) r.splits = load_splits(r.config);
    r.spec = spec_for(r.config, r.splits);
    r.scheme = make_scheme(r.config, r.spec, task_extra_ops(r.config.task, r.splits));
    if (data != RunData::batches) return;
    r.train = r.scheme->encode(r.config.swap_operands ? with_swaps(r.splits.train) : r.splits.train);
    r.val = r.scheme->encode(r.splits.val);
    r.test = r.scheme->encode(r.splits.test);
}

// A trained text run's tokenizer, from its run directory.
TextTokenizer run_tokenizer(const std::string& run_dir, const TrainConfig& c) {
    const std::string path = (fs::path(run_dir) / kTokenizerFile).string();
    if (!fs::exists(path))
        throw RunError(path + ": missing (a text run keeps the tokenizer it was trained with there)");
    try {
        return TextTokenizer::load(path, text_tokens_of(c.method));
    } catch (const TokenizerError& e) {
        throw RunError(e.what());
    }
}

// A text run's data, tokenizer, digit slots and scheme. A new run's tokenizer is trained on its train split
// when the run starts and kept in the run directory, so that a resumed run, eval and generate use exactly
// it; its digit slots fit the corpus and are recorded in its config (every checkpoint then has them:
// generation needs no data).
void open_text(RunModel& r, const std::string& run_dir, RunData data, bool new_run) {
    if (data != RunData::none || new_run) r.text_splits = load_text_splits(r.config);
    std::optional<TextTokenizer> tokenizer;
    if (new_run) {
        r.spec = text_spec(r.config, r.text_splits);
        r.config.int_digits = r.spec.int_digits;
        r.config.frac_digits = r.spec.frac_digits;
        TokenizerOptions options;
        options.vocab_size = r.config.text_vocab_size;
        options.number_limits = {r.spec.int_digits, r.spec.frac_digits};  // longer numbers are text
        // The runs of a store that train on the same text share one trained tokenizer (the same model).
        if (!run_dir.empty()) options.cache_dir = (fs::path(run_dir).parent_path() / ".tokenizers").string();
        tokenizer = TextTokenizer::train(r.text_splits.train, text_tokens_of(r.config.method), options);
        tokenizer->save((fs::path(run_dir) / kTokenizerFile).string());
    } else {
        tokenizer = run_tokenizer(run_dir, r.config);
        r.spec = text_spec(r.config);
    }
    auto text = std::make_unique<TextLmScheme>(*tokenizer, r.spec, r.config);
    if (data == RunData::batches) {
        r.train = encode_text_split(*text, r.text_splits.train, "train split");
        r.val = encode_text_split(*text, r.text_splits.val, "val split");
        r.test = encode_text_split(*text, r.text_splits.test, "test split");
    }
    r.text = text.get();
    r.scheme = std::move(text);
}

// A file of the pretrained folder copied into the run: it must be JSON (each of kKeptPretrainedFiles is), so
// that a folder whose tokenizer_config.json is a link to a private file cannot put that file into the run,
// and from there into an export. (The folder's files may be links: a Hugging Face cache is made of them.)
void keep_json_file(const std::string& from, const std::string& to) {
    const FileRead read = read_regular_file(from, kMaxJsonFileBytes);
    if (!read.ok()) throw RunError(read.error);
    nlohmann::json parsed;
    std::string error;
    if (!parse_json_bounded(read.text, from, parsed, &error)) throw RunError(error);
    write_file_atomic(to, read.text);
}

// A fone-adapter run (schemes/adapter_scheme.h): its text, the pretrained folder's tokenizer over the
// model's whole vocabulary, FoNE through a linear map. A new run copies the folder's config and tokenizer
// files into RUN/pretrained/ and reads them from there ever after.
void open_adapter(RunModel& r, const std::string& run_dir, RunData data, bool new_run) {
    if (r.config.init_from.empty())
        throw std::invalid_argument(
            "method fone-adapter: adds FoNE to a pretrained model: give --init-from DIR");
    if (data != RunData::none || new_run) r.text_splits = load_text_splits(r.config);
    const fs::path kept = fs::path(run_dir) / kPretrainedFilesDir;
    const fs::path from = new_run ? fs::path(r.config.init_from) : kept;
    check_adapter_folder(from.string());
    if (new_run && !run_dir.empty()) {
        fs::create_directories(kept);
        for (const char* name : kKeptPretrainedFiles)
            if (fs::exists(from / name)) keep_json_file((from / name).string(), (kept / name).string());
    }
    const auto config = pretrained::PretrainedConfig::from_json(
        read_json_file((from / "config.json").string()), (from / "config.json").string());
    r.config.model.fone_input = "linear";
    r.spec = adapter_spec();
    auto scheme =
        std::make_unique<AdapterScheme>(pretrained::BpeTokenizer::load((from / "tokenizer.json").string()),
                                        config.vocab_size, r.config.text_context, config.eos_token_id);
    if (data == RunData::batches) {
        r.train = scheme->encode_text(r.text_splits.train);
        r.val = scheme->encode_text(r.text_splits.val);
        r.test = scheme->encode_text(r.text_splits.test);
    }
    r.adapter = scheme.get();
    r.scheme = std::move(scheme);
}

// A new model's rotary tables cover its longest batch: token schemes write long sequences (prompt + answer
// digits); text runs get room to generate answers longer than the longest seen.
void fit_sequence_length(RunModel& r) {
    int64_t longest = 0;
    for (const Batch* b : {&r.train, &r.val, &r.test})
        if (b->n > 0) longest = std::max(longest, r.scheme->sequence_length(*b));
    int& max_seq = r.config.model.max_seq;
    max_seq = std::max<int>(max_seq, static_cast<int>(longest));
    if (r.text) max_seq = std::max(max_seq, 2 * static_cast<int>(r.train.in.tokens.size(1)));
}

}  // namespace

namespace {

// open_run_model's work; `trained`: the run exists (its tokenizer, its settled config).
RunModel open_model(TrainConfig config, const std::string& run_dir, RunData data, bool trained) {
    RunModel r;
    r.config = std::move(config);
    r.data_note = data_file_change(r.config);
    // Training on other data than the run started with would not continue the run: refused.
    if (!r.data_note.empty() && trained && data == RunData::batches) throw RunError(r.data_note);
    if (!trained && !r.config.init_from.empty()) pretrained::adopt_pretrained_shape(r.config);
    r.kind = run_kind(r.config);
    switch (r.kind) {
        case RunKind::adapter:
            open_adapter(r, run_dir, data, !trained);
            break;
        case RunKind::text:
            open_text(r, run_dir, data, !trained);
            break;
        case RunKind::arithmetic:
            open_arithmetic(r, data);
            break;
    }
    if (!trained && data == RunData::batches) fit_sequence_length(r);
    r.config.model.vocab_size = static_cast<int>(r.scheme->vocabulary().size());
    r.config.model.validate();
    // A model that will train (a new one with data, or any with batches) needs its gradients and AdamW's
    // state too; one that answers only its weights.
    const bool training = data == RunData::batches || (!trained && data != RunData::none);
    check_model_memory(r.config.model, static_cast<int>(r.scheme->heads().fone_width), training);
    r.model = FoneTransformer(r.config.model, r.scheme->heads());
    return r;
}

// A new run's weights from its pretrained folder. fone-adapter: the whole model, and the projection of the
// number pieces' FoNE at zero, so that the run starts as exactly the pretrained model.
void start_from_pretrained(RunModel& r) {
    if (r.kind != RunKind::adapter) {
        pretrained::copy_pretrained_weights(r.model, r.scheme->vocabulary(), r.config.init_from);
        return;
    }
    pretrained::copy_whole_pretrained_model(r.model, r.config.init_from);
    torch::NoGradGuard no_grad;
    r.model->fone_map->weight.zero_();
    r.model->fone_map->bias.zero_();
}

}  // namespace

RunModel open_run_model(TrainConfig config, const std::string& run_dir, RunData data,
                        const Checkpoint* weights) {
    RunModel r = open_model(std::move(config), run_dir, data, weights != nullptr);
    if (weights)
        load_weights(*weights, r.model);
    else if (!r.config.init_from.empty() && data == RunData::batches)  // a check only reads its shape
        start_from_pretrained(r);
    return r;
}

RunModel open_trained_model_shape(TrainConfig config, const std::string& run_dir) {
    return open_model(std::move(config), run_dir, RunData::none, true);
}

AnsweringRun open_for_answers(const std::string& run_dir, int threads, RunData data) {
    set_threads(threads);
    AnsweringRun a;
    a.checkpoint = model_checkpoint(run_dir);
    Checkpoint c = open_run_checkpoint(run_dir, a.checkpoint);
    a.run = open_run_model(c.config, run_dir, data, &c);
    const std::string& asked = a.run.config.device;
    a.device = torch::Device(resolve_device(asked == "cuda" && !cuda_available() ? "cpu" : asked));
    a.run.model->to(a.device);
    a.run.model->eval();
    return a;
}

}  // namespace fone
