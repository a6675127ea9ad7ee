// What a new run's settings must pass before its folder exists (bad input writes nothing), and the data file
// they settle on. Private to core/src/train/.
#pragma once

#include "fone/store/train_config.h"

namespace fone {

// The data file as an absolute path with its content digest: the run reads this file, and notices when it
// changes, wherever it is resumed or evaluated from. (An unreadable file is left as it is: check_trainable
// refuses it with the reader's message.)
TrainConfig with_settled_data(TrainConfig c);

// Everything that can refuse a config without training (a dataset file that is missing or malformed,
// digit slots that do not fit the data or the model, no CUDA) refuses it here, before the run directory
// exists: bad input writes nothing. The trainer repeats this work (well under a second).
void check_trainable(const TrainConfig& config);

}  // namespace fone
