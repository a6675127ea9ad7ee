// The table of number methods (fone/store/methods.h): every place that names a method reads it, and a new
// method is one row plus its own scheme file. Shown with a toy method defined entirely in this file: a row
// (add_number_method) and its scheme family (add_scheme_family), then validated, built and trained end to
// end like a built-in one.
#include <QTemporaryDir>
#include <QtTest>

#include <algorithm>

#include "fone/store/methods.h"
#include "fone/store/run_store.h"
#include "fone/store/train_config.h"
#include "fone/train/training.h"
#include "schemes/scheme.h"

using namespace fone;

namespace {

// The toy's "scheme file": xVal's one [NUM] token under another name. A real method puts its own
// NumberScheme subclass here.
std::unique_ptr<NumberScheme> make_toy_scheme(const TrainConfig& config, const FoneSpec& spec,
                                              const std::vector<Op>& extra_ops) {
    TrainConfig as_xval = config;
    as_xval.method = "xval";
    return make_scheme(as_xval, spec, extra_ops);
}

// The toy's row.
NumberMethod toy_row() {
    return {"toy", "a test's toy: one [NUM] token scaled by its value", "toy", "[NUM]", false, false, "", ""};
}

}  // namespace

class TestMethods : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    void initTestCase() {
        add_number_method(toy_row());
        add_scheme_family("toy", make_toy_scheme);
    }

    // The built-in rows, in the order of the help texts (fone train --method, docs/cli.md).
    void built_in_rows_in_help_order() {
        QCOMPARE(QString::fromStdString(method_list_text()),
                 QString("fone, digit, subword, xval, ntl, abacus, fone+abacus, fone-direct, bittokens, "
                         "numerologic, fone-adapter, toy"));
        QVERIFY(method_takes_init_from("fone") && method_takes_init_from("digit") &&
                method_takes_init_from("subword") && !method_takes_init_from("xval"));
        QVERIFY(find_number_method("fone")->text && find_number_method("bittokens")->text &&
                !find_number_method("ntl")->text);
        QCOMPARE(method_description("nope"), std::string());
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, add_number_method(toy_row()));  // taken
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, add_scheme_family("toy", make_toy_scheme));
    }

    // Validation reads the row: the toy is a method like the others, and its flags say what it may do.
    void validation_reads_the_row() {
        const TrainConfig c = resolve_train_config({{{"task", "dec-add"}, {"method", "toy"}}});
        QCOMPARE(QString::fromStdString(c.method), QString("toy"));
        QCOMPARE(method_description("toy"), toy_row().description);
        try {
            resolve_train_config({{{"task", "word-problems"}, {"method", "toy"}}});
            QFAIL("a method whose row says text=false trained on text");
        } catch (const std::invalid_argument& e) {
            QVERIFY2(QString(e.what()).contains(
                         "text tasks take fone, digit, subword, xval, bittokens or fone-adapter, not 'toy'"),
                     e.what());
        }
        try {
            resolve_train_config({{{"task", "dec-add"}, {"method", "nope"}}});
            QFAIL("an unknown method validated");
        } catch (const std::invalid_argument& e) {
            QVERIFY2(QString(e.what()).contains("unknown method 'nope'"), e.what());
        }
    }

    // make_scheme builds it through its family, and a run trains with it end to end.
    void a_toy_run_trains_end_to_end() {
        TrainConfig c = resolve_train_config({{{"task", "dec-add"},
                                               {"method", "toy"},
                                               {"train_size", 256},
                                               {"val_size", 0},
                                               {"test_size", 64},
                                               {"epochs", 1},
                                               {"batch", 64},
                                               {"threads", 1},
                                               {"size_level", 1}}});
        FoneSpec spec;
        spec.int_digits = 3;
        spec.frac_digits = 3;
        const auto scheme = make_scheme(c, spec);
        QCOMPARE(scheme->tokens_for(Decimal::parse("123.456")), int64_t(1));  // one [NUM] token
        QTemporaryDir dir;
        RunStore store(dir.path().toStdString());
        int evals = 0;
        const TrainOutcome out = train_new(c, store, [&](const nlohmann::json& e) {
            if (e.value("event", "") == "eval") ++evals;
        });
        QCOMPARE(QString::fromStdString(out.status), QString(kStatusFinished));
        QVERIFY(evals >= 1);
        const nlohmann::json config = read_json_file(out.run_dir + "/" + kConfigFile);
        QCOMPARE(QString::fromStdString(config.value("method", "")), QString("toy"));
    }
};

QTEST_GUILESS_MAIN(TestMethods)
#include "test_methods.moc"
