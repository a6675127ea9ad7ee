// Test support: the options of a workbench window under test (header-only): a store of the test's own, no
// saved settings read or written, and the `fone` this build made (or another command line, a fake one).
#pragma once

#include <QString>

#include "workbench_window.h"

namespace fone_test {

inline fone::gui::WorkbenchOptions window_options(const QString& runs_dir,
                                                  const QString& cli = QStringLiteral(FONE_BIN_DIR "/fone")) {
    fone::gui::WorkbenchOptions o;
    o.runs_dir = runs_dir;
    o.cli = cli;
    o.use_settings = false;
    return o;
}

}  // namespace fone_test
