// The training loop and the runs it trains: train_new, train_resume, request_stop.
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <numbers>
#include <numeric>
#include <optional>
#include <random>

#include "checkpoints/checkpoint_file.h"
#include "checkpoints/run_model.h"
#include "fone/analysis/snapshot_file.h"
#include "fone/build_info.h"
#include "fone/io/file_read.h"
#include "fone/nn/device.h"
#include "fone/platform/thread_environment.h"
#include "fone/store/run_lock.h"
#include "fone/store/run_policy.h"
#include "fone/text/corpus.h"
#include "fone/train/training.h"
#include "hf/init_from.h"
#include "nn/device_setup.h"
#include "nn/gradients.h"
#include "nn/timing.h"
#include "probes/grokking_probe.h"
#include "probes/snapshot_writer.h"
#include "schemes/adapter_scheme.h"
#include "train/data_parallel.h"
#include "train/run_folder_repair.h"
#include "train/thread_tuning.h"
#include "train/trainable.h"
#include "train/typed_eval.h"

namespace fone {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

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

// Test hook for the reliability tests: FONE_INJECT_NAN_STEP=N makes the loss NaN at step N.
int64_t injected_nan_step() {
    const char* v = std::getenv("FONE_INJECT_NAN_STEP");
    return v ? std::atoll(v) : -1;
}

// What one optimiser step did.
struct Step {
    double loss = 0.0, lr = 0.0;
    bool epoch_end = false;  // the step finished an epoch
    int64_t examples = 0;    // trained in
    double seconds = 0.0;
};

// This session's training time: in the current epoch (the eval event's epoch_seconds) and since the last
// progress event (its examples_per_second).
struct TrainingClock {
    double epoch_seconds = 0.0, epoch_cpu_seconds = 0.0;
    int64_t epoch_examples = 0;
    double seconds_since_progress = 0.0;
    int64_t examples_since_progress = 0;
    Clock::time_point last_progress;

    void add(int64_t examples, double seconds, double cpu_seconds) {
        epoch_seconds += seconds;
        epoch_cpu_seconds += cpu_seconds;
        seconds_since_progress += seconds;
        epoch_examples += examples;
        examples_since_progress += examples;
    }
    void start_epoch() {
        epoch_seconds = 0.0;
        epoch_cpu_seconds = 0.0;
        epoch_examples = 0;
    }
    void progress_reported() {
        last_progress = Clock::now();
        examples_since_progress = 0;
        seconds_since_progress = 0.0;
    }
};

class Trainer {
  public:
    Trainer(TrainConfig config, std::string run_dir, const EventSink& sink, ParallelPlan plan)
        : dir_(std::move(run_dir)), sink_(sink), plan_(std::move(plan)) {
        run_.config = std::move(config);
    }

    TrainOutcome run(Checkpoint* resume_from);

  private:
    std::string dir_;
    std::string identity_;  // the run's (run_identity of its config.json), in every checkpoint
    const EventSink& sink_;
    ParallelPlan plan_;  // data-parallel training (data_parallel.h): only its lead (rank 0) writes the run
    bool stop_agreed_ = false;          // some rank was asked to stop: every rank stops after the same step
    std::vector<double> rank_seconds_;  // each rank's seconds of forward and backward since the last progress
    double reduce_seconds_ = 0.0;       // this rank's all-reduce seconds since the last progress
    RunModel run_;                      // run_.config: the run's settings, as opening the model settled them
    torch::Device device_{torch::kCPU};
    Batch train_;                 // the train split on the device
    json tokens_per_number_ = 1;  // the arithmetic tasks' largest operand; text: the mean per number
    json text_info_;              // text runs: the tokenizer and token counts, for the start event
    std::unique_ptr<torch::optim::AdamW> opt_;
    Position pos_;
    int64_t steps_per_epoch_ = 0, total_steps_ = 0, nan_step_ = -1;
    torch::Tensor order_;  // of the examples in epoch order_epoch_
    int64_t order_epoch_ = -1;
    Clock::time_point session_start_;
    double session_base_elapsed_ = 0.0;
    TrainingClock clock_;
    json last_eval_;
    double counted_em_ = 0.0;     // the exact match the last evaluation counted (every rank: the lead's)
    ThreadChoice threads_;        // how the run's threads were chosen (the start event says why)
    ThreadTuning thread_tuning_;  // --threads 0: fewer threads when more are not faster, more when they are
    TypedSuiteBatches typed_;     // addition and subtraction: the typed suite, scored at every evaluation
    std::unique_ptr<GrokkingProbe> grokking_;  // mod-add token runs: grokking's measures at every evaluation

