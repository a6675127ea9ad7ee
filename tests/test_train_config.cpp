// Run settings: layering (defaults <- preset <- file <- command line), the paper's preset, size levels,
// validation that names every problem, strict JSON.
#include <QtTest>

#include "fone/store/methods.h"
#include "fone/store/run_kind.h"
#include "fone/store/train_config.h"

using fone::resolve_train_config;
using fone::TrainConfig;
using nlohmann::json;

class TestTrainConfig : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void defaults_depend_on_size() {
        const TrainConfig big = resolve_train_config({{{"train_size", 51200}}});
        QCOMPARE(big.task.kind, fone::TaskKind::dec_add);
        QCOMPARE(big.model.hidden, 64);
        QCOMPARE(big.batch, std::size_t(256));
        QCOMPARE(big.epochs, 10);  // typed sampling (below); uniform keeps the paper-recipe 5
        QVERIFY(!big.swap_operands);
        QVERIFY(big.model.head_temperature);
        QCOMPARE(big.eval_every, 50);
        const TrainConfig small = resolve_train_config({{{"train_size", 6400}}});
        QVERIFY(small.swap_operands);
        QCOMPARE(small.model.hidden, 128);
        QVERIFY(!small.model.head_temperature);
        QCOMPARE(small.epochs, 100);
        QCOMPARE(small.batch, std::size_t(128));  // typed sums below 12,800; uniform keeps 256 (below)
        QCOMPARE(small.model.layers, 3);          // typed sums below 12,800; uniform keeps 2 (below)
        QCOMPARE(big.model.layers, 2);
        QCOMPARE(resolve_train_config({{{"train_size", 12800}}}).model.layers, 2);
        QCOMPARE(resolve_train_config({{{"train_size", 6400}, {"model", {{"layers", 2}}}}}).model.layers, 2);
        QCOMPARE(resolve_train_config({{{"train_size", 12800}}}).batch, std::size_t(256));
        // Long addition needs room for 61 digit slots in the hidden state.
        QVERIFY(resolve_train_config({{{"task", "long-add"}}}).model.hidden >= 2 * 61 + 1);
    }

    // Addition and subtraction draw typed sums by default (the weights recorded); --sampling uniform, the
    // paper preset and other tasks keep the paper's sampling and its epochs.
    void sampling_defaults() {
        const TrainConfig typed = resolve_train_config({{{"train_size", 51200}}});
        QCOMPARE(typed.task.sampling, std::string("typed"));
        QCOMPARE(typed.task.sampling_weights.at("uniform"), 7.0);
        QCOMPARE(typed.task.sampling_weights.at("carry"), 1.0);
        QCOMPARE(typed.task.sampling_weights.size(), std::size_t{8});
        const TrainConfig sub = resolve_train_config({{{"task", "sub"}}});
        QCOMPARE(sub.task.sampling_weights.at("uniform"), 6.0);  // no one_decimal shape
        // Small sets: three quarters uniform.
        QCOMPARE(resolve_train_config({{{"train_size", 6400}}}).task.sampling_weights.at("uniform"), 21.0);
        const TrainConfig uniform = resolve_train_config({{{"sampling", "uniform"}}});
        QCOMPARE(uniform.task.sampling, std::string("uniform"));
        QVERIFY(uniform.task.sampling_weights.empty());
        QCOMPARE(uniform.epochs, 5);
        QCOMPARE(resolve_train_config({{{"sampling", "uniform"}, {"epochs", 3}}}).epochs, 3);
        const TrainConfig small_uniform =
            resolve_train_config({{{"train_size", 6400}, {"sampling", "uniform"}}});
        QCOMPARE(small_uniform.batch, std::size_t(256));
        QCOMPARE(small_uniform.epochs, 100);
        QCOMPARE(small_uniform.model.layers, 2);
        QCOMPARE(resolve_train_config({{{"train_size", 6400}, {"batch", 64}}}).batch, std::size_t(64));
        QCOMPARE(resolve_train_config({{{"train_size", 6400}, {"preset", "paper"}}}).batch, std::size_t(512));
        QCOMPARE(resolve_train_config({{{"preset", "paper"}}}).task.sampling, std::string("uniform"));
        QCOMPARE(resolve_train_config({{{"task", "mul3"}}}).task.sampling, std::string("uniform"));
        QCOMPARE(resolve_train_config({{{"task", "mul3"}}}).epochs, 5);
        const TrainConfig given =
            resolve_train_config({{{"sampling_weights", {{"round", 2}, {"uniform", 1}}}}});
        QCOMPARE(given.task.sampling_weights.size(), std::size_t{2});
        for (const json& bad : {json{{"sampling", "shaped"}}, json{{"sampling", 3}},
                                json{{"task", "mul3"}, {"sampling", "typed"}},
                                json{{"sampling", "uniform"}, {"sampling_weights", {{"round", 1}}}},
                                json{{"sampling_weights", {{"one_decimal", 1}}}, {"task", "int-add"}},
                                json{{"sampling_weights", {{"round", "x"}}}}, json{{"sampling_weights", 2}}})
            QVERIFY_THROWS_EXCEPTION(std::invalid_argument, resolve_train_config({bad}));
    }

    void paper_preset() {
        const TrainConfig p = resolve_train_config({{{"preset", "paper"}}});
        QCOMPARE(p.size_level, 4);
        QCOMPARE(p.model.hidden, 256);
        QCOMPARE(p.model.layers, 4);
        QCOMPARE(p.model.heads, 8);
        QCOMPARE(p.model.kv_heads, 4);
        QCOMPARE(p.model.intermediate, 1024);
        QCOMPARE(p.lr, 5e-3);
        QCOMPARE(p.batch, std::size_t(512));
        QCOMPARE(p.epochs, 100);
        QCOMPARE(p.warmup, 0.2);
        QCOMPARE(p.clip, 1.0);
        QCOMPARE(p.model.init_std, 0.02);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, resolve_train_config({{{"preset", "nope"}}}));
    }

    void later_layers_win() {
        const json file = {{"lr", 1e-3}, {"epochs", 7}, {"model", {{"hidden", 96}}}};
        const json cli = {{"epochs", 9}};
        const TrainConfig c = resolve_train_config({file, cli});
        QCOMPARE(c.lr, 1e-3);
        QCOMPARE(c.epochs, 9);
        QCOMPARE(c.model.hidden, 96);
        QCOMPARE(c.model.layers, 2);  // untouched default
    }

    void size_levels_and_custom_shapes() {
        const TrainConfig l2 = resolve_train_config({{{"size_level", 2}}});
        QCOMPARE(l2.model.hidden, 128);
        QCOMPARE(l2.model.layers, 2);
        QCOMPARE(l2.model.head_dim, 64);
        QCOMPARE(l2.model.heads, 4);
        const TrainConfig custom = resolve_train_config({{{"size_level", 2}, {"model", {{"layers", 3}}}}});
        QCOMPARE(custom.size_level, 0);
        QCOMPARE(custom.model.layers, 3);
    }

    void validation_lists_every_problem() {
        try {
            resolve_train_config({{{"lr", -1.0},
                                   {"epochs", 0},
                                   {"device", "tpu"},
                                   {"model", {{"heads", 3}, {"kv_heads", 2}}}}});
            QFAIL("no error");
        } catch (const std::invalid_argument& e) {
            const QString m = e.what();
            QVERIFY2(
                m.contains("lr:") && m.contains("epochs:") && m.contains("device:") && m.contains("heads"),
                e.what());
        }
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, resolve_train_config({{{"task", "file"}}}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, resolve_train_config({{{"task", "division"}}}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, resolve_train_config({{{"method", "bpe"}}}));
    }

    void strict_json() {
        try {
            TrainConfig::from_json({{"learning_rate", 0.1}});
            QFAIL("no error");
        } catch (const std::invalid_argument& e) {
            QVERIFY2(QString(e.what()).contains("learning_rate"), e.what());
        }
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, TrainConfig::from_json({{"epochs", "ten"}}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, TrainConfig::from_json({{"batch", -5}}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 TrainConfig::from_json({{"model", {{"hidden", 1.5}}}}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, TrainConfig::from_json(json::array()));
        // Found by fuzz_config: a "model" that is not an object with a size level was a json type_error.
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, resolve_train_config({{{"model", 2}}}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 resolve_train_config({{{"size_level", 2}, {"model", "wide"}}}));
    }

    void json_round_trip() {
        TrainConfig c =
            resolve_train_config({{{"task", "mod-add"}, {"modulus", 113}, {"seed", 7}, {"size_level", 3}}});
        const TrainConfig back = TrainConfig::from_json(c.to_json());
        QCOMPARE(back.to_json().dump(), c.to_json().dump());
        QCOMPARE(back.task.modulus, 113);
    }

    // One notion of a run's kind (issue 40): every command asks it, and refuses a kind it does not answer
    // in one sentence that says which runs it takes and what answers this one.
    void every_command_names_what_answers_a_run() {
        using fone::RunCommand;
        using fone::RunKind;
        const TrainConfig arithmetic = resolve_train_config({{{"task", "dec-add"}}});
        const TrainConfig text = resolve_train_config({{{"task", "word-problems"}, {"method", "digit"}}});
        TrainConfig adapter = text;
        adapter.method = "fone-adapter";  // (validation wants its folder; the kind is the method's row)
        QVERIFY(fone::run_kind(arithmetic) == RunKind::arithmetic);
        QVERIFY(fone::run_kind(text) == RunKind::text);
        QVERIFY(fone::run_kind(adapter) == RunKind::adapter);
        QCOMPARE(
            fone::not_answered("wp", text, RunCommand::predict),
            std::string("wp is a text run (task word-problems): fone predict takes arithmetic runs; ask "
                        "this one with fone generate, fone eval, fone eval --benchmark arithmetic or fone "
                        "analyse token-loss"));
        QCOMPARE(
            fone::not_answered("sums", arithmetic, RunCommand::generate),
            std::string("sums is an arithmetic run (task dec-add): fone generate takes text or "
                        "fone-adapter runs; ask this one with fone predict, fone eval or fone eval --suite "
                        "typed"));
        QCOMPARE(
            fone::not_answered("ad", adapter, RunCommand::predict),
            std::string("ad is a fone-adapter run (task word-problems): fone predict takes arithmetic "
                        "runs; ask this one with fone generate, fone eval, fone eval --benchmark arithmetic "
                        "or fone analyse token-loss"));
        QVERIFY(fone::not_answered("sums", arithmetic, RunCommand::benchmark)
                    .find("(and model folders, --model)") != std::string::npos);
        // Every command answers some kind, eval every kind; what a kind is refused names commands that answer
        // it.
        for (const RunKind k : {RunKind::arithmetic, RunKind::text, RunKind::adapter}) {
            QVERIFY(fone::answers(RunCommand::eval, k));
            QVERIFY_THROWS_NO_EXCEPTION(
                fone::check_answers("r", k == RunKind::arithmetic ? arithmetic : text, RunCommand::eval));
        }
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 fone::check_answers("r", arithmetic, RunCommand::token_loss));
    }
};

QTEST_APPLESS_MAIN(TestTrainConfig)
#include "test_train_config.moc"
