// Test support: the one-block model the quick tests train (a second of CPU, not a result), in both forms:
// the ModelConfig an in-process test builds, and the `fone train` options a command-line test passes.
// `hidden` wide, one layer, 2 heads of hidden/2 (1 key-value head), an MLP of 2·hidden.
#pragma once

#include <QString>
#include <QStringList>

#include "fone/store/model_config.h"

namespace fone_test {

inline fone::ModelConfig one_block_model(int vocab_size, int hidden = 32, int max_seq = 64) {
    fone::ModelConfig m;
    m.vocab_size = vocab_size;
    m.hidden = hidden;
    m.layers = 1;
    m.heads = 2;
    m.kv_heads = 1;
    m.head_dim = hidden / 2;
    m.intermediate = 2 * hidden;
    m.max_seq = max_seq;
    return m;
}

inline QStringList one_block_model_options(int hidden = 32) {
    return {"--hidden",       QString::number(hidden),
            "--layers",       "1",
            "--heads",        "2",
            "--kv-heads",     "1",
            "--head-dim",     QString::number(hidden / 2),
            "--intermediate", QString::number(2 * hidden)};
}

}  // namespace fone_test
