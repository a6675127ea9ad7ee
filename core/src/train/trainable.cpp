// A new run's settings checked before its folder exists, and its data file settled (trainable.h).
#include "train/trainable.h"

#include <filesystem>

#include "checkpoints/run_model.h"
#include "fone/nn/device.h"
#include "fone/store/run_kind.h"
#include "fone/text/corpus.h"
#include "hf/init_from.h"
#include "schemes/adapter_scheme.h"
#include "schemes/text_scheme.h"

namespace fone {

namespace fs = std::filesystem;

TrainConfig with_settled_data(TrainConfig c) {
    const bool reads_file = c.is_text() ? c.text_task == "text" : c.task.kind == TaskKind::file;
    if (!reads_file || c.task.data_file.empty()) return c;
    std::error_code ec;
    const fs::path absolute = fs::absolute(c.task.data_file, ec);
    if (!ec) c.task.data_file = absolute.lexically_normal().string();
    c.data_digest = data_digest(c.task.data_file);  // a folder corpus: the files read there
    return c;
}

void check_trainable(const TrainConfig& config) {
    config.validate();
    resolve_device(config.device);
    if (run_kind(config) == RunKind::adapter) {
        TrainConfig shaped = config;
        pretrained::adopt_pretrained_shape(shaped);  // a folder that is not a Llama or a Qwen2 is refused
        check_adapter_number_pieces(config.init_from);
    }
    if (config.is_text()) {
        check_text_corpus(config);  // unreadable data, numbers that do not fit (no tokenizer trained yet)
        return;
    }
    (void)open_run_model(config, "", RunData::splits);
}

}  // namespace fone
