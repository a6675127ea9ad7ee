#include "fone/train/engine.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <numbers>
#include <numeric>
#include <random>
#include <thread>

#include <ATen/autocast_mode.h>
#include <ATen/detail/CUDAHooksInterface.h>
#include <torch/torch.h>
#include <torch/version.h>

#include "fone/build_info.h"
#include "fone/numbers/number_parser.h"
#include "train/model.h"
#include "train/scheme.h"
#include "train/scheme_parts.h"
#include "train/text_scheme.h"
#include "train/zip_integrity.h"

namespace fone {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using nlohmann::json;

std::atomic<bool> g_stop{false};

constexpr int64_t kCheckpointFormat = 1;
// Token methods' number tokens follow the shared words and ".".
constexpr int64_t kFirstNumberToken = kBaseVocab + 1;

double seconds_since(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

void set_threads(int threads) {
    const int n = threads > 0 ? threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    torch::set_num_threads(n);
}

// ---- data --------------------------------------------------------------------------------------------

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

// The order of epoch e is a pure function of (seed, e): a resumed run sees exactly the batches an
// uninterrupted one would. This, with the checkpointed weights and optimiser, is the run's RNG state.
std::vector<int64_t> epoch_order(std::uint64_t seed, int64_t epoch, int64_t n) {
    std::vector<int64_t> order(static_cast<std::size_t>(n));
    std::iota(order.begin(), order.end(), 0);
    std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ULL + static_cast<std::uint64_t>(epoch) + 1);
    for (int64_t i = n - 1; i > 0; --i) {
        // Unbiased bounded draw, identical on every standard library.
        const std::uint64_t bound = static_cast<std::uint64_t>(i) + 1;
        const std::uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
        std::uint64_t r;
        do
            r = rng();
        while (r >= limit);
        std::swap(order[static_cast<std::size_t>(i)], order[r % bound]);
    }
    return order;
}

// bf16 mixed precision on CUDA (matmuls in bf16, reductions and the loss in fp32), off on the CPU.
class CudaAutocast {
  public:
    explicit CudaAutocast(const torch::Device& device) : on_(device.is_cuda()) {
        if (!on_) return;
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
        at::autocast::set_autocast_dtype(at::kCUDA, at::kBFloat16);
        at::autocast::set_autocast_enabled(at::kCUDA, true);
#else
        at::autocast::set_autocast_gpu_dtype(at::kBFloat16);
        at::autocast::set_enabled(true);
#endif
    }
    ~CudaAutocast() {
        if (!on_) return;
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
        at::autocast::set_autocast_enabled(at::kCUDA, false);
#else
        at::autocast::set_enabled(false);
#endif
        at::autocast::clear_cache();
    }
    CudaAutocast(const CudaAutocast&) = delete;
    CudaAutocast& operator=(const CudaAutocast&) = delete;

  private:
    bool on_;
};

// ---- model -------------------------------------------------------------------------------------------

struct Loaded {
    TrainConfig config;
    FoneSpec spec;
    Splits splits;
    TextSplits text_splits;  // text runs
    std::unique_ptr<NumberScheme> scheme;
    FoneTransformer model{nullptr};
    torch::Device device{torch::kCPU};
};

// A text run's tokenizer, from its run directory.
TextTokenizer run_tokenizer(const std::string& run_dir, const TrainConfig& c) {
    const std::string path = (fs::path(run_dir) / kTokenizerFile).string();
    if (!fs::exists(path))
        throw RunError(path + ": missing (a text run keeps the tokenizer it was trained with there)");
    try {
        return TextTokenizer::load(path, text_scheme_from_name(c.method));
    } catch (const TokenizerError& e) {
        throw RunError(e.what());
    }
}

// Whether a text run's examples are prompts with answers (generators, JSONL) or documents (plain text).
bool text_run_has_prompts(const TrainConfig& c) {
    return c.text_task != "text" || c.task.data_file.ends_with(".jsonl");
}

// A text split as a batch, a number that does not fit the digit slots named with its split.
Batch encode_text_split(const TextLmScheme& scheme, const std::vector<TextExample>& examples,
                        const std::string& split) {
    try {
        return scheme.encode_text(examples);
    } catch (const NumberError& e) {
        throw NumberError(split + ": " + e.what());
    }
}

FoneTransformer make_model(TrainConfig& c, const NumberScheme& scheme) {
    c.model.vocab_size = static_cast<int>(scheme.vocabulary().size());
    c.model.validate();
    return FoneTransformer(c.model, scheme.heads());
}

// Rotary tables cover max_seq positions: token schemes write long sequences (prompt + answer digits).
void fit_sequence_length(TrainConfig& c, const NumberScheme& scheme,
                         std::initializer_list<const Batch*> splits) {
    int64_t longest = 0;
    for (const Batch* b : splits)
        if (b->n > 0) longest = std::max(longest, scheme.sequence_length(*b));
    c.model.max_seq = std::max<int>(c.model.max_seq, static_cast<int>(longest));
}

ParamCount module_params(FoneTransformer& model) {
    ParamCount p;
    for (const auto& t : model->parameters())
        p.total += t.numel();
    p.embedding = model->embed->weight.numel();
    return p;
}

// The most tokens one operand takes (the paper's "tokens per number": its largest operand).
int64_t tokens_per_number(const NumberScheme& scheme, const std::vector<Example>& examples) {
    int64_t most = 0;
    for (const Example& e : examples)
        for (const Decimal& x : e.operands)
            most = std::max(most, scheme.tokens_for(x));
    return most;
}

// FNV-1a over the raw bytes of every parameter, in order: equal digests mean bit-identical weights
// (how the tests check that a resumed run ends where an uninterrupted one does).
std::string weights_digest(FoneTransformer& model) {
    std::uint64_t h = 1469598103934665603ULL;
    for (const auto& p : model->parameters()) {
        const auto c = p.detach().to(torch::kCPU).contiguous();
        const auto* bytes = static_cast<const unsigned char*>(c.data_ptr());
        for (std::size_t i = 0; i < static_cast<std::size_t>(c.nbytes()); ++i)
            h = (h ^ bytes[i]) * 1099511628211ULL;
    }
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
    return hex;
}

// Test hook for the reliability tests: FONE_INJECT_NAN_STEP=N makes the loss NaN at step N.
int64_t injected_nan_step() {
    const char* v = std::getenv("FONE_INJECT_NAN_STEP");
    return v ? std::atoll(v) : -1;
}

// ---- evaluation --------------------------------------------------------------------------------------

// ---- checkpoints -------------------------------------------------------------------------------------

struct Position {
    int64_t step = 0, epoch = 0, batch_in_epoch = 0;
    double best_exact_match = -1.0;
    double train_seconds = 0.0;    // pure training time so far, over every session of the run
    double elapsed_seconds = 0.0;  // wall time so far, over every session
    double time_to_target = -1.0;
};

torch::Tensor string_tensor(const std::string& s) {
    auto t = torch::empty({static_cast<int64_t>(s.size())}, torch::kUInt8);
    std::memcpy(t.data_ptr<uint8_t>(), s.data(), s.size());
    return t;
}

std::string tensor_string(const torch::Tensor& t) {
    auto c = t.contiguous().to(torch::kCPU);
    return std::string(reinterpret_cast<const char*>(c.data_ptr<uint8_t>()),
                       static_cast<std::size_t>(c.numel()));
}

void fsync_path(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY);
    if (fd >= 0) {
        ::fsync(fd);
        ::close(fd);
    }
}

