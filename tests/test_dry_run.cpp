// Settings you can read (issue 27): `fone train --dry-run` lists every setting of the run and where it
// came from, from the same resolve_with_sources a run takes its settings from, and makes nothing; the
// default training-set size has one owner, default_train_size, that the resolver, the Launch panel's
// placeholders and `fone data` all read.
#include <QtTest>

#include <QDir>
#include <QFileInfo>
#include <QTemporaryDir>

#include "fone/store/train_config.h"
#include "fone_process.h"
#ifdef FONE_TEST_WIDGETS
#include <QLineEdit>

#include "launch_panel.h"
#endif

using fone::resolve_with_sources;
using fone::ResolvedSettings;
using nlohmann::json;
using namespace fone_test;

namespace {

// `fone train ARGS --dry-run` into a fresh run store; stdout is a pipe, so the answer is one JSON object.
struct DryRun {
    Result result;
    json answer;
    bool made_store = true;
};

DryRun dry_run(const QStringList& args) {
    QTemporaryDir dir;
    const QString runs = dir.path() + "/runs";
    DryRun d;
    d.result = run_fone(QStringList{"train"} + args + QStringList{"--dry-run", "--runs-dir", runs});
    d.answer = json::parse(d.result.out.toStdString(), nullptr, false);
    d.made_store = QFileInfo::exists(runs);
    return d;
}

// Every key of a config, those of "model" as "model.<key>", as resolve_with_sources lists them.
QStringList flat_keys(const json& config) {
    QStringList keys;
    for (auto it = config.begin(); it != config.end(); ++it) {
        if (it.key() != "model") keys << QString::fromStdString(it.key());
        for (auto m = it->begin(); it.key() == "model" && m != it->end(); ++m)
            keys << QString::fromStdString("model." + m.key());
    }
    return keys;
}

std::string source(const json& answer, const std::string& key) {
    if (!answer.is_object() || !answer.contains("sources")) return "(no answer)";
    return answer.at("sources").value(key, std::string("(none)"));
}

}  // namespace

