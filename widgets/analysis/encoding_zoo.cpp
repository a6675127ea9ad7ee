#include "encoding_zoo.h"

#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMouseEvent>
#include <QPainter>
#include <QTableWidget>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "fone/numbers/number_parser.h"

namespace fone::gui {
namespace {

constexpr const char* kDefaultNumber = "1234.5";
enum Column { kName, kCount, kTokens, kVector, kColumns };

// A vector as a row of cells: blue for negative entries, red for positive ones, white for 0; the cell
// under the mouse says its label and value. BitTokens' 128 entries fit 1280 pixels at 4 pixels a cell.
class VectorStrip : public QWidget {
  public:
    VectorStrip(std::vector<double> values, std::vector<std::string> labels, QWidget* parent = nullptr)
        : QWidget(parent), values_(std::move(values)), labels_(std::move(labels)) {
        setMouseTracking(true);
        setMinimumHeight(18);
        for (double v : values_)
            largest_ = std::max(largest_, std::fabs(v));
    }

  protected:
    void paintEvent(QPaintEvent*) override {
        QPainter p(this);
        const int n = static_cast<int>(values_.size());
        for (int i = 0; i < n; ++i) {
            const double t = largest_ > 0 ? values_[static_cast<std::size_t>(i)] / largest_ : 0.0;
            const int fade = static_cast<int>(255 * (1.0 - std::fabs(t)));
            const QColor c = t >= 0 ? QColor(255, fade, fade) : QColor(fade, fade, 255);
            p.fillRect(cell(i), c);
        }
        p.setPen(palette().color(QPalette::Mid));
        p.drawRect(rect().adjusted(0, 0, -1, -1));
    }
    void mouseMoveEvent(QMouseEvent* event) override {
        const int n = static_cast<int>(values_.size());
        for (int i = 0; i < n; ++i)
            if (cell(i).contains(event->position().toPoint())) {
                const auto k = static_cast<std::size_t>(i);
                QToolTip::showText(event->globalPosition().toPoint(),
                                   QString("%1 = %2").arg(QString::fromStdString(labels_[k])).arg(values_[k]),
                                   this);
                return;
            }
    }

  private:
    QRect cell(int i) const {
        const int n = static_cast<int>(values_.size());
        const int left = i * width() / n, right = (i + 1) * width() / n;
        return {left, 2, std::max(1, right - left - (n <= 32 ? 1 : 0)), height() - 4};
    }
    std::vector<double> values_;
    std::vector<std::string> labels_;
    double largest_ = 0;
};

// Just enough FoNE digit clocks for x, as `fone tokenize --all` picks them.
FoneSpec spec_for(const Decimal& x) {
    FoneSpec spec;
    spec.int_digits = -1;
    spec.frac_digits = -1;
    return fitted_spec(spec, {x});
}

QString joined_tokens(const NumberEncoding& e) {
    QStringList words;
    for (const std::string& t : e.tokens)
        words << QString::fromStdString(t);
    return words.join("  ");
}

}  // namespace

EncodingZoo::EncodingZoo(QWidget* parent) : QWidget(parent) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    number_ = new QLineEdit;
    number_->setPlaceholderText("A number: 1234.5, -0.25, 1,000,000");
    number_->setToolTip("One number; the table shows it under every encoding the workbench trains.");
    note_ = new QLabel;
    note_->setWordWrap(true);
    table_ = new QTableWidget(0, kColumns);
    // Short headers: the zoo shares its dock with two other pages, about 450 px wide at 1280×720.
    table_->setHorizontalHeaderLabels({"Encoding", "Tokens", "What the model reads", "Vector"});
    table_->horizontalHeaderItem(kVector)->setToolTip(
        "The vector added to the [NUM] token's embedding (red: positive, blue: negative)");
    table_->verticalHeader()->hide();
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setSelectionMode(QAbstractItemView::NoSelection);
    table_->horizontalHeader()->setSectionResizeMode(kName, QHeaderView::ResizeToContents);
    table_->horizontalHeader()->setSectionResizeMode(kCount, QHeaderView::ResizeToContents);
    table_->horizontalHeader()->setSectionResizeMode(kTokens, QHeaderView::ResizeToContents);
    table_->horizontalHeader()->setSectionResizeMode(kVector, QHeaderView::Stretch);
    layout->addWidget(number_);
    layout->addWidget(table_, 1);
    layout->addWidget(note_);
    connect(number_, &QLineEdit::textChanged, this, &EncodingZoo::show_encodings);
    number_->setText(kDefaultNumber);
}

void EncodingZoo::set_number(const QString& text) {
    number_->setText(text);
}

QString EncodingZoo::number() const {
    return number_->text();
}

QString EncodingZoo::problem() const {
    return encodings_.empty() ? note_->text() : QString();
}

void EncodingZoo::show_encodings() {
    encodings_.clear();
    table_->setRowCount(0);
    const ParsedText parsed = parse_numbers(number_->text().toStdString());
    if (parsed.numbers.size() != 1) {
        note_->setText(parsed.numbers.empty() ? "Type a number." : "Type one number, not several.");
        Q_EMIT encodingsChanged();
        return;
    }
    const Decimal& x = parsed.numbers[0].value;
    FoneSpec spec;
    try {
        spec = spec_for(x);
        encodings_ = encode_every_way(x, spec);
    } catch (const std::exception& e) {
        note_->setText(QString("This number cannot be encoded: %1").arg(e.what()));
        Q_EMIT encodingsChanged();
        return;
    }
    table_->setRowCount(static_cast<int>(encodings_.size()));
    for (int row = 0; row < table_->rowCount(); ++row) {
        const NumberEncoding& e = encodings_[static_cast<std::size_t>(row)];
        auto* name = new QTableWidgetItem(QString::fromStdString(e.name));
        name->setToolTip(QString::fromStdString(e.summary));
        table_->setItem(row, kName, name);
        auto* count = new QTableWidgetItem(QString::number(e.tokens.size()));
        count->setTextAlignment(Qt::AlignCenter);
        table_->setItem(row, kCount, count);
        auto* tokens = new QTableWidgetItem(joined_tokens(e));
        tokens->setToolTip(QString::fromStdString(e.summary));
        table_->setItem(row, kTokens, tokens);
        if (!e.vector.empty()) {
            auto* strip = new VectorStrip(e.vector, e.vector_labels);
            strip->setToolTip(
                QString("%1 entries: %2").arg(e.vector.size()).arg(QString::fromStdString(e.summary)));
            table_->setCellWidget(row, kVector, strip);
        } else {
            auto* learned = new QTableWidgetItem("learned");
            learned->setToolTip("No vector: the model learns an embedding for each of these tokens");
            table_->setItem(row, kVector, learned);
        }
    }
    note_->setText(QString("%1 as FoNE with %2 integer and %3 fraction digit clocks. One-token methods read "
                           "one [NUM] token and a vector (red: positive, blue: negative; hover a cell); "
                           "token methods read one learned row per token.")
                       .arg(QString::fromStdString(x.to_string()))
                       .arg(spec.int_digits)
                       .arg(spec.frac_digits));
    Q_EMIT encodingsChanged();
}

}  // namespace fone::gui
