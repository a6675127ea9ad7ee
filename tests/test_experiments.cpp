// Experiments as files (experiments/*.json, read by `fone reproduce`): every shipped file loads and gives
// exactly the cells the hard-coded presets gave before they became files (tests/golden/experiments.json,
// written by that code at commit d421d22: ids, labels and settings of every cell of every preset, in
// order); a bad file is an error naming the file and the field.
#include <QTemporaryDir>
#include <QtTest>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "fone/store/experiments.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const std::string kShipped = FONE_SOURCE_DIR "/experiments";

json read_json(const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return json::parse(text.str());
}

void spit(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::trunc) << text;
}

// The message of the std::invalid_argument f() throws, or "" when it throws none.
template <typename F>
std::string error_of(F&& f) {
    try {
        f();
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "";
}

// A small valid experiment, with one field replaced by `patch` (a JSON merge patch).
std::string experiment_text(const json& patch = json::object()) {
    json e = {{"title", "T"},
              {"description", "D"},
              {"id", "{method}-s{seed}"},
              {"labels", {"method"}},
              {"settings", {{"task", "dec-add"}, {"train_size", 100}, {"test_size", 10}}},
              {"grid", {{"method", {"fone", "digit"}}, {"seed", {1, 2}}}},
              {"presets", {{"quick", {{"settings", {{"epochs", 1}}}}}}}};
    e.merge_patch(patch);
    return e.dump();
}

}  // namespace

class TestExperiments : public QObject {
    Q_OBJECT
  private Q_SLOTS:
    // Every shipped experiment, every preset: the same cells, in the same order, with the same ids,
    // labels and settings (compared as JSON text, so 0 and 0.0 differ) as the code they replace.
    void shipped_files_give_the_cells_of_before() {
        const json golden = read_json(FONE_SOURCE_DIR "/tests/golden/experiments.json");
        const std::vector<fone::Experiment> all = fone::load_experiments(kShipped);
        QStringList names;
        for (const auto& e : all)
            names << QString::fromStdString(e.name);
        QCOMPARE(names, QStringList({"efficiency", "data-size", "model-size", "ablations", "ntl", "modular",
                                     "bittokens", "grokking", "text-factbook", "text-scaling"}));
        int cells = 0;
        for (const fone::Experiment& e : all) {
            if (!golden.contains(e.name)) continue;  // born a file (issue 19 on): nothing to compare with
            const json& want = golden.at(e.name);
            QCOMPARE(e.title, want.at("title").get<std::string>());
            QCOMPARE(e.report, e.name);
            QCOMPARE(int(e.presets.size()), 3);
            for (const fone::ExperimentPreset& p : e.presets) {
                const json& cells_before = want.at(p.name);
                QVERIFY2(p.cells.size() == cells_before.size(),
                         qPrintable(QString::fromStdString(e.name + " " + p.name)));
                for (std::size_t i = 0; i < p.cells.size(); ++i) {
                    // Issue 14 added one setting to every cell: the paper's uniform sampling, so that
                    // reproductions stay what they were now that addition trains on typed sums by default.
                    json settings = p.cells[i].settings;
                    QCOMPARE(settings.value("sampling", std::string()), std::string("uniform"));
                    settings.erase("sampling");
                    const json got = {
                        {"id", p.cells[i].id}, {"labels", p.cells[i].labels}, {"settings", settings}};
                    QCOMPARE(QString::fromStdString(got.dump()),
                             QString::fromStdString(cells_before[i].dump()));
                    ++cells;
                }
            }
        }
        QCOMPARE(cells, 384);
    }

    void presets_keep_the_files_order_and_name_the_unknown() {
        const fone::Experiment e = fone::load_experiment(kShipped + "/efficiency.json");
        QCOMPARE(e.presets[0].name, std::string("quick"));
        QCOMPARE(e.presets[1].name, std::string("cpu"));
        QCOMPARE(e.presets[2].name, std::string("full"));
        QVERIFY(!e.presets[1].description.empty());
        QCOMPARE(error_of([&] { e.preset("huge"); }),
                 std::string("unknown preset 'huge' (presets: quick, cpu, full)"));
    }

