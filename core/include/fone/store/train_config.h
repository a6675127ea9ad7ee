// Everything a training run is: the task and data, the number method, the model, the optimiser, the
// seed. Saved as config.json in the run directory and inside every checkpoint (nanoGPT's rule), so a run
// can always be resumed, re-evaluated or re-run from its own files.
//
// Layers of settings, later ones win: defaults for the task and training-set size (chosen from
// measurements, see docs/training.md) <- a preset (--preset paper) <- a config file (--config FILE) <-
// command-line options.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "fone/numbers/fourier.h"
#include "fone/store/methods.h"  // the number methods (method_names, ...)
#include "fone/store/model_config.h"
#include "fone/tasks/tasks.h"
#include "fone/text/text_data.h"  // the text tasks (text_task_names_for_training)

namespace fone {

// The training-set size a run takes when none is given: 51,200 for the arithmetic tasks (docs/training.md),
// 20,000 for the text tasks but word-problems, whose default is one pass as long as the comparison's runs,
// kWordProblemTrainSize (docs/text.md, "Defaults for text tasks"). The one owner of these numbers:
// resolve_train_config, the Launch panel's placeholders, `fone data` and the Welcome race all ask
// default_train_size.
inline constexpr std::size_t kDefaultTrainSize = 51200;
inline constexpr std::size_t kDefaultTextTrainSize = 20000;
std::size_t default_train_size(const std::string& task);

struct TrainConfig {
    TaskOptions task;
    // The content digest of task.data_file (file_digest) when the run started, "" for generated data. With
    // it, task.data_file is an absolute path: a run never reads another file of the same name later.
    std::string data_digest;
    // A language model on text with numbers (issue 4, docs/text.md) instead of an arithmetic task:
    // "text" (the corpus task.data_file: JSONL of {"prompt", "answer"} or plain text, one document a
    // line) or a built-in generator, "word-problems", "units", "tables". Empty: the arithmetic task
    // `task`. In JSON it is the "task" key, like the arithmetic tasks' names.
    std::string text_task;
    std::string method = "fone";
    // A run takes train_size, epochs and batch from resolve_train_config (default_train_size and
    // default_train_settings); the initialisers are what it gives this struct's own task, dec-add with
    // uniform sampling, so that they never disagree with it (test_dry_run checks).
    std::size_t train_size = kDefaultTrainSize;
    std::size_t val_size = 1000;
    std::size_t test_size = 2000;

    int size_level = 0;  // 1..6 the paper's levels, 0: the custom shape in `model`
    ModelConfig model;
    // A Hugging Face model folder (Llama or Qwen2) a new run starts from (docs/pretrained.md): the model
    // takes its shape and weights, each of the method's tokens the embedding row(s) of the text that spells
    // it; the digit head and [NUM] are new. "" : a model of `model`'s shape from random weights.
    std::string init_from;

    int epochs = 5;
    double lr = 3e-3;
    std::size_t batch = 256;
    double warmup = 0.1;              // fraction of all steps spent in linear warm-up
    std::string schedule = "cosine";  // "cosine" (to 0 at the last step) or "constant"
    double clip = 1.0;                // gradient-norm clip (0: off)
    double weight_decay = 0.01;       // AdamW's decoupled weight decay
    double beta1 = 0.9, beta2 = 0.999;
    bool swap_operands = false;  // augment commutative tasks with b+a for every a+b in training

    std::uint64_t seed = 42;
    std::string device = "auto";  // "auto", "cpu", "cuda"
    // The arithmetic of training steps: "fp32", or "bf16" (autocast: the matrix products of the forward
    // pass in bf16, weights, gradients, optimiser and loss in fp32; docs/gpu.md, "bf16"). Evaluation stays
    // fp32.
    std::string precision = "fp32";
    int threads = 0;           // 0: auto, from the CPUs free when the run starts
    double target_acc = 0.0;   // stop once the test exact match reaches this (0: never)
    int eval_every = 0;        // steps between evaluations (0: once per epoch)
    int checkpoint_every = 0;  // steps between checkpoints (0: once per epoch)
    // What every evaluation records in <run>/snapshots/ (fone/analysis/snapshot_file.h): "representations"
    // (the probe set's hidden states at every layer) or "none".
    std::string snapshots = "representations";
    std::string name;    // run name ("" : generated)
    std::string preset;  // the preset it started from, for the record

    // FoNE digit slots; empty optionals take the task's own (task_spec).
    int int_digits = -1, frac_digits = -1;
    int period_base = 10;
    std::vector<int> period_multipliers;

    // Number Token Loss (method "ntl"): the weight of the Wasserstein-1 term and the tokens it sits on
    // ("digit" or "subword").
    double ntl_lambda = 0.3;
    std::string ntl_tokens = "digit";
    // Abacus (methods "abacus", "fone+abacus"): training adds a random offset in 0..abacus_max_offset to
    // every number's digit positions, so that positions past the training lengths get trained too.
    int abacus_max_offset = 20;
    // Subword chunks (methods subword, ntl and numerologic on subword tokens): "l2r" cuts digits into
    // threes from the left, as Llama-3 does; "r2l" from the point outwards (Singh & Strouse 2024), so
    // chunks align with the thousands. NumeroLogic's tokens: "digit" or "subword".
    std::string subword_direction = "l2r";
    std::string numerologic_tokens = "digit";
    // BitTokens: the 64 bits of 1/x after the 64 bits of x, as in the BitTokens paper's runs
    // (add_reciprocal); without it 64 features.
    bool bittokens_reciprocal = true;