    const TrainConfig& cfg() const { return run_.config; }
    double elapsed() const { return session_base_elapsed_ + seconds_since(session_start_); }
    double epoch_float() const {
        return pos_.epoch + static_cast<double>(pos_.batch_in_epoch) / steps_per_epoch_;
    }
    std::string path(const char* file) const { return (fs::path(dir_) / file).string(); }
    void emit(json event, bool to_metrics);

    void open(Checkpoint* resume_from);
    void announce(bool resumed);
    json start_event(bool resumed);
    double lr_at(int64_t step) const;
    bool budget_spent() const { return cfg().cpu_seconds > 0 && pos_.train_cpu_seconds >= cfg().cpu_seconds; }
    Step train_step();
    bool stop_requested() const { return plan_.group ? stop_agreed_ : stop_requests().any(); }
    bool sharded_update(const Batch& b, Step& s);
    void add_ranks_progress(json& event);
    void evaluate_extras(json& e);
    void report_progress(const Step& step);
    void tune_threads(const Step& step);
    bool evaluation_due(const Step& step) const;
    void evaluate();
    json eval_event(double epoch_seconds, double epoch_cpu_seconds, double train_examples_per_second);
    double counted_exact_match() const;
    bool reached_target() const;
    bool checkpoint_due(const Step& step) const;
    void save_progress();
    void checkpoint(const char* file);
    TrainOutcome finish_at_target();
    TrainOutcome finish_at_budget();
    TrainOutcome finish(const std::string& status, const std::string& message);
    TrainOutcome stop_while_waiting();
    TrainOutcome train(Checkpoint* resume_from);
    void record_failure(const std::string& message) noexcept;
};

// The loop: a step, progress, evaluation (and the best model), checkpoints; a stop request, a loss that is
// not finite or the target exact match ends it early.
TrainOutcome Trainer::run(Checkpoint* resume_from) {
    try {
        return train(resume_from);
    } catch (const StoppedWhileWaiting&) {
        return stop_while_waiting();
    } catch (const RankFailure& e) {
        record_failure(e.what());  // a collective failed: the line names the rank behind it
        throw;
    } catch (const std::exception& e) {
        if (plan_.group) plan_.group->post_failure(e.what());  // the others' collectives name this rank
        // A full disk, a device error: status.json says "failed" at this step, then the error goes up as one
        // line (every checkpoint written before is whole: they are replaced only by complete files).
        std::string what = e.what();
        record_failure(what.substr(0, what.find('\n')));
        throw;
    }
}

// Ctrl-C while a rank hangs: the step being summed was not taken, the weights are the last step's of every
// rank; the lead checkpoints them (nothing lost) and the group is left behind (its threads wait in it).
TrainOutcome Trainer::stop_while_waiting() {
    plan_.group->abandon();
    checkpoint(kLastCheckpoint);
    return finish(kStatusStopped, "stopped on request at step " + std::to_string(pos_.step) +
                                      ", while waiting for a rank that did not answer");
}

// The failure in status.json, if that can still be written (on a full disk it may not: the run then reads
// as interrupted, its lock being free, and resumes all the same).
void Trainer::record_failure(const std::string& message) noexcept {
    if (!plan_.lead()) return;
    try {
        write_status(dir_, kStatusFailed, message + " (at step " + std::to_string(pos_.step) + ")",
                     {{"step", pos_.step}, {"epoch", pos_.epoch}, {"total_steps", total_steps_}});
    } catch (...) {
    }
}

TrainOutcome Trainer::train(Checkpoint* resume_from) {
    session_start_ = Clock::now();
    open(resume_from);
    announce(resume_from != nullptr);
    while (pos_.epoch < cfg().epochs) {
        if (stop_requested()) {
            checkpoint(kLastCheckpoint);
            return finish(kStatusStopped, "stopped on request at step " + std::to_string(pos_.step));
        }
        const Step step = train_step();
        if (!std::isfinite(step.loss))
            return finish(kStatusFailed,
                          "loss is " + std::string(std::isnan(step.loss) ? "NaN" : "infinite") + " at step " +
                              std::to_string(pos_.step) + " (try a lower --lr, or --clip 1)");
        report_progress(step);
        tune_threads(step);
        if (evaluation_due(step)) {
            evaluate();
            if (reached_target()) return finish_at_target();
        }
        if (step.epoch_end) clock_.start_epoch();
        if (budget_spent()) return finish_at_budget();
        if (checkpoint_due(step)) save_progress();
    }
    checkpoint(kLastCheckpoint);
    return finish(kStatusFinished, "trained " + std::to_string(cfg().epochs) + " epochs");
}

// --cpu-seconds: the budget is spent (the last step was evaluated: evaluation_due).
TrainOutcome Trainer::finish_at_budget() {
    checkpoint(kLastCheckpoint);
    char what[160];
    std::snprintf(what, sizeof what, "spent the budget of %g CPU seconds (%.1f) at step %lld, epoch %.2f",
                  cfg().cpu_seconds, pos_.train_cpu_seconds, static_cast<long long>(pos_.step),
                  epoch_float());
    return finish(kStatusFinished, what);
}

// The run's model (a checkpoint's weights and optimiser state when resuming), its data, its optimiser.
void Trainer::open(Checkpoint* resume_from) {
    // A quarter of a second of the machine's load at least (usually the start-up's own), for an automatic
    // choice. A data-parallel rank's steps wait for the other ranks: its own step times would mislead.
    threads_ = set_threads(cfg().threads, 0.25);
    device_ = rank_device(cfg().device, plan_);
    thread_tuning_.start(threads_, device_.is_cpu() && plan_.world_size() == 1);
    identity_ = run_identity_of(dir_);
    torch::manual_seed(cfg().seed);
    const auto scratch = rank_scratch(plan_, cfg().is_text() && !resume_from);  // removed once it is open
    run_ = open_run_model(cfg(), scratch ? scratch->path() : dir_, RunData::batches, resume_from);
    if (run_.kind == RunKind::adapter) {
        tokens_per_number_ = run_.adapter->tokens_per_number(run_.text_splits.test);
        text_info_ = {{"tokenizer", std::string(kPretrainedFilesDir) + "/tokenizer.json"},
                      {"vocab_size", run_.adapter->vocabulary().size()},
                      {"number_pieces", run_.adapter->number_piece_count()}};
    } else if (run_.text) {
        const TokenCounts counts = count_tokens(run_.text->tokenizer(), run_.text_splits.test);
        tokens_per_number_ = counts.tokens_per_number();
        text_info_ = {
            {"tokenizer", kTokenizerFile},
            {"text_pieces", run_.text->tokenizer().text_piece_count()},
            {"vocab_size", run_.text->tokenizer().vocab_size()},
            {"tokens_per_example", counts.tokens_per_example()},
            {"digit_loss_weight", cfg().digit_loss_weight},
            {"text_loss", cfg().text_loss},
            {"corpus", corpus_numbers_json(run_.text_splits, run_.text->tokenizer().number_limits())}};
    } else {
        tokens_per_number_ = tokens_per_number(*run_.scheme, run_.splits.test);
        // Runs on the typed mixture are scored on the typed suite at every evaluation; uniform runs (the
        // paper's reproductions) keep their evaluation cost: `fone eval --suite typed` scores them.
        if (cfg().task.sampling == "typed") typed_ = encode_typed_suite(*run_.scheme, cfg().task.kind);
        grokking_ = GrokkingProbe::make(run_);
    }
    opt_ = std::make_unique<torch::optim::AdamW>(run_.model->parameters(),
                                                 torch::optim::AdamWOptions(cfg().lr)
                                                     .betas({cfg().beta1, cfg().beta2})
                                                     .weight_decay(cfg().weight_decay));
    run_.model->to(device_);
    if (resume_from) {
        load_optimizer(*resume_from, run_.model, *opt_);
        pos_ = resume_from->pos;
        session_base_elapsed_ = pos_.elapsed_seconds;
    }
    if (plan_.group) broadcast_weights(*plan_.group, run_.model);
    if (plan_.active() && cfg().cpu_seconds > 0)
        throw std::invalid_argument("cpu_seconds: a CPU budget is one process's; train it without --nproc");
    train_ = to_device(run_.train, device_);
    const int64_t batch = static_cast<int64_t>(cfg().batch);
    steps_per_epoch_ = (train_.n + batch - 1) / batch;
    total_steps_ = steps_per_epoch_ * cfg().epochs;
    nan_step_ = injected_nan_step();
}

// status.json says "running", metrics.jsonl records a resume, the start event goes out.
void Trainer::announce(bool resumed) {
    if (!plan_.lead()) return;
    write_status(dir_, kStatusRunning, resumed ? "resumed" : "",
                 {{"step", pos_.step}, {"epoch", pos_.epoch}, {"total_steps", total_steps_}});
    if (resumed) {
        // A last line cut short (a power cut, a full disk) is removed first: new lines start lines of their
        // own.
        json record = {{"event", "resume"}, {"step", pos_.step}};
        if (const std::size_t cut = repair_jsonl_tail(path(kMetricsFile)); cut > 0)
            record["repaired_tail_bytes"] = cut;
        append_jsonl(path(kMetricsFile), record);
    }
    emit(start_event(resumed), false);
    clock_.progress_reported();  // the first progress event comes half a second into the loop
}

json Trainer::start_event(bool resumed) {
    const ParamCount params = param_count(run_.model);
    const int64_t seq_len = train_.in.tokens.size(1);
    // Token schemes compute the LM head at every position; the number-token schemes at the last only.
    const int64_t head_positions = train_.targets.defined() ? seq_len : 1;
    const FoneSpec& spec = run_.spec;
    json start = {
        {"event", "start"},
        {"run", fs::path(dir_).filename().string()},
        {"dir", dir_},
        {"resumed", resumed},
        {"step", pos_.step},
        {"total_steps", total_steps_},
        {"train_examples", train_.n},
        {"test_examples", run_.test.n},
        {"sequence_length", seq_len},
        {"fone",
         {{"int_digits", spec.int_digits}, {"frac_digits", spec.frac_digits}, {"width", spec.width()}}},
        {"params", params.total},
        {"params_without_embedding", params.without_embedding()},
        {"flops_per_example",
         train_flops_per_example(cfg().model, static_cast<int>(seq_len), static_cast<int>(head_positions))},
        {"method", cfg().method},
        {"tokens_per_number", tokens_per_number_},
        {"device", device_.str()},
        {"precision", cfg().precision},
        {"threads", torch::get_num_threads()},
        {"threads_reason", threads_.reason},
        {"openmp_wait_policy", openmp_wait().policy},
        {"config", cfg().to_json()}};
    if (run_.kind != RunKind::arithmetic) start["text"] = text_info_;
    if (plan_.active())
        start["data_parallel"] = {{"processes", plan_.world_size()},
                                  {"gradient_shards", plan_.gradient_shards},
                                  {"launcher", plan_.group ? plan_.group->setup().launcher : ""}};
    return start;
}

double Trainer::lr_at(int64_t step) const {
    const TrainConfig& c = cfg();
    if (c.cpu_seconds > 0) {
        // The share of the run done: of the CPU budget, or of the epochs' steps when they end first.
        const double done =
            std::min(1.0, std::max(pos_.train_cpu_seconds / c.cpu_seconds,
                                   static_cast<double>(step + 1) / static_cast<double>(total_steps_)));
        if (done < c.warmup) return c.lr * done / c.warmup;
        if (c.schedule == "constant") return c.lr;
        return c.lr * 0.5 * (1.0 + std::cos(std::numbers::pi * (done - c.warmup) / (1.0 - c.warmup)));
    }
    const int64_t warm = static_cast<int64_t>(std::llround(c.warmup * static_cast<double>(total_steps_)));
    if (step < warm) return c.lr * static_cast<double>(step + 1) / static_cast<double>(warm);
    if (c.schedule == "constant") return c.lr;
    const double progress =
        static_cast<double>(step - warm) / static_cast<double>(std::max<int64_t>(1, total_steps_ - warm));
    return c.lr * 0.5 * (1.0 + std::cos(std::numbers::pi * std::min(1.0, progress)));
}

// One optimiser step on the next batch of the epoch's order; the position moves to the batch after it.
// A loss that is not finite comes back before any update (the run fails at this step).
Step Trainer::train_step() {
    if (order_epoch_ != pos_.epoch) {
        order_ = torch::tensor(epoch_order(cfg().seed, pos_.epoch, train_.n), torch::kInt64).to(device_);
        order_epoch_ = pos_.epoch;
    }
    const auto t0 = Clock::now();
    const double cpu0 = process_cpu_seconds();
    const int64_t batch = static_cast<int64_t>(cfg().batch);
    const int64_t start = pos_.batch_in_epoch * batch, len = std::min(batch, train_.n - start);
    const Batch b = select_rows(train_, order_.narrow(0, start, len));
    Step s;
    s.lr = lr_at(pos_.step);
    for (auto& group : opt_->param_groups())
        static_cast<torch::optim::AdamWOptions&>(group.options()).lr(s.lr);
    if (run_.kind == RunKind::adapter)
        set_alignment_phase(run_.model, cfg().align_steps < 0 || pos_.step < cfg().align_steps);
    opt_->zero_grad();
    if (plan_.active()) {
        if (!sharded_update(b, s)) return s;
        if (cfg().clip > 0) clip_gradient_norm(run_.model->parameters(), cfg().clip);
    } else {
        // Training noise (Abacus offsets) from a generator seeded by (seed, step): resumable exactly.
        torch::manual_seed(cfg().seed * 1000003ULL + static_cast<std::uint64_t>(pos_.step) + 1);
        torch::Tensor loss;
        {
            const Bf16Autocast autocast(device_, cfg().precision == "bf16");
            loss = run_.scheme->loss(run_.model, b, true);
        }
        // Backward and the clip are queued before the loss is read: on a GPU, reading it first made the CPU
        // wait for the forward pass before it could queue the backward. A loss that is not finite still
        // comes back before the update.
        loss.backward();
        if (cfg().clip > 0) clip_gradient_norm(run_.model->parameters(), cfg().clip);
        s.loss = loss.item<double>();
        if (pos_.step == nan_step_) s.loss = std::nan("");
        if (!std::isfinite(s.loss)) return s;
    }
    opt_->step();

    // Advance to the position of the next batch: what a checkpoint written now records.
    ++pos_.step;
    s.epoch_end = ++pos_.batch_in_epoch == steps_per_epoch_;
    if (s.epoch_end) {
        pos_.batch_in_epoch = 0;
        ++pos_.epoch;
    }
    const double dt = seconds_since(t0), cpu = process_cpu_seconds() - cpu0;
    pos_.train_seconds += dt;
    pos_.train_cpu_seconds += cpu;
    clock_.add(len, dt, cpu);
    s.examples = len, s.seconds = dt;
    return s;
}

// The data-parallel step (data_parallel.h): this rank's shares, the gradients summed over the ranks; false
// when the summed loss is not finite (the run fails at this step, before any update).
bool Trainer::sharded_update(const Batch& b, Step& s) {
    const ShardedStep r = sharded_gradient(plan_, *run_.scheme, run_.model, b, cfg().seed, pos_.step,
                                           stop_requests().any(), cfg().precision == "bf16");
    s.loss = r.loss;
    stop_agreed_ = r.stop;
    reduce_seconds_ += r.reduce_seconds;
    rank_seconds_.resize(r.rank_seconds.size(), 0.0);
    for (std::size_t k = 0; k < r.rank_seconds.size(); ++k)
        rank_seconds_[k] += r.rank_seconds[k];
    if (pos_.step == nan_step_) s.loss = std::nan("");
    return std::isfinite(s.loss);
}

// Every rank's progress in the lead's event: its forward and backward seconds since the last event, and this
// rank's all-reduce seconds (waiting for the slowest rank included).
void Trainer::add_ranks_progress(json& event) {
    json ranks = json::array();
    for (std::size_t k = 0; k < rank_seconds_.size(); ++k)
        ranks.push_back({{"rank", k}, {"compute_seconds", rank_seconds_[k]}});
    event["ranks"] = ranks;
    event["allreduce_seconds"] = reduce_seconds_;
    event["step_seconds"] = clock_.seconds_since_progress;
    rank_seconds_.assign(rank_seconds_.size(), 0.0);
    reduce_seconds_ = 0.0;
}

// A progress event every half second, and at the last step.
void Trainer::report_progress(const Step& step) {
    if (seconds_since(clock_.last_progress) < 0.5 && pos_.step != total_steps_ && !budget_spent()) return;
    const double rate = clock_.examples_since_progress / std::max(clock_.seconds_since_progress, 1e-9);
    json event = {{"event", "progress"},
                  {"step", pos_.step},
                  {"total_steps", total_steps_},
                  {"epoch", epoch_float()},
                  {"loss", step.loss},
                  {"lr", step.lr},
                  {"examples_per_second", rate},
                  {"elapsed_seconds", elapsed()},
                  {"train_cpu_seconds", pos_.train_cpu_seconds},
                  {"eta_seconds",
                   (total_steps_ - pos_.step) * static_cast<double>(cfg().batch) / std::max(rate, 1e-9)}};
    if (plan_.group) add_ranks_progress(event);
    emit(event, true);
    clock_.progress_reported();
}

// The threads' change, when the adapter makes one, in the events and metrics.jsonl: the curves explain it.
void Trainer::tune_threads(const Step& step) {
    std::optional<json> change = thread_tuning_.after_step(step.examples, step.seconds);
    if (!change) return;
    (*change)["step"] = pos_.step;
    (*change)["epoch"] = epoch_float();
    (*change)["elapsed_seconds"] = elapsed();
    emit(*change, true);
}

bool Trainer::evaluation_due(const Step& step) const {
    const int64_t every = cfg().eval_every;
    if (budget_spent()) return true;  // the run's last step
    return every > 0 ? pos_.step % every == 0 || pos_.step == total_steps_ : step.epoch_end;
}

// The eval event; the best model so far (ties go to the later, more trained one) as
// checkpoint-best.safetensors.
void Trainer::evaluate() {
    // Seconds per epoch: this epoch's training time so far, scaled to the whole epoch when the evaluation
    // comes mid-epoch (--eval-every) or the session resumed mid-epoch; exact at an epoch's end.
    const double n = static_cast<double>(train_.n);
    const double done = static_cast<double>(std::max<int64_t>(1, clock_.epoch_examples));
    const double per_example = clock_.epoch_seconds / done;
    last_eval_ =
        eval_event(per_example * n, clock_.epoch_cpu_seconds / done * n, 1.0 / std::max(per_example, 1e-12));
    emit(last_eval_, true);
    // The lead's decision (its typed suite and extras are its own): every rank stops at the same step.
    counted_em_ = plan_.group ? from_lead(*plan_.group, counted_exact_match()) : counted_exact_match();
    const double em = counted_em_;
    if (plan_.lead()) write_snapshot(run_, device_, dir_, {pos_.step, epoch_float(), em});
    if (em >= pos_.best_exact_match) {
        pos_.best_exact_match = em;
        checkpoint(kBestCheckpoint);
    }
}

json Trainer::eval_event(double epoch_seconds, double epoch_cpu_seconds, double train_examples_per_second) {
    json e = split_evaluation(plan_, *run_.scheme, run_.model, run_.test, device_,
                              run_.kind != RunKind::arithmetic);
    e["event"] = "eval";
    e["method"] = cfg().method;
    e["tokens_per_number"] = tokens_per_number_;
    e["split"] = "test";
    e["step"] = pos_.step;
    e["epoch"] = epoch_float();
    e["epoch_seconds"] = epoch_seconds;
    e["epoch_cpu_seconds"] = epoch_cpu_seconds;
    e["examples_per_second"] = train_examples_per_second;
    if (plan_.lead()) evaluate_extras(e);
    e["elapsed_seconds"] = elapsed();
    return e;
}

// The exact match the best checkpoint and --target-acc go by: the test split's; for a run trained on
// typed sums the lowest of it and the typed suite's shapes, so that such a run is best, and done, when it
// gets the sums people type right as well as the paper's.
double Trainer::counted_exact_match() const {
    double em = last_eval_["exact_match"].get<double>();
    if (cfg().task.sampling == "typed" && last_eval_.contains("typed"))
        for (const auto& [shape, value] : last_eval_["typed"].items())
            em = std::min(em, value.get<double>());
    return em;
}

// The validation split, the typed suite, the temperature, grokking's measures: the lead's alone.
void Trainer::evaluate_extras(json& e) {
    if (run_.val.n > 0)
        e["val_exact_match"] = run_.scheme->evaluate(run_.model, run_.val, device_)["exact_match"];
    if (!typed_.shapes.empty()) e["typed"] = typed_exact_match(*run_.scheme, run_.model, typed_, device_);
    if (run_.model->slots > 0) e["temperature"] = run_.model->temperature();
    if (grokking_) e["grokking"] = grokking_->measure(run_.model, device_);
}

bool Trainer::reached_target() const {
    return cfg().target_acc > 0 && counted_em_ >= cfg().target_acc;
}

bool Trainer::checkpoint_due(const Step& step) const {
    return cfg().checkpoint_every > 0 ? pos_.step % cfg().checkpoint_every == 0 : step.epoch_end;
}

void Trainer::save_progress() {
    if (!plan_.lead()) return;
    checkpoint(kLastCheckpoint);
    write_status(dir_, kStatusRunning, "",
                 {{"step", pos_.step}, {"epoch", pos_.epoch}, {"total_steps", total_steps_}});
}

void Trainer::checkpoint(const char* file) {
    if (!plan_.lead()) return;
    Position p = pos_;
    p.elapsed_seconds = elapsed();
    save_checkpoint(path(file), run_.model, opt_.get(), cfg(), p, identity_);
}

TrainOutcome Trainer::finish_at_target() {
    pos_.time_to_target = elapsed();
    checkpoint(kLastCheckpoint);
    char what[96];
    std::snprintf(what, sizeof what, "reached the target exact match %.4g%% at step %lld",
                  100 * cfg().target_acc, static_cast<long long>(pos_.step));
    return finish(kStatusFinished, what);
}

// summary.json (unless a failed run has no checkpoint to summarise), status.json and the end event.
TrainOutcome Trainer::finish(const std::string& status, const std::string& message) {
    const double total = elapsed();
    json summary = {{"status", status},
                    {"message", message},
                    {"step", pos_.step},
                    {"epoch", pos_.epoch},
                    {"best_exact_match", std::max(0.0, pos_.best_exact_match)},
                    {"train_seconds", pos_.train_seconds},
                    {"train_cpu_seconds", pos_.train_cpu_seconds},
                    {"elapsed_seconds", total},
                    {"time_to_target_seconds", pos_.time_to_target >= 0 ? json(pos_.time_to_target) : json()},
                    {"final", last_eval_},
                    {"weights_digest", weights_digest(run_.model)}};
    const ParamCount params = param_count(run_.model);
    summary["params"] = params.total;
    summary["params_without_embedding"] = params.without_embedding();
    if (!plan_.lead()) return {status, dir_, message};
    if (status != kStatusFailed || fs::exists(path(kLastCheckpoint)))
        write_json_atomic(path(kSummaryFile), summary);
    write_status(dir_, status, message,
                 {{"step", pos_.step}, {"epoch", pos_.epoch}, {"total_steps", total_steps_}});
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

void Trainer::emit(json event, bool to_metrics) {
    if (!plan_.lead()) return;
    if (to_metrics) append_jsonl(path(kMetricsFile), event);
    if (sink_) sink_(event);
}

// Trains a run in dir (whose lock the caller holds); an error on the way is recorded in its status.json
// before it goes on.
TrainOutcome train_in(const TrainConfig& config, const std::string& dir, const EventSink& sink,
                      Checkpoint* resume_from, ParallelPlan plan = {}) {
    static const EventSink quiet;  // ranks other than 0 hand out no events
    Trainer t(config, dir, plan.lead() ? sink : quiet, std::move(plan));
    return t.run(resume_from);
}

// The device a run's config.json asks for ("auto" when it cannot be read: the restart then names the
// problem).
std::string run_device_setting(const std::string& run_dir) {
    std::string error;
    json record;
    (void)load_json((fs::path(run_dir) / kConfigFile).string(), record, error);
    return record.is_object() && record.value("device", json()).is_string()
               ? record["device"].get<std::string>()
               : "auto";
}

// This process's place among the ranks (a group of one when dist is not active).
ParallelPlan connect_ranks(const std::string& device, const DistributedSetup& dist,
                           const std::string& signature) {
    ParallelPlan plan;
    if (!dist.active()) return plan;
    if (!distributed_available()) throw RunError(distributed_unavailable_message());
    plan.group = Collective::connect(dist, rank_device(device, dist), signature);
    return plan;
}

// Rank 0's part of starting: f makes or opens the run and returns the text the others receive under `key`
// (the run's folder, where it starts from); its failure is theirs too, named.
template <class F>
std::string lead_then_publish(ParallelPlan& plan, const std::string& key, F f) {
    try {
        std::string value = f();
        if (plan.group) plan.group->publish(key, value);
        return value;
    } catch (const std::exception& e) {
        if (plan.group)
            plan.group->publish(key, "!" + std::string(e.what()).substr(0, std::string(e.what()).find('\n')));
        throw;
    }
}

// Where a resume starts, as the store's run policy decides (fone/store/run_policy.h, goal resume): a
// finished run or one training in a live process is refused; a run killed before its first checkpoint has
// nothing to lose and starts again from its config.json (nullopt); any other continues from its last
// checkpoint. The checkpoint is opened first: a damaged one is the error even when the run has finished.
// holding_lock: the caller holds the run's lock, so a "running" status.json is a dead process's; without it
// a "running" run is not refused here (the lock decides, and names the holder).
std::optional<Checkpoint> resume_point(const std::string& run_dir, bool holding_lock) {
    const std::string last = (fs::path(run_dir) / kLastCheckpoint).string();
    const std::string legacy = (fs::path(run_dir) / kLegacyLastCheckpoint).string();
    std::optional<Checkpoint> c;
    if (fs::exists(last)) {
        c = open_run_checkpoint(run_dir, last);
    } else if (fs::exists(legacy)) {
        throw legacy_checkpoint_error(legacy);  // never opened, never trained over
    }
    RunWish wish;
    wish.goal = RunGoal::resume;
    wish.holding_lock = holding_lock;
    const RunDecision d = decide_run(run_dir, wish);
    if (d.action == RunAction::refuse && (holding_lock || d.status != kStatusRunning))
        throw RunError(d.reason);
    if (d.action == RunAction::restart) return std::nullopt;
    return c;
}

// A run killed before its first checkpoint, started again in the same directory from its config.json
// (same seed: the same weights an uninterrupted run reaches).
TrainOutcome restart_from_config(const std::string& run_dir, const EventSink& sink, int threads,
                                 ParallelPlan plan) {
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
    if (plan.lead() && fs::exists(metrics)) {
        json record = {{"event", "resume"}, {"step", 0}, {"restart", "no checkpoint yet"}};
        if (const std::size_t cut = repair_jsonl_tail(metrics); cut > 0) record["repaired_tail_bytes"] = cut;
        append_jsonl(metrics, record);
    }
    return train_in(config, run_dir, sink, nullptr, std::move(plan));
}

}  // namespace

void request_stop() {
    stop_requests().add();  // async-signal-safe: two lock-free atomics
}

TrainOutcome train_new(const TrainConfig& wanted, RunStore& store, const EventSink& sink,
                       const DistributedSetup& dist) {
    TrainConfig config = with_settled_data(wanted);
    // --init-from: config.json records the pretrained folder's shape, the one the run trains.
    if (!config.init_from.empty()) pretrained::adopt_pretrained_shape(config);
    check_trainable(config);  // on every rank: bad input stops them all alike, before they meet
    ParallelPlan plan = connect_ranks(config.device, dist, new_run_signature(config));
    plan.gradient_shards = plan.world_size();
    if (!plan.lead()) {
        const std::string made_by_lead = plan.group->receive("run_dir");
        return train_in(config, made_by_lead, sink, nullptr, std::move(plan));
    }
    RunLock lock;  // held until the run ends (or the process does)
    const std::string dir = lead_then_publish(plan, "run_dir", [&] {
        json record = config.to_json();
        record["versions"] = {
            {"fone", FONE_VERSION}, {"libtorch", torch_version()}, {"git_revision", FONE_GIT_REVISION}};
        const std::string made = store.create_run(config.name, record, &lock);
        if (plan.gradient_shards > 1) write_gradient_shards(made, plan.gradient_shards);
        return made;
    });
    return train_in(config, dir, sink, nullptr, std::move(plan));
}

TrainOutcome train_resume(const std::string& run_dir, const EventSink& sink, int threads,
                          const DistributedSetup& dist) {
    // Refusals that need no lock (a finished run, a damaged or older checkpoint) come first: a refused
    // command writes nothing, not even the lock file.
    refuse_unfinished_creation(run_dir);
    std::optional<Checkpoint> c = resume_point(run_dir, false);
    // A run without a checkpoint restarts from its config.json: its device is read there by every rank.
    ParallelPlan plan =
        connect_ranks(c ? c->config.device : run_device_setting(run_dir), dist, resume_signature(run_dir));
    RunLock lock;
    // Rank 0 decides where the run starts from ("checkpoint" or "config"); the others follow.
    const std::string from =
        !plan.lead() ? plan.group->receive("resume_from") : lead_then_publish(plan, "resume_from", [&] {
            // One process trains a run: a second one is refused here,
            // naming the first.
            lock = RunLock::acquire(run_dir);
            remove_stale_temporaries(run_dir);
            c = resume_point(run_dir, true);
            return std::string(c ? "checkpoint" : "config");
        });
    plan.gradient_shards = read_gradient_shards(run_dir);
    if (from == "config") return restart_from_config(run_dir, sink, threads, std::move(plan));
    if (!c) c = open_run_checkpoint(run_dir, (fs::path(run_dir) / kLastCheckpoint).string());
    if (threads >= 0) c->config.threads = threads;
    return train_in(c->config, run_dir, sink, &*c, std::move(plan));
}

}  // namespace fone