void save_checkpoint(const std::string& path, FoneTransformer& model, torch::optim::AdamW& opt,
                     const TrainConfig& config, const Position& pos) {
    torch::serialize::OutputArchive archive;
    model->save(archive);
    torch::serialize::OutputArchive opt_archive;
    opt.save(opt_archive);
    archive.write("optimizer", opt_archive);
    archive.write("meta.format", torch::tensor(kCheckpointFormat));
    archive.write("meta.config", string_tensor(config.to_json().dump()));
    archive.write("meta.position", torch::tensor({pos.step, pos.epoch, pos.batch_in_epoch}));
    archive.write("meta.times", torch::tensor({pos.best_exact_match, pos.train_seconds, pos.elapsed_seconds,
                                               pos.time_to_target},
                                              torch::kFloat64));
    const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
    archive.save_to(tmp);
    fsync_path(tmp);
    fs::rename(tmp, path);
}

struct Checkpoint {
    TrainConfig config;
    Position pos;
    torch::serialize::InputArchive archive;
};

// The weights take at least 4 bytes per parameter in the file: a config that describes a larger model
// than the file can hold is damage (and would allocate without bound before failing).
void check_model_fits_file(const TrainConfig& config, const std::string& path) {
    std::error_code ec;
    const auto bytes = fs::file_size(path, ec);
    if (ec) return;
    const double params = static_cast<double>(count_params(config.model, 0).without_embedding());
    if (params * 4 > static_cast<double>(bytes))
        throw RunError(path + ": corrupt checkpoint (its config describes " +
                       std::to_string(static_cast<long long>(params)) + " parameters, more than the " +
                       std::to_string(bytes) + " bytes of the file can hold)");
}

// Reads a checkpoint's archive and meta data; a corrupt or truncated file is a RunError that names it.
Checkpoint open_checkpoint(const std::string& path) {
    if (!fs::exists(path)) throw RunError(path + ": missing");
    // LibTorch 1.13 reads without checking CRCs and can crash on a damaged archive: check them first.
    if (const std::string why = detail::zip_problem(path); !why.empty())
        throw RunError(path + ": corrupt or truncated checkpoint (" + why + ")");
    Checkpoint c;
    try {
        c.archive.load_from(path);
        torch::Tensor format, config, position, times;
        c.archive.read("meta.format", format);
        if (format.item<int64_t>() != kCheckpointFormat)
            throw RunError(path + ": checkpoint format " + std::to_string(format.item<int64_t>()) +
                           " is not the one this build reads (" + std::to_string(kCheckpointFormat) + ")");
        c.archive.read("meta.config", config);
        c.archive.read("meta.position", position);
        c.archive.read("meta.times", times);
        // accessor() does not check bounds: a damaged file may hold tensors of another type or length.
        if (config.scalar_type() != torch::kUInt8 || config.dim() != 1)
            throw RunError(path + ": corrupt checkpoint (meta.config is not a byte string)");
        if (position.scalar_type() != torch::kInt64 || position.dim() != 1 || position.numel() != 3 ||
            times.scalar_type() != torch::kFloat64 || times.dim() != 1 || times.numel() != 4)
            throw RunError(path + ": corrupt checkpoint (meta.position or meta.times has the wrong shape)");
        c.config = TrainConfig::from_json(json::parse(tensor_string(config)));
        // A config that no run could have been trained with (heads 0, hidden 1e9) is damage, not a model.
        c.config.validate();
        check_model_fits_file(c.config, path);
        position = position.contiguous();
        times = times.contiguous();
        auto p = position.accessor<int64_t, 1>();  // lvalues: accessor() of a temporary is deleted
        auto t = times.accessor<double, 1>();
        c.pos = {p[0], p[1], p[2], t[0], t[1], t[2], t[3]};
        if (c.pos.step < 0 || c.pos.epoch < 0 || c.pos.batch_in_epoch < 0 || c.pos.epoch > c.config.epochs)
            throw RunError(path + ": corrupt checkpoint (its position is impossible for its config)");
    } catch (const RunError&) {
        throw;
    } catch (const std::exception& e) {
        std::string what = e.what();
        what = what.substr(0, what.find('\n'));
        throw RunError(path + ": corrupt or truncated checkpoint (" + what + ")");
    }
    return c;
}

void load_weights(Checkpoint& c, FoneTransformer& model, const std::string& path) {
    // Module::load adopts the shapes it reads: compare them with the model the config builds.
    struct Expected {
        std::string name;
        std::vector<int64_t> shape;
        torch::ScalarType dtype;
    };
    std::vector<Expected> shapes;
    for (const auto& item : model->named_parameters())
        shapes.push_back({item.key(), item.value().sizes().vec(), item.value().scalar_type()});
    for (const auto& item : model->named_buffers())
        shapes.push_back({item.key(), item.value().sizes().vec(), item.value().scalar_type()});
    try {
        model->load(c.archive);
    } catch (const std::exception& e) {
        std::string what = e.what();
        throw RunError(path + ": the weights do not match the model of its config (" +
                       what.substr(0, what.find('\n')) + ")");
    }
    const auto shape_text = [](const std::vector<int64_t>& s) {
        std::string t = "[";
        for (std::size_t i = 0; i < s.size(); ++i)
            t += (i ? ", " : "") + std::to_string(s[i]);
        return t + "]";
    };
    auto params = model->named_parameters();
    auto buffers = model->named_buffers();
    for (const auto& [name, expected, dtype] : shapes) {
        const torch::Tensor* t = params.find(name);
        if (!t) t = buffers.find(name);
        if (!t || !t->defined() || t->sizes().vec() != expected || t->scalar_type() != dtype)
            throw RunError(
                path + ": the weights do not match the model of its config (" + name +
                (t && t->defined() ? " is " + shape_text(t->sizes().vec()) : std::string(" is missing")) +
                ", the config makes " + shape_text(expected) + ")");
    }
}