    // Text tasks. The weight of the Fourier digit loss (method fone) against the next-token cross-entropy,
    // wherever the next token is a number; the SentencePiece vocabulary of the text pieces (trained on
    // the train split at the start of the run, saved as tokenizer.model in the run directory); which
    // tokens the loss is on: "all" (every token after [BOS]: prompt and answer, as a language model) or
    // "answer" (what follows [ANS], the answer the model writes). The share of drills among the
    // training examples of word-problems (generate_text_splits; 0 in runs made before drills existed).
    double digit_loss_weight = 1.0;
    int text_vocab_size = 1000;
    std::string text_loss = "all";
    double drills = 0;
    // Text documents (examples without a prompt) packed into windows of this many tokens (issue 30):
    // documents follow one another, a long one is cut at window boundaries (never inside a number), and a
    // split's memory is its token count, not documents x the longest. 0: one row per example, padded to
    // the longest (examples with prompts always; text runs made before this setting).
    int text_context = 0;
    // fone-adapter (the paper's simplified FoNE on a pretrained model): the first align_steps optimiser steps
    // train only the projection of the number pieces' FoNE (the alignment phase), every weight after them;
    // -1: the whole run is the alignment phase.
    int align_steps = -1;
    // Text: a number that the run's digit slots cannot hold (more digits than kMaxTextNumberDigits in
    // all, or than --int-digits/--frac-digits) is text to every method, and counted in the corpus report;
    // strict_numbers makes it an error instead, before the run directory is made (docs/number-parsing.md).
    bool strict_numbers = false;
    // A training budget in CPU seconds (user + system of the process, over the training steps only: no
    // evaluation, no data loading): the run ends at the first step that reaches it, or after `epochs`
    // when that comes first, and its learning-rate schedule runs over the budget (warm-up and cosine by
    // the share of it spent). 0: none, the schedule runs over the epochs' steps. Equal compute for
    // methods whose steps cost differently (docs/training.md, "A CPU budget").
    double cpu_seconds = 0;

    bool is_text() const { return !text_task.empty(); }
    // Whether the method writes numbers in subword chunks (subword, or ntl/numerologic on subword tokens).
    bool writes_subword_chunks() const;
    // The task's name as written in "task": a text task, else the arithmetic task's.
    std::string task_label() const;

    // Throws std::invalid_argument with every problem found, one per line, naming the option.
    void validate() const;
    nlohmann::json to_json() const;
    // Unknown keys and wrong types are errors (std::invalid_argument naming the key).
    static TrainConfig from_json(const nlohmann::json& j);
};

// A config file (`fone train --config FILE`, or a run's own config.json): a JSON object of TrainConfig
// keys; its "versions" record is dropped. RunError when missing or not JSON (naming the file and byte),
// std::invalid_argument when it is JSON but not an object. config_settings_from_text does the same for
// text already read (`where` names it in errors).
nlohmann::json read_config_file(const std::string& path);
nlohmann::json config_settings_from_text(const std::string& text, const std::string& where);
// The settings of a JSON value read elsewhere (a run's config.json the window holds), as those two do:
// "versions" dropped, std::invalid_argument naming `where` when it is not an object. Its "preset" ("" when
// none was named) is the resolver's to read.
nlohmann::json settings_object(nlohmann::json j, const std::string& where);

// The defaults for a task and training-set size, as a JSON object of TrainConfig keys.
nlohmann::json default_train_settings(const std::string& task, std::size_t train_size);
// The defaults a run that starts from a pretrained model (init_from) takes over the task's: the paper's
// fine-tuned Llama-3.2-1B baseline, lr 5e-5, batch 200, 20% warm-up.
nlohmann::json pretrained_train_settings();

// Named presets: "paper" (lr 5e-3, batch 512, 100 epochs, 20% warm-up + cosine, clip 1.0, level 4),
// "fast" (the measured defaults, same as no preset). Throws std::invalid_argument for unknown names.
nlohmann::json preset_settings(const std::string& preset);
std::vector<std::string> preset_names();

// Where a setting's value came from, as `fone train --dry-run` and the Launch panel show it. The resolver
// names its own layers with these and "preset <name>"; its callers name theirs ("config file run.json",
// "flag --lr"). kSourceDefault: TrainConfig's initialisers, the same for every task.
inline constexpr const char* kSourceDefault = "default";
inline constexpr const char* kSourceTaskDefault = "default for the task and size";  // default_train_settings
inline constexpr const char* kSourcePretrained = "pretrained defaults";  // pretrained_train_settings

// One layer of settings (a JSON object of TrainConfig keys) and its source.
using SettingsLayer = std::pair<std::string, nlohmann::json>;

struct SourcedSetting {
    std::string key;  // a key of TrainConfig::to_json(), or of its "model" object as "model.hidden"
    nlohmann::json value;
    std::string source;
};

struct ResolvedSettings {
    TrainConfig config;
    // Every key of config.to_json() in its order (by name), the "model" object's keys as "model.<key>".
    std::vector<SourcedSetting> settings;

    // nullptr for a key that is not there.
    const SourcedSetting* find(const std::string& key) const;
    // {"config": config.to_json(), "sources": {"<key>": "<source>", ...}}
    nlohmann::json to_json() const;
};

// Layers settings (later wins) onto the defaults for the task and size that the layers themselves name
// (default_train_size when they name none), the pretrained defaults when they name init_from, and the
// preset they name; validates unless `validate` is false (the Launch panel's placeholders while a field
// is still wrong). Wrong types are std::invalid_argument either way. Training and `fone train --dry-run`
// both call it, so that what a dry run shows is what a run gets.
ResolvedSettings resolve_with_sources(const std::vector<SettingsLayer>& layers, bool validate = true);
// resolve_with_sources(...).config, for callers that need no sources.
TrainConfig resolve_train_config(const std::vector<nlohmann::json>& layers);

}  // namespace fone