    void an_experiment_is_found_by_name_or_path() {
        qputenv("FONE_EXPERIMENTS_DIR", QByteArray(kShipped.c_str()));
        QCOMPARE(fone::find_experiment("ntl").name, std::string("ntl"));
        QCOMPARE(fone::find_experiment(kShipped + "/modular.json").name, std::string("modular"));
        const std::string unknown = error_of([] { fone::find_experiment("everything"); });
        QCOMPARE(unknown,
                 std::string("unknown experiment 'everything' (experiments: efficiency, data-size, "
                             "model-size, ablations, ntl, modular, bittokens, grokking, text-factbook, "
                             "text-scaling)"));
        qunsetenv("FONE_EXPERIMENTS_DIR");
    }

    // A new file is a new experiment: a grid, a preset, ids from the template, labels from the settings.
    void a_new_file_is_a_new_experiment() {
        QTemporaryDir dir;
        const std::string path = dir.path().toStdString() + "/mine.json";
        spit(path, experiment_text());
        const fone::Experiment e = fone::load_experiment(path);
        QCOMPARE(e.name, std::string("mine"));
        QCOMPARE(e.report, std::string("table"));
        const auto& cells = e.preset("quick").cells;
        QCOMPARE(int(cells.size()), 4);
        QCOMPARE(cells[1].id, std::string("fone-s2"));  // the last axis varies fastest
        QCOMPARE(cells[2].id, std::string("digit-s1"));
        QCOMPARE(cells[2].labels.dump(), std::string(R"({"method":"digit"})"));
        QCOMPARE(cells[2].settings.dump(),
                 std::string(R"({"epochs":1,"method":"digit","seed":1,"task":"dec-add","test_size":10,)"
                             R"("train_size":100})"));
    }

    // Bad files: one error naming the file and the field.
    void bad_files_name_the_file_and_the_field() {
        QTemporaryDir dir;
        const std::string path = dir.path().toStdString() + "/bad.json";
        const auto error_for = [&](const json& patch) {
            spit(path, experiment_text(patch));
            return error_of([&] { fone::load_experiment(path); });
        };
        const std::string p = path + ": ";
        QCOMPARE(error_for({{"title", nullptr}}), p + "title: missing (a string)");
        QCOMPARE(error_for({{"colour", "blue"}}), p + "colour: unknown field");
        QCOMPARE(
            error_for({{"report", "pie"}}),
            p + "report: unknown report 'pie' (reports: efficiency, data-size, model-size, ablations, ntl, "
                "modular, grokking, peers, text, text-scaling, table)");
        QCOMPARE(error_for({{"grid", {{"seed", json::array()}}}}),
                 p + "grid.seed: an axis is a non-empty list of values");
        QCOMPARE(error_for({{"id", "{method}"}}),
                 p + "presets.quick: cell fone: two cells have this id (\"id\" must tell them apart)");
        QCOMPARE(error_for({{"id", "{colour}"}}),
                 p + "grid: \"id\": {colour} is neither an axis nor a setting of the cell");
        QCOMPARE(error_for({{"labels", {"variant"}}}),
                 p + "grid: cell fone-s1: label \"variant\" is not among its settings");
        QCOMPARE(
            error_for({{"report", "data-size"}}),
            p + "presets.quick: cell fone-s1: the \"data-size\" report needs the label \"train_size\" (a "
                "number)");
        QCOMPARE(error_for({{"presets", {{"quick", {{"axes", {{"size", {1}}}}}}}}}),
                 p + "presets.quick.axes.size: the file's grid has no such axis");
        json many = json::array();
        for (int seed = 0; seed < 5001; ++seed)
            many.push_back(seed);
        QCOMPARE(error_for({{"grid", {{"seed", many}}}}), p + "grid: more than 10000 cells in one preset");
        // Settings are checked as `fone train` checks them, naming the setting.
        const std::string lr = error_for({{"settings", {{"lr", -1}}}});
        QVERIFY2(lr.rfind(p + "presets.quick: cell fone-s1: ", 0) == 0 && lr.find("lr") != std::string::npos,
                 lr.c_str());
        const std::string typo = error_for({{"grid", {{"methd", {"fone"}}}}, {"id", "x{methd}"}});
        QVERIFY2(typo.find("methd") != std::string::npos && typo.rfind(p, 0) == 0, typo.c_str());
        spit(path, "{\"title\": ");
        QVERIFY(error_of([&] { fone::load_experiment(path); }).rfind(p + "corrupt JSON", 0) == 0);
    }
};

QTEST_GUILESS_MAIN(TestExperiments)
#include "test_experiments.moc"