// ---- the training loop -------------------------------------------------------------------------------

class Trainer {
  public:
    Trainer(TrainConfig config, std::string run_dir, const EventSink& sink)
        : cfg_(std::move(config)), dir_(std::move(run_dir)), sink_(sink) {}

    TrainOutcome run(Checkpoint* resume_from);

  private:
    TrainConfig cfg_;
    std::string dir_;
    const EventSink& sink_;
    torch::Device device_{torch::kCPU};
    FoneSpec spec_;
    std::unique_ptr<NumberScheme> scheme_;
    Batch train_, val_, test_;
    json tokens_per_number_ = 1;  // the arithmetic tasks' largest operand; text: the mean per number
    json text_info_;              // text runs: the tokenizer and token counts, for the start event
    FoneTransformer model_{nullptr};
    std::unique_ptr<torch::optim::AdamW> opt_;
    Position pos_;
    Clock::time_point session_start_;
    double session_base_elapsed_ = 0.0;
    json last_eval_;

    double elapsed() const { return session_base_elapsed_ + seconds_since(session_start_); }
    std::string path(const char* file) const { return (fs::path(dir_) / file).string(); }
    void emit(json event, bool to_metrics);
    double lr_at(int64_t step, int64_t total) const;
    json eval_event(double epoch_seconds, double epoch_cpu_seconds, double train_examples_per_second);
    void checkpoint(const char* file);
    TrainOutcome finish(const std::string& status, const std::string& message);
};

void Trainer::emit(json event, bool to_metrics) {
    if (to_metrics) append_jsonl(path(kMetricsFile), event);
    if (sink_) sink_(event);
}

double Trainer::lr_at(int64_t step, int64_t total) const {
    const int64_t warm = static_cast<int64_t>(std::llround(cfg_.warmup * static_cast<double>(total)));
    if (step < warm) return cfg_.lr * static_cast<double>(step + 1) / static_cast<double>(warm);
    if (cfg_.schedule == "constant") return cfg_.lr;
    const double progress =
        static_cast<double>(step - warm) / static_cast<double>(std::max<int64_t>(1, total - warm));
    return cfg_.lr * 0.5 * (1.0 + std::cos(std::numbers::pi * std::min(1.0, progress)));
}

json Trainer::eval_event(double epoch_seconds, double epoch_cpu_seconds, double train_examples_per_second) {
    json e = scheme_->evaluate(model_, test_, device_);
    e["event"] = "eval";
    e["method"] = cfg_.method;
    e["tokens_per_number"] = tokens_per_number_;
    e["split"] = "test";
    e["step"] = pos_.step;
    e["epoch"] = pos_.epoch + static_cast<double>(pos_.batch_in_epoch) * static_cast<double>(cfg_.batch) /
                                  static_cast<double>(std::max<int64_t>(1, train_.n));
    e["epoch_seconds"] = epoch_seconds;
    e["epoch_cpu_seconds"] = epoch_cpu_seconds;
    e["examples_per_second"] = train_examples_per_second;
    if (val_.n > 0) e["val_exact_match"] = scheme_->evaluate(model_, val_, device_)["exact_match"];
    if (model_->slots > 0) e["temperature"] = model_->temperature();
    e["elapsed_seconds"] = elapsed();
    return e;
}

void Trainer::checkpoint(const char* file) {
    Position p = pos_;
    p.elapsed_seconds = elapsed();
    save_checkpoint(path(file), model_, *opt_, cfg_, p);
}

TrainOutcome Trainer::finish(const std::string& status, const std::string& message) {
    const double total = elapsed();
    json summary = {{"status", status},
                    {"message", message},
                    {"step", pos_.step},
                    {"epoch", pos_.epoch},
                    {"best_exact_match", std::max(0.0, pos_.best_exact_match)},
                    {"train_seconds", pos_.train_seconds},
                    {"elapsed_seconds", total},
                    {"time_to_target_seconds", pos_.time_to_target >= 0 ? json(pos_.time_to_target) : json()},
                    {"final", last_eval_},
                    {"weights_digest", weights_digest(model_)}};
    const ParamCount params = module_params(model_);
    summary["params"] = params.total;
    summary["params_without_embedding"] = params.without_embedding();
    if (status != kStatusFailed || fs::exists(path(kLastCheckpoint)))
        write_json_atomic(path(kSummaryFile), summary);
    write_status(dir_, status, message, {{"step", pos_.step}, {"epoch", pos_.epoch}});
    emit({{"event", "end"},
          {"status", status},
          {"run", fs::path(dir_).filename().string()},
          {"dir", dir_},
          {"message", message},
          {"step", pos_.step},
          {"best_exact_match", std::max(0.0, pos_.best_exact_match)},
          {"time_to_target_seconds", summary["time_to_target_seconds"]},
          {"weights_digest", summary["weights_digest"]},
          {"elapsed_seconds", total}},
         false);
    return {status, dir_, message};
}

