#include "launch_kinds.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QLocale>
#include <QMap>
#include <cmath>

#include "fone/store/experiments.h"
#include "fone/store/methods.h"
#include "fone/store/train_config.h"
#include "fone/tasks/tasks.h"
#include "fone/text/text_data.h"
#include "run_catalog.h"

namespace fone::gui {

namespace {

QStringList from_std(const std::vector<std::string>& v) {
    QStringList out;
    for (const std::string& s : v)
        out << QString::fromStdString(s);
    return out;
}

bool is_adapter(const NumberMethod& m) {
    return is_adapter_method(m.name);
}

bool is_text_task(const QString& task) {
    return is_text_training_task(task.toStdString());
}

// Numbers as the window writes them.
QString count(double n) {
    return format_count(n);
}

}  // namespace

QStringList launch_kind_titles() {
    return {"Arithmetic task", "Text (a language model)", "Pretrained model (--init-from)"};
}

LaunchKind launch_kind_at(int index) {
    return index == 1 ? LaunchKind::text : index == 2 ? LaunchKind::pretrained : LaunchKind::arithmetic;
}

int launch_kind_index(LaunchKind kind) {
    return kind == LaunchKind::text ? 1 : kind == LaunchKind::pretrained ? 2 : 0;
}

LaunchKind launch_kind_of(const nlohmann::json& settings) {
    if (!settings.is_object()) return LaunchKind::arithmetic;
    if (const auto it = settings.find("init_from");
        it != settings.end() && it->is_string() && !it->get<std::string>().empty())
        return LaunchKind::pretrained;
    if (const auto it = settings.find("task");
        it != settings.end() && it->is_string() && is_text_training_task(it->get<std::string>()))
        return LaunchKind::text;
    return LaunchKind::arithmetic;
}

QStringList kind_tasks(LaunchKind kind) {
    switch (kind) {
        case LaunchKind::arithmetic:
            return from_std(task_names());
        case LaunchKind::text:
            return from_std(text_task_names_for_training());
        case LaunchKind::pretrained:
            return QStringList{"text"} + from_std(task_names());
    }
    return {};
}

QString method_problem(LaunchKind kind, const QString& task, const QString& method) {
    const NumberMethod* m = find_number_method(method.toStdString());
    if (!m) return "unknown method";
    const bool text = is_text_task(task);
    if (kind == LaunchKind::pretrained) {
        if (!m->init_from) return "does not start from a pretrained model";
        if (is_adapter(*m) != text)
            return is_adapter(*m) ? "trains on text (the task \"text\")"
                                  : "the task \"text\" takes fone-adapter";
        return {};
    }
    if (is_adapter(*m)) return "needs a pretrained model (the kind \"Pretrained model\")";
    if (text && !m->text) return "is not a text method";
    return {};
}

QStringList kind_methods(LaunchKind kind, const QString& task) {
    QStringList out;
    for (const NumberMethod& m : number_methods())
        if (method_problem(kind, task, QString::fromStdString(m.name)).isEmpty())
            out << QString::fromStdString(m.name);
    return out;
}

bool field_applies(const QString& key, LaunchKind kind, const QString& task, const QString& method) {
    const bool text = is_text_task(task);
    const bool adapter = is_adapter_method(method.toStdString());
    if (key == "data") return task == "text" || task == "file";
    if (key == "init_from") return kind == LaunchKind::pretrained;
    if (key == "model") return kind != LaunchKind::pretrained;  // a pretrained run takes the folder's shape
    if (key == "align_steps") return adapter;
    if (key == "text_context") return text;
    if (key == "text_vocab_size") return text && !adapter;  // the adapter keeps the model's tokenizer
    if (key == "target_acc") return !text;                  // an arithmetic run's test exact match
    return true;
}

QString will_train_text_run(const TrainConfig& c) {
    const QString method = QString::fromStdString(c.method);
    QString reads;
    if (c.text_task == "text")
        reads = "the corpus " + QFileInfo(QString::fromStdString(c.task.data_file)).fileName() +
                QStringLiteral(" (up to %1 training documents)").arg(count(double(c.train_size)));
    else if (c.is_text())
        reads = QStringLiteral("%1 %2 examples")
                    .arg(count(double(c.train_size)), QString::fromStdString(c.text_task));
    else
        reads = QStringLiteral("%1 examples of %2")
                    .arg(count(double(c.train_size)), QString::fromStdString(c.task_label()));
    QString text;
    if (!c.init_from.empty()) {
        const QString folder = QFileInfo(QString::fromStdString(c.init_from)).fileName();
        text =
            is_adapter_method(c.method)
                ? QStringLiteral("Will train: the FoNE adapter on %1's own tokens, on %2; %3")
                      .arg(
                          folder, reads,
                          c.align_steps < 0
                              ? QStringLiteral("only the adapter trains (the alignment phase, the whole run)")
                              : QStringLiteral("the adapter alone for %1 steps, then every weight")
                                    .arg(c.align_steps))
                : QStringLiteral("Will train: %1 from %2's weights on %3").arg(method, folder, reads);
    } else {
        const QString shape = c.size_level > 0 ? QStringLiteral("level %1").arg(c.size_level)
                                               : QStringLiteral("hidden %1, %2 layers, %3 heads")
                                                     .arg(c.model.hidden)
                                                     .arg(c.model.layers)
                                                     .arg(c.model.heads);
        text = QStringLiteral("Will train: a language model with %1 numbers on %2; %3")
                   .arg(method, reads, shape);
        if (!is_adapter_method(c.method))
            text += QStringLiteral(", a %1-piece text vocabulary").arg(count(c.text_vocab_size));
    }
    if (c.is_text() && c.text_context > 0)
        text += QStringLiteral("; windows of %1 tokens").arg(c.text_context);
    text += QStringLiteral("; lr %1 %2, batch %3, %4 epochs (steps: as many as the data's %5), seed %6")
                .arg(QString::number(c.lr, 'g', 3), QString::fromStdString(c.schedule))
                .arg(c.batch)
                .arg(c.epochs)
                .arg(c.is_text() ? QStringLiteral("windows") : QStringLiteral("batches"))
                .arg(c.seed);
    return text;
}

QString setting_text(const nlohmann::json& v) {
    if (v.is_string()) return QString::fromStdString(v.get<std::string>());
    if (v.is_number_unsigned()) return QString::number(v.get<unsigned long long>());
    if (v.is_number_integer()) return QString::number(v.get<long long>());
    // The shortest text that reads back as the same double: what is validated is what the run gets.
    if (v.is_number()) return QString::number(v.get<double>(), 'g', QLocale::FloatingPointShortest);
    return {};
}

QStringList train_flags(const nlohmann::json& settings) {
    static const QMap<QString, QString> renamed = {{"text_context", "--context"},
                                                   {"text_vocab_size", "--vocab-size"},
                                                   {"period_multipliers", "--periods"}};
    QStringList args;
    const auto flag = [](const std::string& key) {
        return "--" + QString::fromStdString(key).replace('_', '-');
    };
    for (auto it = settings.begin(); it != settings.end(); ++it) {
        const QString key = QString::fromStdString(it.key());
        if (key == "model" && it->is_object()) {
            for (auto m = it->begin(); m != it->end(); ++m)
                args << flag(m.key()) << setting_text(*m);
        } else if (key == "bittokens_reciprocal" && it->is_boolean()) {
            if (!it->get<bool>()) args << "--no-bittokens-reciprocal";
        } else if (key == "swap_operands" && it->is_boolean()) {
            args << (it->get<bool>() ? "--swap-operands" : "--no-swap-operands");
        } else if (it->is_array()) {
            QStringList parts;
            for (const auto& v : *it)
                parts << setting_text(v);
            args << renamed.value(key, flag(it.key())) << parts.join(',');
        } else {
            args << renamed.value(key, flag(it.key())) << setting_text(*it);
        }
    }
    return args;
}

QString bundled_factbook_sample() {
    QStringList candidates;
    if (const QString env = qEnvironmentVariable("FONE_FACTBOOK_SAMPLE"); !env.isEmpty()) candidates << env;
    candidates << QDir(QCoreApplication::applicationDirPath())
                      .absoluteFilePath("../share/fone-workbench/factbook-sample");
#ifdef FONE_SOURCE_DIR
    candidates << QStringLiteral(FONE_SOURCE_DIR "/tests/data/factbook-sample");
#endif
    for (const QString& dir : candidates)
        if (QFileInfo(dir).isDir()) return QFileInfo(dir).canonicalFilePath();
    return {};
}

QString recipe_path(const QString& path) {
    if (path.isEmpty() || QFileInfo(path).isAbsolute()) return path;
    const QString experiments = QString::fromStdString(experiments_dir());
    if (experiments.isEmpty()) return path;
    const QString there = QDir(experiments).absoluteFilePath("../" + path);
    if (QFileInfo::exists(there)) return QFileInfo(there).canonicalFilePath();
    // The bundled sample is installed under its own name (packaging/CMakeLists.txt).
    if (QDir::cleanPath(path) == "tests/data/factbook-sample") {
        if (const QString sample = bundled_factbook_sample(); !sample.isEmpty()) return sample;
    }
    return path;
}

}  // namespace fone::gui
