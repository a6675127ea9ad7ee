#include "pca_view.h"

#include <qcustomplot.h>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QToolTip>
#include <QVBoxLayout>
#include <cmath>

#include "analysis_plots.h"
#include "geometry_plots.h"
#include "plot_panel.h"

namespace fone::gui {

namespace fa = fone::analysis;

namespace {

const char* const kPositionNames[] = {"thousandths", "hundredths", "tenths",   "units",
                                      "tens",        "hundreds",   "thousands"};

// The colourings offered, in the combo's order.
std::vector<Colouring> colourings() {
    std::vector<Colouring> out;
    for (int p : {0, 1, 2, 3, -1, -2})
        out.push_back({false, p, 10});
    for (std::int64_t t : {2, 5, 10, 100})
        out.push_back({true, 0, t});
    return out;
}

}  // namespace

QString Colouring::name() const {
    if (residue) return QStringLiteral("x mod %1").arg(period);
    if (position >= -3 && position <= 3) return QString(kPositionNames[position + 3]) + " digit";
    return QStringLiteral("digit at 10^%1").arg(position);
}

std::vector<int> Colouring::classes(const std::vector<Decimal>& numbers) const {
    if (residue) return fa::residue_classes(numbers, period);
    std::vector<int> out;
    out.reserve(numbers.size());
    for (const Decimal& x : numbers)
        out.push_back(x.digit(position));
    return out;
}

Eigen::MatrixX2d view_coordinates(const Eigen::MatrixXd& projection, int mode, double yaw, double pitch) {
    const Eigen::Index n = projection.rows(), dims = projection.cols();
    auto column = [&](Eigen::Index c) -> Eigen::VectorXd {
        return c < dims ? Eigen::VectorXd(projection.col(c)) : Eigen::VectorXd::Zero(n);
    };
    Eigen::MatrixX2d out(n, 2);
    switch (mode) {
        case PcaView::kPc13:
            out.col(0) = column(0);
            out.col(1) = column(2);
            break;
        case PcaView::kPc23:
            out.col(0) = column(1);
            out.col(1) = column(2);
            break;
        case PcaView::kRotate3d:
            out = plots::turn_3d(column(0), column(1), column(2), yaw, pitch);
            break;
        default:
            out.col(0) = column(0);
            out.col(1) = column(1);
    }
    return out;
}

PcaView::PcaView(RunCatalog* catalog, QWidget* parent) : RepresentationView(catalog, parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(source_);
    layer_->setMinimumContentsLength(10);
    layer_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    layer_->setToolTip(
        "The layer analysed: 0 is the input (token embedding + FoNE), L the output of block L");
    colour_ = make_colour_box();
    axes_ = make_axes_box();
    progress_->setMinimumWidth(80);
    layout->addLayout(controls_row({{"Colour by", colour_}, {"Axes", axes_}}));
    panel_ = new PlotPanel;
    panel_->layout()->setContentsMargins(0, 0, 0, 0);
    explained_ = new QLabel;
    panel_->controls()->addWidget(explained_, 1);
    panel_->add_export_button();
    panel_->plot()->setToolTip(QString());
    panel_->plot()->setMouseTracking(true);
    panel_->plot()->setMinimumSize(160, 110);
    make_figure(panel_, [this] { draw(); });
    on_resize(panel_->plot(), [this] { draw(); });  // equal scales are for the plot's size
    layout->addWidget(panel_, 1);
    hover_ = new QLabel("Hover a point to see its number.");
    layout->addWidget(hover_);
    layout->addWidget(status_label());
    connect_plot();
    connect(&watcher_, &QFutureWatcher<PcaOutcome>::finished, this, &PcaView::on_pca_done);
    request_refresh();
}

// Short combos: the dock shares the window's width with the other views.
QComboBox* PcaView::make_colour_box() {
    auto* box = new QComboBox;
    for (const Colouring& c : colourings())
        box->addItem(c.name());
    box->setToolTip(
        "Colour each number by one of its digits, or by x mod T. FoNE puts numbers with the same "
        "units digit at the same point of the T = 10 circle: with the right components the "
        "colours separate into ten spokes.");
    box->setMinimumContentsLength(10);
    box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    connect(box, &QComboBox::currentIndexChanged, this, [this] { draw(); });
    return box;
}

QComboBox* PcaView::make_axes_box() {
    auto* box = new QComboBox;
    box->addItems({"PC1 × PC2", "PC1 × PC3", "PC2 × PC3", "PC1-PC3 in 3-D (drag to turn)"});
    box->setMinimumContentsLength(10);
    box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    box->setToolTip(
        "Which principal components are drawn. Principal components are the directions along which "
        "the representations vary most, largest first.");
    connect(box, &QComboBox::currentIndexChanged, this, [this](int mode) {
        panel_->plot()->setInteractions(
            mode == kRotate3d ? QCP::Interactions() : QCP::Interactions(QCP::iRangeDrag | QCP::iRangeZoom));
        draw();
    });
    return box;
}

// Hovering names a point; in the 3-D mode, dragging turns the picture.
void PcaView::connect_plot() {
    connect(panel_->plot(), &QCustomPlot::mouseMove, this, &PcaView::on_mouse_move);
    connect(panel_->plot(), &QCustomPlot::mousePress, this, [this](QMouseEvent* e) {
        dragging_ = axes_->currentIndex() == kRotate3d && e->button() == Qt::LeftButton;
        drag_from_ = e->pos();
    });
    connect(panel_->plot(), &QCustomPlot::mouseRelease, this, [this] { dragging_ = false; });
    panel_->plot()->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
}

void PcaView::on_pca_done() {
    const PcaOutcome r = watcher_.result();
    set_running(false);
    if (r.cancelled) return;
    if (!r.error.isEmpty()) {
        on_failed(r.error);
        return;
    }
    pca_ = r.pca;
    pca_layer_ = r.layer;
    show_info(source_->limit_note());
    draw();
    set_busy(false);
    Q_EMIT finished();
}

PcaView::~PcaView() {
    stop_background(watcher_);
}

QCustomPlot* PcaView::plot() const {
    return panel_->plot();
}

void PcaView::set_colouring(const Colouring& c) {
    const auto all = colourings();
    for (std::size_t i = 0; i < all.size(); ++i)
        if (all[i].residue == c.residue &&
            (c.residue ? all[i].period == c.period : all[i].position == c.position)) {
            colour_->setCurrentIndex(static_cast<int>(i));
            return;
        }
}

Colouring PcaView::colouring() const {
    return colourings()[static_cast<std::size_t>(std::max(0, colour_->currentIndex()))];
}

QString PcaView::colour_text() const {
    const Colouring c = colouring();
    return c.residue ? QStringLiteral("mod:%1").arg(c.period) : QStringLiteral("digit:%1").arg(c.position);
}

void PcaView::set_colour_text(const QString& text) {
    const QString kind = text.section(':', 0, 0), value = text.section(':', 1);
    Colouring c;
    c.residue = kind == "mod";
    if (c.residue)
        c.period = value.toLongLong();
    else
        c.position = value.toInt();
    set_colouring(c);
}

void PcaView::set_axes(int mode) {
    axes_->setCurrentIndex(std::clamp(mode, 0, 3));
}

int PcaView::axes() const {
    return axes_->currentIndex();
}

void PcaView::set_rotation(double yaw, double pitch) {
    yaw_ = yaw;
    pitch_ = pitch;
    draw();
}

void PcaView::on_loaded(std::shared_ptr<const Representations> source) {
    source_data_ = source;
    pca_.reset();
    list_layers(*source);
    start_pca();
}

void PcaView::start_pca() {
    if (!source_data_) return;
    set_busy(true);
    set_running(true);
    progress_->setFormat("PCA %p%");
    const int layer =
        std::clamp(layer_->currentIndex(), 0, static_cast<int>(source_data_->layers.size()) - 1);
    // The bar keeps its "PCA %p%" format: only the fraction changes.
    run_in_background(
        watcher_, [this](double f) { progress_->setValue(static_cast<int>(1000 * f)); },
        [source = source_data_, layer](const fa::Progress& progress) {
            PcaOutcome out;
            out.layer = layer;
            const Eigen::MatrixXd& rows = source->layers[static_cast<std::size_t>(layer)];
            const int components = static_cast<int>(std::min<Eigen::Index>(3, rows.cols()));
            out.pca = std::make_shared<fa::Pca>(fa::pca(rows, components, progress));
            return out;
        });
}

void PcaView::draw() {
    QCustomPlot& plot = *panel_->plot();
    if (!pca_ || !source_data_) return;
    const int mode = axes_->currentIndex();
    const Colouring c = colouring();
    std::vector<int> classes;
    try {
        classes = c.classes(source_data_->numbers);
    } catch (const std::exception& e) {
        show_error(QString::fromStdString(e.what()));
        return;
    }
    fa::Pca shown = *pca_;
    shown_ = view_coordinates(pca_->projection, mode, yaw_, pitch_);
    shown.projection = shown_;
    const std::string layer_name = source_data_->layers.size() > 1
                                       ? ", " + source_data_->layer_names[pca_layer_].toStdString()
                                       : std::string();
    plots::draw_pca(plot, shown, classes, c.class_count(), c.name().toStdString(),
                    "PCA of " + source_data_->description.toStdString() + layer_name + ", numbers " +
                        source_data_->numbers.front().to_string() + ".." +
                        source_data_->numbers.back().to_string());
    if (mode != kRotate3d)
        label_axes(plot, mode);
    else
        draw_3d_axes(plot);
    QStringList parts;
    for (std::size_t i = 0; i < pca_->explained_ratio.size(); ++i)
        parts << QStringLiteral("PC%1 %2%").arg(i + 1).arg(100.0 * pca_->explained_ratio[i], 0, 'f', 1);
    explained_->setText(QStringLiteral("%1 numbers × %2 dimensions · variance explained: %3")
                            .arg(source_data_->numbers.size())
                            .arg(source_data_->layers[static_cast<std::size_t>(pca_layer_)].cols())
                            .arg(parts.join(", ")));
    // Equal variances: the principal axes are not unique (the FoNE encoder: every pair has variance 1/2).
    const auto& r = pca_->explained_ratio;
    if (r.size() >= 2 && r[0] > 0 && r[0] - r[1] < 0.01 * r[0])
        show_info(
            QStringLiteral("PC1 and PC2 explain the same share of the variance: the principal axes are not "
                           "unique here (any rotation of them is as good), so the picture is one of many. "
                           "The FoNE encoder is like this: all its pairs have the same variance.%1")
                .arg(source_->limit_note().isEmpty() ? QString() : " " + source_->limit_note()));
    plot.replot(QCustomPlot::rpQueuedReplot);
}

// The two PCs drawn, with their shares of the variance.
void PcaView::label_axes(QCustomPlot& plot, int mode) {
    auto ratio = [&](int i) {
        return i < static_cast<int>(pca_->explained_ratio.size())
                   ? 100.0 * pca_->explained_ratio[static_cast<std::size_t>(i)]
                   : 0.0;
    };
    static const int kAxes[3][2] = {{0, 1}, {0, 2}, {1, 2}};
    for (int a = 0; a < 2; ++a)
        (a ? plot.yAxis : plot.xAxis)
            ->setLabel(QStringLiteral("PC%1 (%2% of the variance)")
                           .arg(kAxes[mode][a] + 1)
                           .arg(ratio(kAxes[mode][a]), 0, 'f', 1));
}

// Equal scales that do not change while turning, and the three axes drawn from the centre.
void PcaView::draw_3d_axes(QCustomPlot& plot) {
    double radius = 1e-12;
    for (Eigen::Index i = 0; i < pca_->projection.rows(); ++i)
        radius = std::max(
            radius, pca_->projection.row(i).head(std::min<Eigen::Index>(3, pca_->projection.cols())).norm());
    const double w = std::max(1, plot.axisRect()->width()), h = std::max(1, plot.axisRect()->height());
    const double half_y = 1.35 * radius, half_x = half_y * w / h;
    plot.xAxis->setRange(-std::max(half_x, 1.1 * radius), std::max(half_x, 1.1 * radius));
    plot.yAxis->setRange(-1.1 * radius, 1.1 * radius + 0.45 * radius);
    Eigen::MatrixXd unit = Eigen::MatrixXd::Identity(3, std::max<Eigen::Index>(3, pca_->projection.cols()));
    const Eigen::MatrixX2d tips = view_coordinates(unit, kRotate3d, yaw_, pitch_);
    for (int a = 0; a < std::min<int>(3, static_cast<int>(pca_->projection.cols())); ++a) {
        auto* line = new QCPItemLine(&plot);
        line->start->setCoords(0, 0);
        line->end->setCoords(0.8 * radius * tips(a, 0), 0.8 * radius * tips(a, 1));
        line->setPen(QPen(QColor(90, 90, 90), 1.2, Qt::DashLine));
        line->setHead(QCPLineEnding(QCPLineEnding::esSpikeArrow, 7, 9));
        auto* label = new QCPItemText(&plot);
        label->position->setCoords(0.9 * radius * tips(a, 0), 0.9 * radius * tips(a, 1));
        label->setText(QStringLiteral("PC%1").arg(a + 1));
        label->setColor(QColor(60, 60, 60));
    }
    plot.xAxis->setLabel(QStringLiteral("PC1-PC3 turned by %1° and tilted by %2° (drag to turn)")
                             .arg(yaw_ * 180 / M_PI, 0, 'f', 0)
                             .arg(pitch_ * 180 / M_PI, 0, 'f', 0));
    plot.yAxis->setLabel(QString());
}

int PcaView::point_at(const QPointF& pixel) const {
    if (!pca_ || shown_.rows() == 0) return -1;
    const QCustomPlot& plot = *panel_->plot();
    int best = -1;
    double best_d2 = 12.0 * 12.0;
    for (Eigen::Index i = 0; i < shown_.rows(); ++i) {
        const double dx = plot.xAxis->coordToPixel(shown_(i, 0)) - pixel.x();
        const double dy = plot.yAxis->coordToPixel(shown_(i, 1)) - pixel.y();
        const double d2 = dx * dx + dy * dy;
        if (d2 < best_d2) {
            best_d2 = d2;
            best = static_cast<int>(i);
        }
    }
    return best;
}

QString PcaView::point_text(int index) const {
    if (!pca_ || !source_data_ || index < 0 || index >= static_cast<int>(source_data_->numbers.size()))
        return {};
    const Decimal& x = source_data_->numbers[static_cast<std::size_t>(index)];
    const Colouring c = colouring();
    QString text = QStringLiteral("x = %1 · %2 %3")
                       .arg(QString::fromStdString(x.to_string()), c.name())
                       .arg(c.classes({x}).front());
    for (Eigen::Index k = 0; k < pca_->projection.cols(); ++k)
        text += QStringLiteral(" · PC%1 %2").arg(k + 1).arg(pca_->projection(index, k), 0, 'g', 3);
    return text;
}

void PcaView::on_mouse_move(QMouseEvent* event) {
    if (dragging_ && (event->buttons() & Qt::LeftButton)) {
        const QPoint d = event->pos() - drag_from_;
        drag_from_ = event->pos();
        yaw_ += 0.01 * d.x();
        pitch_ = std::clamp(pitch_ + 0.01 * d.y(), -M_PI / 2, M_PI / 2);
        draw();
        return;
    }
    const int index = point_at(event->position());
    if (index < 0) {
        QToolTip::hideText();
        return;
    }
    const QString text = point_text(index);
    hover_->setText(text);
    QToolTip::showText(event->globalPosition().toPoint(), text, panel_->plot());
}

}  // namespace fone::gui