TrainOutcome Trainer::run(Checkpoint* resume_from) {
    session_start_ = Clock::now();
    set_threads(cfg_.threads);
    device_ = torch::Device(resolve_device(cfg_.device));
    torch::manual_seed(cfg_.seed);

    if (cfg_.is_text()) {
        // The tokenizer is trained on the train split when the run starts and kept in the run directory,
        // so that a resumed run, eval and generate use exactly it; the digit slots fit the corpus.
        const TextSplits splits = load_text_splits(cfg_);
        TokenizerOptions tokenizer_options;
        tokenizer_options.vocab_size = cfg_.text_vocab_size;
        const TextTokenizer tokenizer =
            resume_from
                ? run_tokenizer(dir_, cfg_)
                : TextTokenizer::train(splits.train, text_scheme_from_name(cfg_.method), tokenizer_options);
        if (!resume_from) tokenizer.save(path(kTokenizerFile));
        spec_ = text_spec(cfg_, splits);
        cfg_.int_digits = spec_.int_digits;  // recorded in every checkpoint: generation needs no data
        cfg_.frac_digits = spec_.frac_digits;
        auto text = std::make_unique<TextLmScheme>(tokenizer, spec_, cfg_);
        train_ = encode_text_split(*text, splits.train, "train split");
        val_ = encode_text_split(*text, splits.val, "val split");
        test_ = encode_text_split(*text, splits.test, "test split");
        const TokenCounts counts = count_tokens(tokenizer, splits.test);
        tokens_per_number_ = counts.tokens_per_number();
        text_info_ = {{"tokenizer", kTokenizerFile},
                      {"text_pieces", tokenizer.text_piece_count()},
                      {"vocab_size", tokenizer.vocab_size()},
                      {"tokens_per_example", counts.tokens_per_example()},
                      {"digit_loss_weight", cfg_.digit_loss_weight},
                      {"text_loss", cfg_.text_loss}};
        scheme_ = std::move(text);
    } else {
        Splits splits = load_splits(cfg_);
        spec_ = spec_for(cfg_, splits);
        scheme_ = make_scheme(cfg_, spec_);
        train_ = scheme_->encode(cfg_.swap_operands ? with_swaps(splits.train) : splits.train);
        val_ = scheme_->encode(splits.val);
        test_ = scheme_->encode(splits.test);
        tokens_per_number_ = tokens_per_number(*scheme_, splits.test);
    }
    if (!resume_from) {
        fit_sequence_length(cfg_, *scheme_, {&train_, &val_, &test_});
        // Text: room to generate answers longer than the longest seen (the rotary table's length).
        if (cfg_.is_text())
            cfg_.model.max_seq = std::max(cfg_.model.max_seq, 2 * static_cast<int>(train_.in.tokens.size(1)));
    }
    model_ = make_model(cfg_, *scheme_);
    opt_ = std::make_unique<torch::optim::AdamW>(
        model_->parameters(),
        torch::optim::AdamWOptions(cfg_.lr).betas({cfg_.beta1, cfg_.beta2}).weight_decay(cfg_.weight_decay));
    if (resume_from) {
        load_weights(*resume_from, model_, path(kLastCheckpoint));
        torch::serialize::InputArchive opt_archive;
        resume_from->archive.read("optimizer", opt_archive);
        opt_->load(opt_archive);
        pos_ = resume_from->pos;
        session_base_elapsed_ = pos_.elapsed_seconds;
    }
    model_->to(device_);
    const Batch train_dev = to_device(train_, device_);

    const int64_t n = train_.n, batch = static_cast<int64_t>(cfg_.batch);
    const int64_t steps_per_epoch = (n + batch - 1) / batch;
    const int64_t total_steps = steps_per_epoch * cfg_.epochs;
    const ParamCount params = module_params(model_);
    const int64_t seq_len = train_.in.tokens.size(1);
    // Token schemes compute the LM head at every position; the number-token schemes at the last only.
    const int64_t head_positions = train_.targets.defined() ? seq_len : 1;
    write_status(dir_, kStatusRunning, resume_from ? "resumed" : "",
                 {{"step", pos_.step}, {"epoch", pos_.epoch}});
    if (resume_from) append_jsonl(path(kMetricsFile), {{"event", "resume"}, {"step", pos_.step}});
    json start = {
        {"event", "start"},
        {"run", fs::path(dir_).filename().string()},
        {"dir", dir_},
        {"resumed", resume_from != nullptr},
        {"step", pos_.step},
        {"total_steps", total_steps},
        {"train_examples", n},
        {"test_examples", test_.n},
        {"sequence_length", seq_len},
        {"fone",
         {{"int_digits", spec_.int_digits}, {"frac_digits", spec_.frac_digits}, {"width", spec_.width()}}},
        {"params", params.total},
        {"params_without_embedding", params.without_embedding()},
        {"flops_per_example",
         train_flops_per_example(cfg_.model, static_cast<int>(seq_len), static_cast<int>(head_positions))},
        {"method", cfg_.method},
        {"tokens_per_number", tokens_per_number_},
        {"device", device_.str()},
        {"threads", torch::get_num_threads()},
        {"config", cfg_.to_json()}};
    if (cfg_.is_text()) start["text"] = text_info_;
    emit(start, false);

    const int64_t nan_step = injected_nan_step();
    auto last_progress = Clock::now();
    int64_t examples_since = 0;
    double train_since = 0.0, epoch_train_seconds = 0.0, epoch_train_cpu = 0.0;
    int64_t epoch_examples = 0, order_epoch = -1;
    torch::Tensor order;
    while (pos_.epoch < cfg_.epochs) {
        if (order_epoch != pos_.epoch) {
            const auto o = epoch_order(cfg_.seed, pos_.epoch, n);
            order = torch::tensor(o, torch::kInt64).to(device_);
            order_epoch = pos_.epoch;
        }
        if (g_stop) {
            checkpoint(kLastCheckpoint);
            return finish(kStatusStopped, "stopped on request at step " + std::to_string(pos_.step));
        }
        const auto t0 = Clock::now();
        const double cpu0 = process_cpu_seconds();
        const int64_t start = pos_.batch_in_epoch * batch, len = std::min(batch, n - start);
        const Batch b = select_rows(train_dev, order.narrow(0, start, len));
        const double lr = lr_at(pos_.step, total_steps);
        for (auto& group : opt_->param_groups())
            static_cast<torch::optim::AdamWOptions&>(group.options()).lr(lr);
        opt_->zero_grad();
        // Training noise (Abacus offsets) from a generator seeded by (seed, step): resumable exactly.
        torch::manual_seed(cfg_.seed * 1000003ULL + static_cast<std::uint64_t>(pos_.step) + 1);
        const torch::Tensor loss_t = scheme_->loss(model_, b, true);
        double loss = loss_t.item<double>();
        if (pos_.step == nan_step) loss = std::nan("");
        if (!std::isfinite(loss)) {
            return finish(kStatusFailed, "loss is " + std::string(std::isnan(loss) ? "NaN" : "infinite") +
                                             " at step " + std::to_string(pos_.step) +
                                             " (try a lower --lr, or --clip 1)");
        }
        loss_t.backward();
        if (cfg_.clip > 0) torch::nn::utils::clip_grad_norm_(model_->parameters(), cfg_.clip);
        opt_->step();

        // Advance to the position of the next batch: what a checkpoint written now records.
        ++pos_.step;
        const bool epoch_end = ++pos_.batch_in_epoch == steps_per_epoch;
        if (epoch_end) {
            pos_.batch_in_epoch = 0;
            ++pos_.epoch;
        }
        const double dt = seconds_since(t0);
        pos_.train_seconds += dt;
        epoch_train_seconds += dt;
        epoch_train_cpu += process_cpu_seconds() - cpu0;
        train_since += dt;
        epoch_examples += len;
        examples_since += len;
        const double epoch_float = pos_.epoch + static_cast<double>(pos_.batch_in_epoch) / steps_per_epoch;
        if (seconds_since(last_progress) >= 0.5 || pos_.step == total_steps) {
            const double rate = examples_since / std::max(train_since, 1e-9);
            emit({{"event", "progress"},
                  {"step", pos_.step},
                  {"total_steps", total_steps},
                  {"epoch", epoch_float},
                  {"loss", loss},
                  {"lr", lr},
                  {"examples_per_second", rate},
                  {"elapsed_seconds", elapsed()},
                  {"eta_seconds",
                   (total_steps - pos_.step) * static_cast<double>(batch) / std::max(rate, 1e-9)}},
                 true);
            last_progress = Clock::now();
            examples_since = 0;
            train_since = 0.0;
        }
        const bool do_eval =
            cfg_.eval_every > 0 ? pos_.step % cfg_.eval_every == 0 || pos_.step == total_steps : epoch_end;
        if (do_eval) {
            // Seconds per epoch: this epoch's training time so far, scaled to the whole epoch when the
            // evaluation comes mid-epoch (--eval-every) or the session resumed mid-epoch; exact at an
            // epoch's end.
            const double done = static_cast<double>(std::max<int64_t>(1, epoch_examples));
            const double per_example = epoch_train_seconds / done;
            last_eval_ = eval_event(per_example * static_cast<double>(n),
                                    epoch_train_cpu / done * static_cast<double>(n),
                                    1.0 / std::max(per_example, 1e-12));
            last_eval_["epoch"] = epoch_float;
            emit(last_eval_, true);
            const double em = last_eval_["exact_match"];
            if (em >= pos_.best_exact_match) {  // ties go to the later, more trained model
                pos_.best_exact_match = em;
                checkpoint(kBestCheckpoint);
            }
            if (cfg_.target_acc > 0 && em >= cfg_.target_acc) {
                pos_.time_to_target = elapsed();
                checkpoint(kLastCheckpoint);
                char what[96];
                std::snprintf(what, sizeof what, "reached the target exact match %.4g%% at step %lld",
                              100 * cfg_.target_acc, static_cast<long long>(pos_.step));
                return finish(kStatusFinished, what);
            }
        }
        if (epoch_end) {
            epoch_train_seconds = 0.0;
            epoch_train_cpu = 0.0;
            epoch_examples = 0;
        }
        if (cfg_.checkpoint_every > 0 ? pos_.step % cfg_.checkpoint_every == 0 : epoch_end) {
            checkpoint(kLastCheckpoint);
            write_status(dir_, kStatusRunning, "", {{"step", pos_.step}, {"epoch", pos_.epoch}});
        }
    }
    checkpoint(kLastCheckpoint);
    return finish(kStatusFinished, "trained " + std::to_string(cfg_.epochs) + " epochs");
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

// A run's model for evaluation and prediction: its best checkpoint, else its last.
Loaded load_for_inference(const std::string& run_dir, int threads, std::string& checkpoint_used,
                          bool need_data) {
    set_threads(threads);
    const std::string best = (fs::path(run_dir) / kBestCheckpoint).string();
    checkpoint_used = fs::exists(best) ? best : (fs::path(run_dir) / kLastCheckpoint).string();
    Checkpoint c = open_checkpoint(checkpoint_used);
    Loaded l;
    l.config = c.config;
    if (l.config.is_text()) {
        // The checkpoint's config records the digit slots; the tokenizer is the run's own.
        if (need_data) l.text_splits = load_text_splits(l.config);
        l.spec = text_spec(l.config);
        l.scheme = std::make_unique<TextLmScheme>(run_tokenizer(run_dir, l.config), l.spec, l.config);
    } else {
        // Generated tasks know their digit slots without data; file tasks need the file to derive them.
        if (need_data || l.config.task.kind == TaskKind::file) l.splits = load_splits(l.config);
        l.spec = spec_for(l.config, l.splits);
        l.scheme = make_scheme(l.config, l.spec);
    }
    l.model = make_model(l.config, *l.scheme);
    load_weights(c, l.model, checkpoint_used);
    l.device = torch::Device(
        resolve_device(l.config.device == "cuda" && !cuda_available() ? "cpu" : l.config.device));
    l.model->to(l.device);
    l.model->eval();
    return l;
}

}  // namespace

