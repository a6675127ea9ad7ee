// The callback through which training and generation hand out their events, one JSON object each (the
// objects `fone train` and `fone generate --json` print one per line).
#pragma once

#include <functional>

#include <nlohmann/json.hpp>

namespace fone {

using EventSink = std::function<void(const nlohmann::json&)>;

}  // namespace fone
