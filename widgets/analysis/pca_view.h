// PCA (workbench view "pca"): the representations of a range of numbers (FoNE encoder, or a trained run's
// layer through `fone analyse dump`) on their first principal components, coloured by a chosen digit or
// residue. Two of PC1..PC3 side by side, or all three as a projection you turn by dragging. Hovering a
// point names its number. The PCA runs off the GUI thread.
#pragma once

#include <QFutureWatcher>
#include <QPoint>
#include <memory>

#include "fone/analysis/analysis.h"
#include "representation_view.h"

class QComboBox;
class QCustomPlot;
class QLabel;
class QMouseEvent;

namespace fone::gui {

class PlotPanel;

// What the points are coloured by: the digit at a position (0 units, 1 tens, -1 tenths) or x mod T.
struct Colouring {
    bool residue = false;
    int position = 0;          // digit colouring
    std::int64_t period = 10;  // residue colouring
    QString name() const;      // "units digit", "x mod 10"
    int class_count() const { return residue ? static_cast<int>(period) : 10; }
    std::vector<int> classes(const std::vector<Decimal>& numbers) const;
};

struct PcaOutcome {
    std::shared_ptr<const analysis::Pca> pca;
    int layer = 0;
    QString error;
    bool cancelled = false;
};

// The 2-D coordinates drawn: PCs (a, b), or the three PCs turned by yaw (about PC3) then pitch (about
// the screen's horizontal axis) and projected. projection has N rows and at least `axes` columns.
Eigen::MatrixX2d view_coordinates(const Eigen::MatrixXd& projection, int mode, double yaw, double pitch);

class PcaView : public RepresentationView {
    Q_OBJECT
    Q_PROPERTY(QString colour READ colour_text WRITE set_colour_text)
    Q_PROPERTY(int axes READ axes WRITE set_axes)
  public:
    // Axes modes.
    enum { kPc12 = 0, kPc13 = 1, kPc23 = 2, kRotate3d = 3 };

    explicit PcaView(RunCatalog* catalog, QWidget* parent = nullptr);
    ~PcaView() override;

    void set_colouring(const Colouring& c);
    Colouring colouring() const;
    QString colour_text() const;  // "digit:0", "mod:10"
    void set_colour_text(const QString& text);
    void set_axes(int mode);
    int axes() const;
    void set_rotation(double yaw, double pitch);  // radians, for the 3-D mode

    const analysis::Pca* pca() const { return pca_.get(); }
    const Representations* source() const { return source_data_.get(); }
    // The point nearest a pixel of the plot (within 12 px), or -1; and what hovering it says.
    int point_at(const QPointF& pixel) const;
    QString point_text(int index) const;
    QCustomPlot* plot() const;

  protected:
    void on_loaded(std::shared_ptr<const Representations> source) override;
    void on_layer_chosen() override { start_pca(); }

  private:
    QComboBox* make_colour_box();
    QComboBox* make_axes_box();
    void connect_plot();
    void on_pca_done();
    void start_pca();
    void draw();
    void label_axes(QCustomPlot& plot, int mode);
    void draw_3d_axes(QCustomPlot& plot);
    void on_mouse_move(QMouseEvent* event);

    QComboBox *colour_, *axes_;
    PlotPanel* panel_;
    QLabel* hover_;
    QLabel* explained_;
    QFutureWatcher<PcaOutcome> watcher_;
    std::shared_ptr<const Representations> source_data_;
    std::shared_ptr<const analysis::Pca> pca_;
    int pca_layer_ = -1;
    Eigen::MatrixX2d shown_;  // the coordinates drawn
    double yaw_ = 0.6, pitch_ = 0.5;
    QPoint drag_from_;
    bool dragging_ = false;
};

}  // namespace fone::gui
