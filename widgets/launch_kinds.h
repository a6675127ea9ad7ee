// The kinds of run the Launch panel (and the sweep on top of it) can start, each one thing `fone train`
// does: an arithmetic task (the paper's tables), a language model on text with numbers (a corpus: a file,
// the Factbook folder, the bundled sample; or a generator), and a run that starts from a pretrained model
// folder (--init-from): the fone-adapter on the model's own tokens and a text corpus, or fone / digit /
// subword fine-tuned on an arithmetic task. The kind decides which tasks and methods the form offers and
// which of its fields apply (the others are hidden, so a run never gets a setting it ignores), and the
// "Will train" sentence of a run that is not arithmetic.
#pragma once

#include <QString>
#include <QStringList>

#include <nlohmann/json.hpp>

namespace fone {
struct TrainConfig;
}

namespace fone::gui {

// The Launch form's kind, which decides its fields: not fone/store/run_kind.h's kind of a finished run (a
// pretrained folder fine-tuned on an arithmetic task is launched as "pretrained" and is an arithmetic run;
// a fone-adapter run is launched as "pretrained" and is an adapter run).
enum class LaunchKind { arithmetic, text, pretrained };

// "Arithmetic task", "Text (a language model)", "Pretrained model (--init-from)", in the Kind combo's
// order; the kind of a combo index.
QStringList launch_kind_titles();
LaunchKind launch_kind_at(int index);
int launch_kind_index(LaunchKind kind);
// The kind a settings object (a run's config.json, a preset) is: init_from names a folder -> pretrained,
// a text task -> text, else arithmetic.
LaunchKind launch_kind_of(const nlohmann::json& settings);

// The tasks and methods the form offers for a kind (and, for the methods, the task chosen): every
// arithmetic task; every text task; for a pretrained folder the arithmetic tasks and "text" (the adapter's).
QStringList kind_tasks(LaunchKind kind);
QStringList kind_methods(LaunchKind kind, const QString& task);
// Why a method does not apply to the kind and task (the sweep greys it out with this), "" when it does.
QString method_problem(LaunchKind kind, const QString& task, const QString& method);

// Whether a field of the form applies to a run of this kind, task and method (a field that does not is
// hidden and sends nothing). Keys are the form's: "data", "init_from", "model", "align_steps",
// "text_context", "text_vocab_size", "target_acc", "processes", and every other field (always shown).
bool field_applies(const QString& key, LaunchKind kind, const QString& task, const QString& method);

// The "Will train" sentence of a text or pretrained run (arithmetic runs have the panel's own): what it
// reads, what it trains, for how long.
QString will_train_text_run(const TrainConfig& c);

// `fone train` options for a settings object (TrainConfig keys): each key as its option, under the name
// the CLI gives it (text_context is --context, text_vocab_size --vocab-size, bittokens_reciprocal false
// --no-bittokens-reciprocal, swap_operands --swap-operands / --no-swap-operands), the "model" object's keys
// as --hidden, --head-dim, ...
QStringList train_flags(const nlohmann::json& settings);
// A setting's value as an option takes it: strings as they are, whole numbers as integers, other numbers
// as the shortest text that reads back as the same double.
QString setting_text(const nlohmann::json& value);

// The bundled sample of the Factbook (five countries): $FONE_FACTBOOK_SAMPLE, else
// share/fone-workbench/factbook-sample beside bin/ (installed), else the source tree's
// tests/data/factbook-sample; "" when none is there.
QString bundled_factbook_sample();
// A relative path in a recipe ("tests/data/factbook-sample") as the recipe means it: against the folder
// that holds experiments/ (the source tree, or share/fone-workbench), where `fone reproduce` runs; the path
// unchanged when it is absolute or not found there.
QString recipe_path(const QString& path);

}  // namespace fone::gui