class TestDryRun : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void every_setting_names_its_source() {
        const DryRun d = dry_run({"--task", "dec-add", "--train-size", "6400"});
        QVERIFY2(d.result.code == 0, d.result.err.constData());
        QVERIFY2(d.answer.is_object() && d.answer.contains("config") && d.answer.contains("sources"),
                 d.result.out.constData());
        QVERIFY(!d.made_store);  // a dry run opens no store and makes no run folder
        const QStringList keys = flat_keys(d.answer["config"]);
        QVERIFY(keys.contains("train_size") && keys.contains("model.hidden"));
        for (const QString& key : keys)
            QVERIFY2(d.answer["sources"].contains(key.toStdString()), qPrintable(key + " has no source"));
        QCOMPARE(int(d.answer["sources"].size()), int(keys.size()));
        QCOMPARE(source(d.answer, "train_size"), std::string("flag --train-size"));
        QCOMPARE(source(d.answer, "task"), std::string("flag --task"));
        QCOMPARE(source(d.answer, "epochs"), std::string(fone::kSourceTaskDefault));
        QCOMPARE(source(d.answer, "model.hidden"), std::string(fone::kSourceTaskDefault));
        QCOMPARE(source(d.answer, "seed"), std::string(fone::kSourceDefault));
        // What the dry run shows is what the resolver gives a run of the same options.
        const ResolvedSettings r = resolve_with_sources(
            {{"flag --task", {{"task", "dec-add"}}}, {"flag --train-size", {{"train_size", 6400}}}});
        QCOMPARE(d.answer["config"].dump(), r.config.to_json().dump());
        // ...except that the dry run adds what "auto" threads would be now (it depends on the machine's
        // load).
        nlohmann::json shown = d.answer["sources"], resolved = r.to_json()["sources"];
        const std::string threads_shown = shown["threads"].get<std::string>();
        QVERIFY2(threads_shown.rfind(resolved["threads"].get<std::string>(), 0) == 0, threads_shown.c_str());
        shown.erase("threads");
        resolved.erase("threads");
        QCOMPARE(shown.dump(), resolved.dump());
    }

    void a_preset_a_config_file_and_flags_name_themselves() {
        QTemporaryDir dir;
        const QString file = dir.path() + "/settings.json";
        QFile f(file);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(R"({"lr": 0.001, "epochs": 3})");
        f.close();
        const DryRun d =
            dry_run({"--preset", "paper", "--config", file, "--epochs", "7", "--seed", "3", "--json"});
        QVERIFY2(d.result.code == 0, d.result.err.constData());
        QVERIFY2(d.answer.is_object() && d.answer.contains("config"), d.result.out.constData());
        QCOMPARE(source(d.answer, "preset"), std::string("flag --preset"));
        QCOMPARE(source(d.answer, "batch"), std::string("preset paper"));
        QCOMPARE(source(d.answer, "model.layers"), std::string("preset paper"));  // its size level 4
        QCOMPARE(source(d.answer, "lr"), "config file " + file.toStdString());
        QCOMPARE(source(d.answer, "epochs"), std::string("flag --epochs"));
        QCOMPARE(source(d.answer, "seed"), std::string("flag --seed"));
        QCOMPARE(d.answer.at("config").value("epochs", 0), 7);
        QCOMPARE(d.answer.at("config").value("lr", 0.0), 0.001);
        // A shape key after a size level makes the model custom: the level's 0 and the key name the flag.
        const ResolvedSettings custom = resolve_with_sources(
            {{"flag --preset", {{"preset", "paper"}}}, {"flag --layers", {{"model", {{"layers", 3}}}}}},
            false);
        QCOMPARE(custom.config.size_level, 0);
        QCOMPARE(custom.find("size_level")->source, std::string("flag --layers"));
        QCOMPARE(custom.find("model.layers")->source, std::string("flag --layers"));
        // --init-from's lr and batch are the pretrained defaults (no folder is read to resolve them).
        const ResolvedSettings p =
            resolve_with_sources({{"flag --init-from", {{"init_from", "/models/llama"}}}});
        QCOMPARE(p.find("lr")->source, std::string(fone::kSourcePretrained));
        QCOMPARE(p.find("batch")->value.get<int>(), 200);
    }

    void a_dry_run_refuses_what_a_run_refuses() {
        const DryRun bad = dry_run({"--lr", "20"});
        QVERIFY(bad.result.code != 0);
        QVERIFY2(bad.result.err.contains("lr:"), bad.result.err.constData());
        QVERIFY(!bad.made_store);
        const DryRun resume = dry_run({"--resume", "some-run"});
        QVERIFY(resume.result.code != 0);
        QVERIFY2(resume.result.err.contains("--dry-run"), resume.result.err.constData());
    }

    // One owner of the default training-set size: the resolver, the Launch panel's placeholders (the same
    // resolution) and `fone data` agree with default_train_size; TrainConfig's initialisers too.
    void default_train_sizes_have_one_owner() {
        QCOMPARE(fone::default_train_size("word-problems"), std::size_t(240000));
        QCOMPARE(fone::default_train_size("dec-add"), std::size_t(51200));
        QCOMPARE(fone::default_train_size("units"), std::size_t(20000));
        for (const char* task : {"word-problems", "dec-add", "units", "mul3"}) {
            const ResolvedSettings r = resolve_with_sources({{"flag --task", {{"task", task}}}}, false);
            QCOMPARE(r.config.train_size, fone::default_train_size(task));
            QCOMPARE(r.find("train_size")->source, std::string(fone::kSourceTaskDefault));
        }
        const fone::TrainConfig plain;
        const fone::TrainConfig resolved = fone::resolve_train_config({{{"sampling", "uniform"}}});
        QCOMPARE(plain.train_size, resolved.train_size);
        QCOMPARE(plain.epochs, resolved.epochs);
        QCOMPARE(plain.batch, resolved.batch);
        // `fone data` without --train-size writes fone train's default.
        QTemporaryDir dir;
        const auto data =
            run_fone({"data", "--task", "units", "--val-size", "0", "--test-size", "1", "--out", dir.path()});
        QVERIFY2(data.code == 0, data.err.constData());
        const json written = json::parse(data.out.toStdString(), nullptr, false);
        QCOMPARE(written.value(json::json_pointer("/files/train/examples"), std::size_t(0)),
                 fone::default_train_size("units"));
    }

#ifdef FONE_TEST_WIDGETS
    void launch_placeholders_are_the_resolution() {
        fone::gui::LaunchPanel panel;
        QCOMPARE(panel.field("train_size")->placeholderText(),
                 "default " + QString::number(fone::default_train_size("dec-add")));
        panel.load_settings({{"train_size", 6400}});
        const ResolvedSettings small = resolve_with_sources({{"form", {{"train_size", 6400}}}});
        QCOMPARE(panel.field("epochs")->placeholderText(), "default " + QString::number(small.config.epochs));
        QCOMPARE(panel.field("batch")->placeholderText(), "default " + QString::number(small.config.batch));
        // A preset's values are the placeholders, and the "Will train" line says where they come from.
        panel.load_settings({{"preset", "paper"}});
        QCOMPARE(panel.field("batch")->placeholderText(), QString("default 512"));
        QCOMPARE(panel.field("epochs")->placeholderText(), QString("default 100"));
        QVERIFY2(panel.resolved_text().contains("From preset paper: "), qPrintable(panel.resolved_text()));
    }
#endif
};

QTEST_MAIN(TestDryRun)
#include "test_dry_run.moc"
