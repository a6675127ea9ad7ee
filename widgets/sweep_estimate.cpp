#include "sweep_estimate.h"

#include <QFileInfo>
#include <algorithm>

#include "fone/store/model_config.h"
#include "fone/store/train_config.h"
#include "run_catalog.h"

namespace fone::gui {

using nlohmann::json;

namespace {

constexpr double kScaledSpread = 1.25;  // a size-scaled estimate is rough: its range a quarter wider each way

// A finished run's config.json (or the Launch panel's settings) as the run got it: the layers a config
// file gives `fone train --config` (its "preset": "" is no preset, its "versions" no setting).
std::optional<TrainConfig> resolved(const json& settings) {
    try {
        return resolve_train_config({settings_object(settings, "a run's config.json")});
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

// The model's size without its embedding table (which depends on the method's vocabulary): what the
// training time per token grows with.
double body_params(const TrainConfig& c) {
    return static_cast<double>(count_params(c.model, 0).without_embedding());
}

// "level 3", "h128 L2", or a pretrained folder's name (its shape is the folder's).
QString shape_key(const TrainConfig& c) {
    if (!c.init_from.empty()) return "from " + QString::fromStdString(c.init_from);
    return c.size_level > 0 ? QStringLiteral("level %1").arg(c.size_level)
                            : QStringLiteral("h%1 L%2").arg(c.model.hidden).arg(c.model.layers);
}

// What decides how long an example is: the task, and for a corpus the corpus.
QString task_key(const TrainConfig& c) {
    QString key = QString::fromStdString(c.task_label());
    if (!c.task.data_file.empty())
        key += " " + QFileInfo(QString::fromStdString(c.task.data_file)).fileName();
    return key;
}

double median(std::vector<double> v) {
    std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
    return v[v.size() / 2];
}

}  // namespace

QString CellEstimate::text() const {
    if (seconds < 0) return {};
    const QString point = format_seconds(seconds), from = format_seconds(low), to = format_seconds(high);
    return from == to ? "about " + point : QStringLiteral("about %1 (%2–%3)").arg(point, from, to);
}

void RunSpeeds::update() {
    speeds_.clear();
    for (int r = 0; r < catalog_->size(); ++r) {
        const RunEntry& e = catalog_->at(r);
        if (e.status != "finished" || !e.summary.is_object()) continue;
        const double seconds =
            json_number(e.summary, "elapsed_seconds", json_number(e.summary, "train_seconds", 0.0));
        const double training = std::min(seconds, json_number(e.summary, "train_seconds", seconds));
        const double epochs = json_number(e.summary, "epoch", 0.0);
        if (seconds <= 0 || epochs <= 0) continue;
        const QString key =
            e.dir + '\n' + QString::number(seconds, 'g', 17) + '\n' + QString::number(epochs, 'g', 17);
        auto cached = cache_.find(key);
        if (cached == cache_.end()) {
            std::optional<Speed> speed;
            if (const std::optional<TrainConfig> c = resolved(e.config); c && c->train_size > 0)
                speed = Speed{QString::fromStdString(c->method),
                              task_key(*c),
                              shape_key(*c),
                              training / (double(c->train_size) * epochs),
                              (seconds - training) / epochs,
                              body_params(*c)};
            cached = cache_.emplace(key, speed).first;
        }
        if (cached->second) speeds_.push_back(*cached->second);
    }
}

CellEstimate RunSpeeds::estimate(const json& settings) const {
    CellEstimate out;
    const std::optional<TrainConfig> config = resolved(settings);
    if (!config) return out;
    const double examples = double(config->train_size) * config->epochs, epochs = config->epochs;
    const QString method = QString::fromStdString(config->method), task = task_key(*config),
                  shape = shape_key(*config);
    const double params = body_params(*config);
    std::vector<double> same, scaled;
    for (const Speed& s : speeds_) {
        if (s.method != method || s.task != task) continue;
        if (s.shape == shape)
            same.push_back(s.seconds(examples, epochs));
        else if (s.params > 0 && params > 0 && !config->init_from.empty() == s.shape.startsWith("from "))
            scaled.push_back(s.seconds(examples, epochs) * params / s.params);
    }
    const std::vector<double>& v = same.empty() ? scaled : same;
    if (v.empty()) {
        out.missing = QStringLiteral("a finished %1 run on %2").arg(method, task);
        return out;
    }
    out.basis = same.empty() ? CellEstimate::Basis::scaled : CellEstimate::Basis::measured;
    out.runs = static_cast<int>(v.size());
    out.seconds = median(v);
    const double spread = same.empty() ? kScaledSpread : 1.0;
    out.low = *std::min_element(v.begin(), v.end()) / spread;
    out.high = *std::max_element(v.begin(), v.end()) * spread;
    return out;
}

}  // namespace fone::gui
