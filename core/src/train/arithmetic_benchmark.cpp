#include "fone/train/arithmetic_benchmark.h"

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include "checkpoints/run_model.h"
#include "fone/hf/generate.h"
#include "fone/numbers/decimal.h"
#include "nn/timing.h"
#include "train/text_prompt.h"

namespace fone {
namespace {

using nlohmann::json;
namespace fp = pretrained;

// Problems a run's generation takes at once.
constexpr std::size_t kRunBatch = 64;
// New tokens a run may write for an answer: a sign, six digits, a space and room to overrun.
constexpr int kRunAnswerTokens = 12;

std::vector<const Gpt3ArithmeticTask*> chosen_tasks(const ArithmeticBenchmarkSettings& s) {
    if (s.problems < 1) throw std::invalid_argument("--problems must be at least 1");
    if (s.shots < 0 || s.shots > 100) throw std::invalid_argument("--shots must be in 0..100");
    std::vector<const Gpt3ArithmeticTask*> tasks;
    if (s.tasks.empty())
        for (const Gpt3ArithmeticTask& t : gpt3_arithmetic_tasks())
            tasks.push_back(&t);
    for (const std::string& name : s.tasks) {
        const Gpt3ArithmeticTask* task = &gpt3_arithmetic_task(name);
        // The mean is over tasks: a task named twice would count twice.
        if (std::find(tasks.begin(), tasks.end(), task) != tasks.end())
            throw std::invalid_argument("--tasks names " + name + " twice (the mean is over distinct tasks)");
        tasks.push_back(task);
    }
    return tasks;
}

// The prompts of a task's problems, each after its k shots (problems of the same task from seed + 1).
struct TaskPrompts {
    std::vector<Gpt3Problem> problems;
    std::vector<std::string> prompts;
};

TaskPrompts task_prompts(const Gpt3ArithmeticTask& task, const ArithmeticBenchmarkSettings& s) {
    TaskPrompts t;
    t.problems = gpt3_arithmetic_problems(task, s.problems, s.seed);
    const std::vector<Gpt3Problem> pool =
        gpt3_arithmetic_problems(task, s.problems * static_cast<std::size_t>(s.shots), s.seed + 1);
    const auto k = static_cast<std::size_t>(s.shots);
    for (std::size_t i = 0; i < t.problems.size(); ++i) {
        const std::vector<Gpt3Problem> shots(pool.begin() + static_cast<std::ptrdiff_t>(i * k),
                                             pool.begin() + static_cast<std::ptrdiff_t>((i + 1) * k));
        t.prompts.push_back(gpt3_prompt(shots, t.problems[i], s.style));
    }
    return t;
}

json task_result(const Gpt3ArithmeticTask& task, const TaskPrompts& t, const std::vector<bool>& right,
                 json examples) {
    std::size_t correct = 0, negative = 0;
    for (std::size_t i = 0; i < right.size(); ++i) {
        correct += right[i] ? 1 : 0;
        negative += t.problems[i].answer < 0 ? 1 : 0;
    }
    return {{"task", task.name},
            {"lm_eval_name", task.lm_eval_name},
            {"n", right.size()},
            {"correct", correct},
            {"exact_match", static_cast<double>(correct) / static_cast<double>(right.size())},
            {"negative_answers", negative},
            {"examples", std::move(examples)}};
}

json example_row(const std::string& prompt, const Gpt3Problem& p, const std::string& output, bool right) {
    return {{"prompt", prompt}, {"expected", gpt3_completion(p)}, {"output", output}, {"correct", right}};
}

json summary(json tasks, const ArithmeticBenchmarkSettings& s, double seconds) {
    double sum = 0;
    for (const json& t : tasks)
        sum += t["exact_match"].get<double>();
    return {{"benchmark", "arithmetic"},
            {"prompt_style", s.style == Gpt3PromptStyle::gpt3 ? "gpt3" : "lm-eval"},
            {"shots", s.shots},
            {"seed", s.seed},
            {"problems", s.problems},
            {"tasks", tasks},
            {"mean_exact_match", tasks.empty() ? 0.0 : sum / static_cast<double>(tasks.size())},
            {"seconds", seconds}};
}

// A model with the pretrained tokenizer's ids (a model folder, a fone-adapter run), asked as lm-eval asks:
// `greedy(context, continuation)` is its is_greedy, `write(ids)` its 8 greedy new tokens (the examples).
struct IdModel {
    const fp::BpeTokenizer& tokenizer;
    std::function<bool(const std::vector<int64_t>&, const std::vector<int64_t>&)> greedy;
    std::function<std::vector<int64_t>(const std::vector<int64_t>&)> write;
};

// One problem: lm-eval's split of prompt + completion into context and continuation.
bool id_model_right(const IdModel& m, const std::string& prompt, const Gpt3Problem& p, bool special) {
    const std::vector<int64_t> context = m.tokenizer.encode(prompt, special);
    const std::vector<int64_t> whole = m.tokenizer.encode(prompt + gpt3_completion(p), special);
    if (whole.size() <= context.size()) return false;
    const std::vector<int64_t> continuation(whole.begin() + static_cast<std::ptrdiff_t>(context.size()),
                                            whole.end());
    return m.greedy(context, continuation);
}

// The chosen tasks asked of such a model, task by task.
json ask_id_model(const IdModel& m, const std::vector<const Gpt3ArithmeticTask*>& tasks,
                  const ArithmeticBenchmarkSettings& s, const BenchmarkTaskSink& on_task) {
    const bool special = s.style == Gpt3PromptStyle::gpt3;
    json rows = json::array();
    for (const Gpt3ArithmeticTask* task : tasks) {
        const TaskPrompts t = task_prompts(*task, s);
        std::vector<bool> right;
        json examples = json::array();
        for (std::size_t i = 0; i < t.problems.size(); ++i) {
            right.push_back(id_model_right(m, t.prompts[i], t.problems[i], special));
            if (i >= s.examples) continue;
            const std::vector<int64_t> written = m.write(m.tokenizer.encode(t.prompts[i], special));
            examples.push_back(
                example_row(t.prompts[i], t.problems[i], fp::decode_ids(m.tokenizer, written), right.back()));
        }
        rows.push_back(task_result(*task, t, right, std::move(examples)));
        if (on_task) on_task(rows.back());
    }
    return rows;
}

}  // namespace

json arithmetic_benchmark_model(const std::string& dir, const ArithmeticBenchmarkSettings& s,
                                const BenchmarkTaskSink& on_task) {
    const auto t0 = Clock::now();
    const std::vector<const Gpt3ArithmeticTask*> tasks = chosen_tasks(s);
    const fp::ModelFolder m = fp::ModelFolder::open(dir);
    if (m.tokenizer_path().empty())
        throw fp::PretrainedError(dir + ": no tokenizer.json (the benchmark is text)");
    const fp::BpeTokenizer tok = fp::BpeTokenizer::load(m.tokenizer_path());
    fp::FolderGenerator g(m, s.threads);
    const IdModel model{tok, [&](const auto& c, const auto& w) { return g.writes_greedily(c, w); },
                        [&](const std::vector<int64_t>& prompt) {
                            fp::GenerationSettings greedy;
                            greedy.max_new_tokens = 8;
                            return g.generate(prompt, greedy).ids;
                        }};
    json out = summary(ask_id_model(model, tasks, s, on_task), s, seconds_since(t0));
    out["source"] = "model";
    out["model"] = dir;
    return out;
}

namespace {

// A fone-adapter run asked as a model folder is (its own forward: the adapter's FoNE on the number pieces).
json adapter_benchmark(AnsweringRun& a, const std::vector<const Gpt3ArithmeticTask*>& tasks,
                       const ArithmeticBenchmarkSettings& s, const BenchmarkTaskSink& on_task) {
    const AdapterScheme& scheme = *a.run.adapter;
    FoneTransformer& net = a.run.model;
    const IdModel model{scheme.tokenizer(),
                        [&](const auto& c, const auto& w) { return scheme.writes_greedily(net, c, w); },
                        [&](const std::vector<int64_t>& prompt) {
                            AdapterGenerateOptions greedy;
                            greedy.max_tokens = 8;
                            return scheme.generate(net, prompt, greedy).ids;
                        }};
    return ask_id_model(model, tasks, s, on_task);
}

}  // namespace

namespace {

// What a run wrote is right when, less leading spaces, it starts with the answer and the number ends there.
bool run_right(const std::string& written, const Gpt3Problem& p) {
    const std::size_t from = written.find_first_not_of(" \t\r\n");
    if (from == std::string::npos) return false;
    const std::string answer = std::to_string(p.answer);
    if (written.compare(from, answer.size(), answer) != 0) return false;
    const std::size_t after = from + answer.size();
    return after == written.size() ||
           (!std::isdigit(static_cast<unsigned char>(written[after])) && written[after] != '.');
}

}  // namespace

json arithmetic_benchmark_run(const std::string& run_dir, const ArithmeticBenchmarkSettings& s,
                              const BenchmarkTaskSink& on_task) {
    const auto t0 = Clock::now();
    const std::vector<const Gpt3ArithmeticTask*> tasks = chosen_tasks(s);
    AnsweringRun a = open_for_answers(run_dir, s.threads, RunData::none);
    RunModel& r = a.run;
    const std::string run = std::filesystem::path(run_dir).filename().string();
    // The benchmark asks questions in words: text and fone-adapter runs (and model folders, --model).
    check_answers(run, r.config, RunCommand::benchmark);
    if (r.kind == RunKind::adapter) {
        json out = summary(adapter_benchmark(a, tasks, s, on_task), s, seconds_since(t0));
        out["source"] = "run";
        out["run"] = run;
        out["method"] = r.config.method;
        out["checkpoint"] = a.checkpoint;
        return out;
    }
    GenerateOptions o;
    o.max_tokens = kRunAnswerTokens;
    json rows = json::array();
    for (const Gpt3ArithmeticTask* task : tasks) {
        const TaskPrompts t = task_prompts(*task, s);
        std::vector<bool> right;
        json examples = json::array();
        std::size_t unreadable = 0;
        right.assign(t.prompts.size(), false);
        for (std::size_t from = 0; from < t.prompts.size(); from += kRunBatch) {
            std::vector<EncodedText> batch;
            std::vector<std::size_t> members;  // the problems of the batch (an unreadable one is wrong)
            for (std::size_t i = from; i < std::min(t.prompts.size(), from + kRunBatch); ++i) {
                GenerateRequest request;
                request.prompt = t.prompts[i];
                try {
                    batch.push_back(generation_prompt(*r.text, r.config, request));
                    members.push_back(i);
                } catch (const NumberError&) {  // a number wider than the run's digit slots
                    ++unreadable;
                }
            }
            const std::vector<Generation> out =
                batch.empty() ? std::vector<Generation>{} : r.text->generate(r.model, batch, o);
            for (std::size_t j = 0; j < out.size(); ++j) {
                const std::size_t i = members[j];
                const std::string written = r.text->generated_text(out[j]);
                right[i] = run_right(written, t.problems[i]);
                if (i < s.examples)
                    examples.push_back(example_row(t.prompts[i], t.problems[i], written, right[i]));
            }
        }
        rows.push_back(task_result(*task, t, right, std::move(examples)));
        rows.back()["unreadable"] = unreadable;
        if (on_task) on_task(rows.back());
    }
    json out = summary(rows, s, seconds_since(t0));
    out["source"] = "run";
    out["run"] = run;
    out["method"] = r.config.method;
    out["checkpoint"] = a.checkpoint;
    return out;
}

}  // namespace fone
