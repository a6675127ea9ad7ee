#include "view_registry.h"

namespace fone::gui {

namespace {
std::vector<ViewSpec>& views() {
    static std::vector<ViewSpec> all;
    return all;
}
}  // namespace

void register_view(const ViewSpec& spec) {
    for (ViewSpec& v : views())
        if (v.name == spec.name) {
            v = spec;
            return;
        }
    views().push_back(spec);
}

const std::vector<ViewSpec>& registered_views() {
    return views();
}

namespace {
PresenterFactory& presenter() {
    static PresenterFactory make;
    return make;
}
}  // namespace

void register_presenter(PresenterFactory make) {
    presenter() = std::move(make);
}

const PresenterFactory& registered_presenter() {
    return presenter();
}

}  // namespace fone::gui