void request_stop() {
    g_stop = true;
}

bool cuda_available() {
    return torch::cuda::is_available();
}

std::string torch_version() {
    return TORCH_VERSION;
}

json torch_build_info() {
    json j = {{"libtorch", TORCH_VERSION}, {"cuda_build", ""}, {"cuda_available", false}, {"gpus", 0}};
    try {
        // A CPU build's hooks throw here ("without ATen_cuda library"); a CUDA build gives e.g. 12010.
        const int v = static_cast<int>(at::detail::getCUDAHooks().versionCUDART());
        if (v > 0) j["cuda_build"] = std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
    } catch (const std::exception&) {
    }
    if (torch::cuda::is_available()) {
        j["cuda_available"] = true;
        j["gpus"] = static_cast<int>(torch::cuda::device_count());
    }
    return j;
}

std::string resolve_device(const std::string& requested) {
    if (requested == "cpu") return "cpu";
    if (requested == "cuda") {
        if (!cuda_available())
            throw std::invalid_argument("device cuda: this build's LibTorch " + torch_version() +
                                        " has no CUDA or no GPU is visible (build against LibTorch with "
                                        "CUDA: scripts/check-torch2.sh)");
        return "cuda";
    }
    if (requested == "auto") return cuda_available() ? "cuda" : "cpu";
    throw std::invalid_argument("device must be auto, cpu or cuda, not '" + requested + "'");
}

TrainOutcome train_new(const TrainConfig& config, RunStore& store, const EventSink& sink) {
    config.validate();
    resolve_device(config.device);  // fail before making a run directory
    if (config.is_text()) {
        check_text_corpus(config);  // unreadable data, numbers that do not fit the digit slots
    } else {
        // Everything that can refuse this config without training (a dataset file that is missing or
        // malformed, digit slots that do not fit the data or the model) refuses it here, before the run
        // directory exists: bad input writes nothing. The trainer repeats this work (well under a second).
        const Splits splits = load_splits(config);
        const FoneSpec spec = spec_for(config, splits);
        const auto scheme = make_scheme(config, spec);
        TrainConfig probe = config;
        (void)make_model(probe, *scheme);
    }
    json record = config.to_json();
    record["versions"] = {
        {"fone", FONE_VERSION}, {"libtorch", torch_version()}, {"git_revision", FONE_GIT_REVISION}};
    const std::string dir = store.create_run(config.name, record);
    Trainer t(config, dir, sink);
    try {
        return t.run(nullptr);
    } catch (const std::exception& e) {
        write_status(dir, kStatusFailed, e.what());
        throw;
    }
}

