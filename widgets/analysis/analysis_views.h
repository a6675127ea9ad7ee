// The analysis views of the workbench window (issue 7), one dock each:
//   circles     unit circles of a typed number (CirclesView)
//   hidden      a trained run's hidden state on the circles for a prompt (HiddenView)
//   spectrum    Fourier spectrum along the number axis, layer heatmap, linear probes (SpectrumView)
//   pca         PCA of representations, coloured by a digit or residue (PcaView)
//   errors      a run's test mispredictions, per-digit error rates, off-by-5 (ErrorsView)
//   playground  tokens of free text per scheme, a run's answer, tokens per table (PlaygroundView)
// app/workbench/main.cpp and the tests call register_analysis_views() before making the window.
#pragma once

#include <QStringList>

namespace fone::gui {

// Adds the six views to view_registry.h (idempotent).
void register_analysis_views();
// Their --view names, in the order above.
QStringList analysis_view_names();

}  // namespace fone::gui
