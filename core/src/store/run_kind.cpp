// The kind of a run and the sentence of a command that does not answer it (fone/store/run_kind.h).
#include "fone/store/run_kind.h"

#include <stdexcept>
#include <vector>

#include "fone/store/methods.h"
#include "fone/text/text_data.h"

namespace fone {
namespace {

struct CommandRow {
    RunCommand command;
    const char* typed;           // as a user types it
    std::vector<RunKind> kinds;  // the kinds it answers
    const char* also = "";       // what else it takes, after the kinds
};

// Every command that asks a run something, in the order the sentence lists what answers a run.
const std::vector<CommandRow>& commands() {
    static const std::vector<CommandRow> rows = {
        {RunCommand::predict, "fone predict", {RunKind::arithmetic}},
        {RunCommand::generate, "fone generate", {RunKind::text, RunKind::adapter}},
        {RunCommand::eval, "fone eval", {RunKind::arithmetic, RunKind::text, RunKind::adapter}},
        {RunCommand::typed_suite,
         "fone eval --suite typed",
         {RunKind::arithmetic},
         " of dec-add, int-add and sub"},
        {RunCommand::benchmark,
         "fone eval --benchmark arithmetic",
         {RunKind::text, RunKind::adapter},
         " (and model folders, --model)"},
        {RunCommand::token_loss, "fone analyse token-loss", {RunKind::text, RunKind::adapter}},
    };
    return rows;
}

const CommandRow& row_of(RunCommand command) {
    for (const CommandRow& r : commands())
        if (r.command == command) return r;
    throw std::logic_error("run_kind: a command without a row");
}

// "a, b or c".
std::string listed(const std::vector<std::string>& items) {
    std::string out;
    for (std::size_t i = 0; i < items.size(); ++i)
        out += (i == 0 ? "" : i + 1 == items.size() ? " or " : ", ") + items[i];
    return out;
}

}  // namespace

RunKind run_kind(const TrainConfig& config) {
    if (is_adapter_method(config.method)) return RunKind::adapter;
    return config.is_text() ? RunKind::text : RunKind::arithmetic;
}

RunKind run_kind_of(const nlohmann::json& config) {
    const auto text = [&](const char* key) {
        const auto it = config.find(key);
        return it != config.end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    if (is_adapter_method(text("method"))) return RunKind::adapter;
    return is_text_training_task(text("task")) ? RunKind::text : RunKind::arithmetic;
}

std::string run_kind_name(RunKind kind) {
    switch (kind) {
        case RunKind::arithmetic:
            return "arithmetic";
        case RunKind::text:
            return "text";
        case RunKind::adapter:
            return "fone-adapter";
    }
    return "";
}

std::string command_text(RunCommand command) {
    return row_of(command).typed;
}

bool answers(RunCommand command, RunKind kind) {
    for (const RunKind k : row_of(command).kinds)
        if (k == kind) return true;
    return false;
}

std::string not_answered(const std::string& run, const TrainConfig& config, RunCommand command) {
    return not_answered(run, run_kind(config), config.task_label(), command);
}

std::string not_answered(const std::string& run, RunKind kind, const std::string& task, RunCommand command) {
    const CommandRow& row = row_of(command);
    std::vector<std::string> kinds, instead;
    for (const RunKind k : row.kinds)
        kinds.push_back(run_kind_name(k));
    for (const CommandRow& r : commands())
        if (answers(r.command, kind)) instead.push_back(r.typed);
    const std::string article = kind == RunKind::arithmetic ? "an " : "a ";
    return run + " is " + article + run_kind_name(kind) + " run (task " + task + "): " + row.typed +
           " takes " + listed(kinds) + " runs" + row.also + "; ask this one with " + listed(instead);
}

void check_answers(const std::string& run, const TrainConfig& config, RunCommand command) {
    if (!answers(command, run_kind(config))) throw std::invalid_argument(not_answered(run, config, command));
}

}  // namespace fone
