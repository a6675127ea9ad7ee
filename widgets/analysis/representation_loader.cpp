#include "representation_loader.h"

#include <QtConcurrent>
#include <algorithm>

#include "analysis_view.h"

namespace fone::gui {

using nlohmann::json;

RepresentationLoader::RepresentationLoader(QObject* parent)
    : QObject(parent), call_(new FoneCall(default_fone_program(), this)) {
    connect(call_, &FoneCall::succeeded, this, &RepresentationLoader::read_dump);
    connect(call_, &FoneCall::failed, this, [this](const QString& message) {
        dir_.reset();
        Q_EMIT failed(message);
    });
    connect(&watcher_, &QFutureWatcher<RepresentationResult>::finished, this, [this] {
        if (watcher_.isCanceled() || cancel_->load()) return;
        const RepresentationResult result = watcher_.result();
        dir_.reset();
        if (!result.value) {
            Q_EMIT failed(result.error);
            return;
        }
        last_ = result.value;
        last_settings_ = pending_;
        Q_EMIT loaded(result.value);
    });
    cancel_ = std::make_shared<std::atomic<bool>>(false);
}

RepresentationLoader::~RepresentationLoader() {
    cancel();
    watcher_.waitForFinished();
}

bool RepresentationLoader::running() const {
    return call_->running() || watcher_.isRunning();
}

void RepresentationLoader::cancel() {
    call_->cancel();
    cancel_->store(true);
    dir_.reset();
}

void RepresentationLoader::load(const SourceSettings& settings) {
    cancel();
    cancel_ = std::make_shared<std::atomic<bool>>(false);
    pending_ = settings;
    if (last_ && settings == last_settings_) {
        QTimer::singleShot(0, this, [this, keep = last_] { Q_EMIT loaded(keep); });
        return;
    }
    Decimal start, step;
    std::string why;
    if (!Decimal::try_parse(settings.start.toStdString(), start, &why)) {
        QTimer::singleShot(0, this, [this, why] {
            Q_EMIT failed("'from' is not a number: " + QString::fromStdString(why));
        });
        return;
    }
    if (!Decimal::try_parse(settings.step.toStdString(), step, &why) || step.is_zero() || step.negative()) {
        QTimer::singleShot(0, this, [this] { Q_EMIT failed("'step' must be a positive number"); });
        return;
    }
    if (!settings.run_dir.isEmpty() || !settings.model_dir.isEmpty()) {
        dir_ = std::make_unique<QTemporaryDir>();
        if (!dir_->isValid()) {
            QTimer::singleShot(0, this, [this] { Q_EMIT failed("cannot make a temporary folder"); });
            return;
        }
        const bool model = !settings.model_dir.isEmpty();
        Q_EMIT progress(-1, QStringLiteral("asking fone for the %1hidden states of %2 numbers…")
                                .arg(model ? "model's " : "")
                                .arg(settings.count));
        const QStringList source = model ? QStringList{"--source", "model", "--model", settings.model_dir}
                                         : QStringList{"--source", "run", "--run", settings.run_dir};
        call_->start(QStringList{"analyse", "dump"} + source +
                     QStringList{"--numbers", QString::number(settings.count), "--start", settings.start,
                                 "--step", settings.step, "--out", dir_->path()});
        return;
    }
    Q_EMIT progress(0, "encoding the numbers…");
    auto cancel = cancel_;
    watcher_.setFuture(QtConcurrent::run([settings, start, step, cancel]() -> RepresentationResult {
        try {
            auto r = std::make_shared<Representations>();
            r->numbers = analysis::number_range(start, step, settings.count);
            const FoneSpec spec =
                encoder_spec(r->numbers, settings.int_digits, settings.frac_digits, settings.base);
            if (cancel->load()) return {};
            r->layers.push_back(analysis::encoder_matrix(r->numbers, spec));
            r->layer_names << "FoNE encoder";
            r->step = step.to_double();
            r->description = QStringLiteral("FoNE encoder (m=%1, n=%2, base %3)")
                                 .arg(spec.int_digits)
                                 .arg(spec.frac_digits)
                                 .arg(spec.base);
            return {r, {}};
        } catch (const std::exception& e) {
            return {nullptr, QString::fromStdString(e.what())};
        }
    }));
}

void RepresentationLoader::read_dump(const json& result) {
    std::vector<std::pair<std::string, QString>> files;  // csv path, layer name
    if (result.contains("layers") && result["layers"].is_array())
        for (const json& l : result["layers"])
            files.push_back(
                {l.value("csv", std::string()), QString::fromStdString(l.value("name", std::string()))});
    if (files.empty()) {
        dir_.reset();
        Q_EMIT failed("fone analyse dump listed no layers");
        return;
    }
    const double step = result.value("step", 1.0);
    const int chosen = result.value("chosen_layer", static_cast<int>(files.size()) - 1);
    const QString description = QString::fromStdString(result.value("source", std::string()));
    Q_EMIT progress(0, QStringLiteral("reading %1 layers…").arg(files.size()));
    auto cancel = cancel_;
    watcher_.setFuture(
        QtConcurrent::run([files, step, chosen, description, cancel]() -> RepresentationResult {
            try {
                auto r = std::make_shared<Representations>();
                for (const auto& [path, name] : files) {
                    if (cancel->load()) return {};
                    analysis::RepresentationTable t = analysis::read_representation_csv(path);
                    if (r->layers.empty()) r->numbers = std::move(t.numbers);
                    r->layers.push_back(std::move(t.values));
                    r->layer_names << name;
                }
                r->step = step;
                r->default_layer = std::clamp(chosen, 0, static_cast<int>(r->layers.size()) - 1);
                r->description = description.section(',', 0, 0);
                return {r, {}};
            } catch (const std::exception& e) {
                return {nullptr, QString::fromStdString(e.what())};
            }
        }));
}

}  // namespace fone::gui
