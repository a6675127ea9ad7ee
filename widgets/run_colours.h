// One colour per run in every view that draws runs (Curves, Compare, Compare settings, the Runs table):
// the selected runs hold palette slots. A run newly selected takes the lowest slot no selected run holds
// and keeps it while it stays selected, so selecting or deselecting another run never recolours it, and
// the first ten runs selected always differ in colour. Slots, not colours: each view paints slot i with
// its theme's series(i).
#pragma once

#include <QHash>
#include <QString>
#include <QStringList>

namespace fone::gui {

class RunColours {
  public:
    // The runs now selected, in any order. Runs no longer selected give their slots back. Returns whether
    // any run's slot changed.
    bool follow(const QStringList& names);
    // The run's slot, or -1 when it is not selected.
    int slot(const QString& name) const { return slots_.value(name, -1); }

  private:
    QHash<QString, int> slots_;
};

}  // namespace fone::gui
