#include "run_colours.h"

#include <QSet>

namespace fone::gui {

bool RunColours::follow(const QStringList& names) {
    const QSet<QString> wanted(names.begin(), names.end());
    bool changed = false;
    for (auto it = slots_.begin(); it != slots_.end();) {
        if (wanted.contains(it.key())) {
            ++it;
        } else {
            it = slots_.erase(it);
            changed = true;
        }
    }
    QSet<int> taken;
    for (int s : std::as_const(slots_))
        taken.insert(s);
    int next = 0;
    for (const QString& name : names) {
        if (name.isEmpty() || slots_.contains(name)) continue;
        while (taken.contains(next))
            ++next;
        slots_.insert(name, next);
        taken.insert(next);
        changed = true;
    }
    return changed;
}

}  // namespace fone::gui
