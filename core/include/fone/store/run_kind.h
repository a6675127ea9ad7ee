// The kind of a run: the one question every command asks of a run before it answers it (issue 40). An
// arithmetic run learns a task of numbers and operators and answers prompts ("12+5="); a text run is a
// language model on text with numbers, with a tokenizer of its own; a fone-adapter run is a pretrained
// model's own tokens with FoNE added to its number pieces. Each command answers some kinds; for the others
// it says so in one sentence, built here for all of them, that names what does answer the run.
#pragma once

#include <string>

#include "fone/store/train_config.h"

namespace fone {

enum class RunKind { arithmetic, text, adapter };

// A run's kind from its config: fone-adapter by its method's row (the pretrained-adapter family), text by
// its task, arithmetic otherwise.
RunKind run_kind(const TrainConfig& config);
// The same from a run's config.json as JSON (its "method" and "task"), for readers that do not parse the
// whole config (the window's views).
RunKind run_kind_of(const nlohmann::json& config);
// "arithmetic", "text", "fone-adapter".
std::string run_kind_name(RunKind kind);

// The commands that ask a run something, as their users type them ("fone predict"), each with the kinds
// it answers: predict (arithmetic), generate (text, fone-adapter), eval (every kind), token-loss and the
// arithmetic benchmark (text, fone-adapter), the typed suite (arithmetic).
enum class RunCommand { predict, generate, eval, token_loss, benchmark, typed_suite };
std::string command_text(RunCommand command);
bool answers(RunCommand command, RunKind kind);

// The one sentence a command gives a run it does not answer: what the run is, which runs the command
// takes, and the commands that do answer this one (`task` as the run's config names it); e.g. "wp is a text
// run (task word-problems): fone predict takes arithmetic runs; ask this one with fone generate, fone eval,
// fone eval --benchmark arithmetic or fone analyse token-loss".
std::string not_answered(const std::string& run, const TrainConfig& config, RunCommand command);
std::string not_answered(const std::string& run, RunKind kind, const std::string& task, RunCommand command);
// Throws std::invalid_argument(not_answered(...)) unless `command` answers the run's kind.
void check_answers(const std::string& run, const TrainConfig& config, RunCommand command);

}  // namespace fone