// Temporary files ("<file>.tmp-<pid>") of writers that died mid-write (kill -9 while a checkpoint or a
// status was being written): the renamed file is whole, the temporary one is litter.
static void remove_stale_temporaries(const std::string& run_dir) {
    std::error_code ec;
    for (fs::directory_iterator it(run_dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        const auto mark = name.rfind(".tmp-");
        if (mark == std::string::npos) continue;
        const std::string pid = name.substr(mark + 5);
        if (pid.empty() || pid.find_first_not_of("0123456789") != std::string::npos) continue;
        if (pid.size() < 10 && !process_alive(std::stoi(pid))) {
            std::error_code rm;
            fs::remove(it->path(), rm);
        }
    }
}

TrainOutcome train_resume(const std::string& run_dir, const EventSink& sink, int threads) {
    remove_stale_temporaries(run_dir);
    const std::string last = (fs::path(run_dir) / kLastCheckpoint).string();
    const auto refuse_finished = [&run_dir] {
        const std::string status_path = (fs::path(run_dir) / kStatusFile).string();
        if (!fs::exists(status_path)) return;
        const json st = read_json_file(status_path);
        if (st.is_object() && st.value("status", json()) == json(kStatusFinished))
            throw RunError(run_dir + " has finished; nothing to resume");
    };
    if (!fs::exists(last)) {
        refuse_finished();
        // Killed before its first checkpoint: nothing trained is lost by starting again, in the same run
        // directory, from its config.json (same seed: the same weights an uninterrupted run reaches).
        json record = read_json_file((fs::path(run_dir) / kConfigFile).string());
        if (record.is_object()) record.erase("versions");
        TrainConfig config;
        try {
            config = TrainConfig::from_json(record);
            config.validate();
        } catch (const std::invalid_argument& e) {
            throw RunError(run_dir + "/config.json: " + e.what());
        }
        if (threads >= 0) config.threads = threads;
        const std::string metrics = (fs::path(run_dir) / kMetricsFile).string();
        if (fs::exists(metrics))
            append_jsonl(metrics, {{"event", "resume"}, {"step", 0}, {"restart", "no checkpoint yet"}});
        Trainer t(config, run_dir, sink);
        try {
            return t.run(nullptr);
        } catch (const std::exception& e) {
            write_status(run_dir, kStatusFailed, e.what());
            throw;
        }
    }
    Checkpoint c = open_checkpoint(last);
    refuse_finished();
    if (threads >= 0) c.config.threads = threads;
    Trainer t(c.config, run_dir, sink);
    try {
        return t.run(&c);
    } catch (const std::exception& e) {
        write_status(run_dir, kStatusFailed, e.what());
        throw;
    }
}

json inspect_checkpoint(const std::string& path) {
    Checkpoint c = open_checkpoint(path);
    Splits splits;
    if (c.config.task.kind == TaskKind::file) splits = load_splits(c.config);
    const FoneSpec spec = spec_for(c.config, splits);
    const auto scheme = make_scheme(c.config, spec);
    TrainConfig config = c.config;
    FoneTransformer model = make_model(config, *scheme);
    load_weights(c, model, path);
    return {{"config", c.config.to_json()},
            {"step", c.pos.step},
            {"epoch", c.pos.epoch},
            {"params", module_params(model).total},
            {"weights_digest", weights_digest(model)}};
}

json measure_training_throughput(TrainConfig c, int steps, int warmup_steps) {
    if (c.is_text())
        throw std::invalid_argument("task " + c.text_task +
                                    ": training throughput is measured for the "
                                    "arithmetic tasks; a text run reports examples_per_second in its events");
    set_threads(c.threads);
    const torch::Device device(resolve_device(c.device));
    torch::manual_seed(c.seed);
    c.train_size = std::max<std::size_t>(c.train_size, c.batch);
    c.val_size = 0;
    c.test_size = 1;
    const Splits splits = load_splits(c);
    const FoneSpec spec = spec_for(c, splits);
    const auto scheme = make_scheme(c, spec);
    const Batch train = to_device(scheme->encode(splits.train), device);
    fit_sequence_length(c, *scheme, {&train});
    FoneTransformer model = make_model(c, *scheme);
    model->to(device);
    torch::optim::AdamW opt(model->parameters(),
                            torch::optim::AdamWOptions(c.lr).weight_decay(c.weight_decay));
    const int64_t batch = static_cast<int64_t>(c.batch);
    double t_batch = 0, t_fwd = 0, t_bwd = 0, t_opt = 0;
    auto sync = [&] {
        if (device.is_cuda()) torch::cuda::synchronize();
    };
    for (int s = 0; s < warmup_steps + steps; ++s) {
        const bool timed = s >= warmup_steps;
        auto t0 = Clock::now();
        const auto rows = torch::randint(train.n, {batch}, torch::kInt64).to(device);
        const Batch b = select_rows(train, rows);
        sync();
        auto t1 = Clock::now();
        opt.zero_grad();
        const torch::Tensor loss = scheme->loss(model, b, true);
        loss.item<double>();
        auto t2 = Clock::now();
        loss.backward();
        if (c.clip > 0) torch::nn::utils::clip_grad_norm_(model->parameters(), c.clip);
        sync();
        auto t3 = Clock::now();
        opt.step();
        sync();
        auto t4 = Clock::now();
        if (!timed) continue;
        t_batch += std::chrono::duration<double>(t1 - t0).count();
        t_fwd += std::chrono::duration<double>(t2 - t1).count();
        t_bwd += std::chrono::duration<double>(t3 - t2).count();
        t_opt += std::chrono::duration<double>(t4 - t3).count();
    }
    const double total = t_batch + t_fwd + t_bwd + t_opt;
    const int seq = static_cast<int>(train.in.tokens.size(1));
    const double flops = train_flops_per_example(c.model, seq, train.targets.defined() ? seq : 1);
    const double rate = steps * static_cast<double>(batch) / total;
    return {{"examples_per_second", rate},
            {"flops_per_example", flops},
            {"gflops_per_second", rate * flops / 1e9},
            {"seconds", total},
            {"steps", steps},
            {"batch", batch},
            {"sequence_length", seq},
            {"threads", torch::get_num_threads()},
            {"params", module_params(model).total},
            {"batching_seconds", t_batch},
            {"forward_seconds", t_fwd},
            {"backward_seconds", t_bwd},
            {"optimizer_seconds", t_opt}};
}

json measure_inference_speed(TrainConfig c, int repeats, std::size_t eval_examples) {
    if (c.is_text())
        throw std::invalid_argument("task " + c.text_task +
                                    ": inference speed is measured for the arithmetic "
                                    "tasks; a text run reports eval_seconds in its eval events");
    set_threads(c.threads);
    const torch::Device device(resolve_device(c.device));
    torch::manual_seed(c.seed);
    c.train_size = 1;
    c.val_size = 0;
    c.test_size = eval_examples;
    const Splits splits = load_splits(c);
    const FoneSpec spec = spec_for(c, splits);
    const auto scheme = make_scheme(c, spec);
    const Batch test = scheme->encode(splits.test);
    fit_sequence_length(c, *scheme, {&test});
    FoneTransformer model = make_model(c, *scheme);
    model->to(device);
    model->eval();
    torch::NoGradGuard no_grad;
    const Batch one = to_device(scheme->encode_prompt(splits.test.front().prompt()), device);
    std::vector<double> ms;
    for (int r = 0; r < repeats + 3; ++r) {
        const auto t0 = Clock::now();
        scheme->answer(model, one);
        if (r >= 3) ms.push_back(1e3 * seconds_since(t0));
    }
    std::sort(ms.begin(), ms.end());
    const json e = scheme->evaluate(model, test, device);
    return {{"single_latency_ms", ms[ms.size() / 2]},
            {"eval_examples_per_second", e["eval_examples_per_second"]},
            {"eval_examples", eval_examples},
            {"threads", torch::get_num_threads()}};
}

json evaluate_run(const std::string& run_dir, const std::string& data_file, int threads,
                  std::size_t max_mispredictions) {
    std::string used;
    Loaded l = load_for_inference(run_dir, threads, used, data_file.empty());
    if (l.config.is_text()) {
        const auto& text = dynamic_cast<const TextLmScheme&>(*l.scheme);
        const std::vector<TextExample> examples =
            data_file.empty() ? l.text_splits.test : read_text_file(data_file);
        if (examples.empty()) throw std::invalid_argument(data_file + ": no examples");
        json m = text.evaluate(
            l.model, encode_text_split(text, examples, data_file.empty() ? "test split" : data_file),
            l.device, max_mispredictions);
        m["method"] = l.config.method;
        m["task"] = l.config.text_task;
        m["checkpoint"] = used;
        m["data"] = data_file.empty() ? "test split" : data_file;
        return m;
    }
    const std::vector<Example> examples = data_file.empty() ? l.splits.test : read_dataset_file(data_file);
    if (examples.empty()) throw std::invalid_argument(data_file + ": no examples");
    json m = l.scheme->evaluate(l.model, l.scheme->encode(examples), l.device, max_mispredictions);
    m["method"] = l.config.method;
    m["tokens_per_number"] = tokens_per_number(*l.scheme, examples);
    m["epoch_seconds"] = recorded_eval_field(run_dir, "epoch_seconds");
    m["epoch_cpu_seconds"] = recorded_eval_field(run_dir, "epoch_cpu_seconds");
    m["checkpoint"] = used;
    m["data"] = data_file.empty() ? "test split" : data_file;
    return m;
}

json predict_run(const std::string& run_dir, const std::string& prompt, int threads) {
    std::string used;
    Loaded l = load_for_inference(run_dir, threads, used, false);
    if (l.config.is_text())
        throw std::invalid_argument(fs::path(run_dir).filename().string() + " is a text run (task " +
                                    l.config.text_task + "): ask it with fone generate --run RUN \"PROMPT\"");
    const Batch b = l.scheme->encode_prompt(prompt);
    json out = l.scheme->explain(l.model, to_device(b, l.device));
    json tokens = json::array();
    const auto row = (b.prompt.defined() ? b.prompt : b.in.tokens)[0];
    for (int64_t k = 0; k < row.size(0); ++k)
        tokens.push_back(l.scheme->vocabulary()[static_cast<std::size_t>(row[k].item<int64_t>())]);
    out["prompt"] = prompt;
    out["tokens"] = tokens;
    out["method"] = l.config.method;
    out["checkpoint"] = used;
    return out;
}

json generate_run(const std::string& run_dir, const GenerateRequest& r, const EventSink& on_token) {
    if (!(r.temperature >= 0) || !std::isfinite(r.temperature))
        throw std::invalid_argument("--temperature must be a number >= 0 (0: greedy)");
    if (r.top_k < 0) throw std::invalid_argument("--top-k must be >= 0 (0: every token)");
    if (r.max_tokens < 1 || r.max_tokens > 100000)
        throw std::invalid_argument("--max-tokens must be in 1..100000");
    std::string used;
    Loaded l = load_for_inference(run_dir, r.threads, used, false);
    const std::string run = fs::path(run_dir).filename().string();
    if (!l.config.is_text())
        throw std::invalid_argument(run + " is an arithmetic run (task " + l.config.task_label() +
                                    "): fone generate takes text runs (fone train --task text|word-problems|"
                                    "units|tables); ask this one with fone predict");
    const auto& text = dynamic_cast<const TextLmScheme&>(*l.scheme);
    const TextTokenizer& tok = text.tokenizer();
    const bool answer = text_run_has_prompts(l.config) && !r.continue_text;
    if (answer && r.prompt.find_first_not_of(" \t\r\n") == std::string::npos)
        throw std::invalid_argument(
            "the prompt is empty (this run answers prompts; --continue starts from nothing)");
    EncodedText prompt;
    try {
        prompt = text.prompt_tokens(r.prompt, answer);
    } catch (const NumberError& e) {
        throw NumberError(std::string("prompt: ") + e.what());
    } catch (const TokenizerError& e) {
        throw std::invalid_argument(std::string("prompt: ") + e.what());
    }
    GenerateOptions o;
    o.temperature = r.temperature;
    o.top_k = r.top_k;
    o.max_tokens = r.max_tokens;
    o.seed = r.seed;
    std::vector<int> ids;  // the generated tokens so far, [EOS] left out
    std::vector<Decimal> values;
    std::string shown;  // the text handed out so far
    int index = 0;
    const auto on = [&](std::size_t, const GeneratedToken& g) {
        json e = {{"event", "token"},
                  {"index", index++},
                  {"id", g.id},
                  {"piece", tok.piece(g.id)},
                  {"probability", g.probability}};
        std::string delta;
        if (g.id != text_token::kEos) {
            ids.push_back(g.id);
            if (g.value) values.push_back(*g.value);
            const std::string now = tok.decode(ids, values);
            // Bytes of a character that is not complete yet decode to U+FFFD: wait for the rest.
            const bool partial = now.ends_with("\xEF\xBF\xBD") && g.id >= 6 && g.id < 262;
            if (!partial && now.starts_with(shown)) {
                delta = now.substr(shown.size());
                shown = now;
            }
        }
        e["text"] = delta;
        if (g.value) e["number"] = g.value->to_string();
        if (on_token) on_token(e);
    };
    const Generation g = text.generate(l.model, {prompt}, o, on)[0];
    const std::string whole = text.generated_text(g);
    json numbers = json::array();
    for (const ParsedNumber& x : parse_numbers(whole).numbers)
        numbers.push_back(x.value.to_string());
    return {{"event", "end"},
            {"prompt", r.prompt},
            {"text", whole},
            {"numbers", numbers},
            {"tokens", g.ids.size()},
            {"stop", g.ended              ? "eos"
                     : g.out_of_positions ? "max_seq"
                                          : "max_tokens"},
            {"method", l.config.method},
            {"run", run},
            {"checkpoint", used}};
}

namespace {

// Inputs of equal length as one batch: each defined field concatenated along the batch dimension.
ModelInputs cat_inputs(const std::vector<ModelInputs>& inputs) {
    const auto cat = [&](torch::Tensor ModelInputs::*field) {
        if (!(inputs.front().*field).defined()) return torch::Tensor();
        std::vector<torch::Tensor> parts;
        for (const ModelInputs& in : inputs)
            parts.push_back(in.*field);
        return torch::cat(parts);
    };
    return {cat(&ModelInputs::tokens),   cat(&ModelInputs::key_mask), cat(&ModelInputs::fone),
            cat(&ModelInputs::num_mask), cat(&ModelInputs::scale),    cat(&ModelInputs::positions)};
}

}  // namespace

NumberRepresentations number_representations(const std::string& run_dir, const std::vector<Decimal>& numbers,
                                             int threads) {
    std::string used;
    Loaded l = load_for_inference(run_dir, threads, used, false);
    torch::NoGradGuard no_grad;
    NumberRepresentations out;
    for (const Decimal& x : numbers)
        out.numbers.push_back(x.to_string());
    auto rows_of = [](const torch::Tensor& m) {  // [N, D] float -> nested vectors
        const auto c = m.to(torch::kCPU).to(torch::kFloat32).contiguous();
        std::vector<std::vector<float>> rows(static_cast<std::size_t>(c.size(0)));
        for (int64_t i = 0; i < c.size(0); ++i)
            rows[static_cast<std::size_t>(i)].assign(c[i].data_ptr<float>(),
                                                     c[i].data_ptr<float>() + c.size(1));
        return rows;
    };
    const ModelHeads heads = l.scheme->heads();
    if (heads.digit_slots > 0 || heads.regression > 0 ||
        (heads.fone_width > 0 && heads.abacus_positions == 0)) {
        out.source = "hidden_states";
        std::vector<std::vector<torch::Tensor>> per_layer;  // [layer][chunk] -> [n, D]
        // Prompts of equal length go through the model together, up to kChunk at a time (a number's prompt
        // has the same length for every number under these schemes; a longer one starts a new chunk).
        constexpr std::size_t kChunk = 256;
        std::vector<ModelInputs> pending;
        const auto flush = [&] {
            if (pending.empty()) return;
            std::vector<torch::Tensor> layers;
            l.model->forward(cat_inputs(pending), /*last_only=*/false, &layers);
            per_layer.resize(layers.size());
            for (std::size_t k = 0; k < layers.size(); ++k)
                per_layer[k].push_back(layers[k].select(1, -1));
            pending.clear();
        };
        for (const Decimal& x : numbers) {
            ModelInputs in = to_device(l.scheme->encode_prompt(x.to_string()), l.device).in;
            if (!pending.empty() &&
                (pending.size() == kChunk || in.tokens.size(1) != pending[0].tokens.size(1)))
                flush();
            pending.push_back(std::move(in));
        }
        flush();
        for (auto& layer : per_layer)
            layer = {torch::cat(layer)};
        for (const auto& layer : per_layer)
            out.layers.push_back(rows_of(layer.front()));
        return out;
    }
    out.source = "token_embeddings";
    const auto& vocab = l.scheme->vocabulary();
    std::vector<int64_t> ids;
    for (const Decimal& x : numbers) {
        const std::string name = x.to_string();
        const auto it = std::find(vocab.begin() + kFirstNumberToken, vocab.end(), name);
        if (x.negative() || it == vocab.end())
            throw std::invalid_argument("number " + name + " is not one token of method " + l.config.method);
        ids.push_back(it - vocab.begin());
    }
    out.layers.push_back(
        rows_of(l.model->embed->weight.index_select(0, torch::tensor(ids, torch::kInt64).to(l.device))));
    return out;
}

void export_model(const std::string& run_dir, const std::string& out_dir) {
    if (fs::exists(out_dir)) throw RunError(out_dir + " exists; choose a new folder");
    const std::string best = (fs::path(run_dir) / kBestCheckpoint).string();
    const std::string source = fs::exists(best) ? best : (fs::path(run_dir) / kLastCheckpoint).string();
    Checkpoint c = open_checkpoint(source);
    const auto spec_and_scheme = [&]() -> std::pair<FoneSpec, std::unique_ptr<NumberScheme>> {
        if (c.config.is_text()) {
            const FoneSpec spec = text_spec(c.config);
            return {spec, std::make_unique<TextLmScheme>(run_tokenizer(run_dir, c.config), spec, c.config)};
        }
        Splits splits;
        if (c.config.task.kind == TaskKind::file) splits = load_splits(c.config);
        const FoneSpec spec = spec_for(c.config, splits);
        return std::make_pair(spec, make_scheme(c.config, spec));
    }();
    TrainConfig config = c.config;
    FoneTransformer model = make_model(config, *spec_and_scheme.second);
    load_weights(c, model, source);
    const std::string tmp = out_dir + ".tmp-" + std::to_string(::getpid());
    fs::create_directories(tmp);
    torch::serialize::OutputArchive archive;
    model->save(archive);
    archive.write("meta.format", torch::tensor(kCheckpointFormat));
    archive.write("meta.config", string_tensor(c.config.to_json().dump()));
    archive.write("meta.position", torch::tensor({c.pos.step, c.pos.epoch, c.pos.batch_in_epoch}));
    archive.write("meta.times", torch::tensor({c.pos.best_exact_match, c.pos.train_seconds,
                                               c.pos.elapsed_seconds, c.pos.time_to_target},
                                              torch::kFloat64));
    archive.save_to((fs::path(tmp) / kBestCheckpoint).string());
    for (const char* f : {kConfigFile, kSummaryFile, kTokenizerFile})
        if (fs::exists(fs::path(run_dir) / f)) fs::copy_file(fs::path(run_dir) / f, fs::path(tmp) / f);
    write_status(tmp, kStatusFinished, "exported from " + fs::path(run_dir).filename().string());
    fs::rename(tmp, out_dir);
}

}  // namespace fone
