#include "analysis_views.h"

#include "adapter_view.h"
#include "circles_view.h"
#include "errors_view.h"
#include "helix_view.h"
#include "hidden_view.h"
#include "job_runner.h"
#include "knockout_view.h"
#include "pca_view.h"
#include "playground_view.h"
#include "presenter_view.h"
#include "replay_view.h"
#include "spectrum_view.h"
#include "text_scaling_view.h"
#include "timeline_view.h"
#include "token_loss_view.h"
#include "view_registry.h"
#include "welcome_view.h"

namespace fone::gui {

namespace {

// The `fone` the window's jobs use (its --cli / $FONE_CLI / next to the program).
template <class View>
View* with_program(View* view, const WorkbenchContext& context) {
    if (context.jobs) view->set_program(context.jobs->cli());
    return view;
}

}  // namespace

QStringList analysis_view_names() {
    return {"welcome",    "circles",  "hidden",   "spectrum", "pca",        "helix",   "errors",
            "playground", "knockout", "timeline", "replay",   "token-loss", "adapter", "text-scaling"};
}

void register_analysis_views() {
    // The window opens on the welcome view (in front of the other views the first time).
    register_view({"welcome", "Welcome",
                   [](const WorkbenchContext& c) {
                       return new WelcomeView(c.catalog, c.jobs ? c.jobs->cli() : default_fone_program());
                   },
                   true});
    register_view({"circles", "Unit circles", [](const WorkbenchContext&) { return new CirclesView; }});
    register_view({"hidden", "Hidden state",
                   [](const WorkbenchContext& c) { return with_program(new HiddenView(c.catalog), c); }});
    register_view({"spectrum", "Spectrum",
                   [](const WorkbenchContext& c) { return with_program(new SpectrumView(c.catalog), c); }});
    register_view(
        {"pca", "PCA", [](const WorkbenchContext& c) { return with_program(new PcaView(c.catalog), c); }});
    register_view({"helix", "Helix and digits",
                   [](const WorkbenchContext& c) { return with_program(new HelixView(c.catalog), c); }});
    register_view({"errors", "Errors",
                   [](const WorkbenchContext& c) { return with_program(new ErrorsView(c.catalog), c); }});
    register_view({"playground", "Playground",
                   [](const WorkbenchContext& c) { return with_program(new PlaygroundView(c.catalog), c); }});
    register_view({"knockout", "Knockout",
                   [](const WorkbenchContext& c) { return with_program(new KnockoutView(c.catalog), c); }});
    register_view({"timeline", "Timeline",
                   [](const WorkbenchContext& c) { return with_program(new TimelineView(c.catalog), c); }});
    register_view({"replay", "Replay", [](const WorkbenchContext& c) { return new ReplayView(c.catalog); }});
    register_view({"token-loss", "Token loss",
                   [](const WorkbenchContext& c) { return with_program(new TokenLossView(c.catalog), c); }});
    register_view({"adapter", "FoNE adapter",
                   [](const WorkbenchContext& c) { return with_program(new AdapterView(c.catalog), c); }});
    register_view({"text-scaling", "Text scaling",
                   [](const WorkbenchContext& c) { return new TextScalingView(c.catalog); }});
    // Presenter mode tells the welcome view's story, its race included.
    register_presenter([](const WorkbenchContext& c) -> QWidget* {
        auto* welcome = c.view ? qobject_cast<WelcomeView*>(c.view("welcome")) : nullptr;
        return new PresenterView(welcome, c.catalog, c.jobs ? c.jobs->cli() : default_fone_program());
    });
}

}  // namespace fone::gui
